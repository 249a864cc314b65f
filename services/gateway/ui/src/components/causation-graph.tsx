import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, wsPath } from '../api';
import { shortId } from '../format';
import { eventIdOf, useFact } from '../queries';
import type { AgentResponse, Run } from '../types';

/** How far below a run the graph looks, and how many runs it reads per run. */
const LEVELS = 3;
const PER_RUN = 20;

interface CausedNode {
  run: Run;
  children: CausedNode[];
}

/** The runs above this one: what caused it, and what caused that, up to the first. */
export function useCausedBy(ws: string, run: Run) {
  return useQuery({
    queryKey: ['caused-by', ws, run.id],
    queryFn: async () => {
      const chain: Run[] = [];
      let parent = run.causedBy?.runId;
      while (parent && chain.length < 10) {
        const above = await api<Run>('GET', wsPath(ws, `/runs/${parent}`)).catch(() => undefined);
        if (!above) break;
        chain.unshift(above);
        parent = above.causedBy?.runId;
      }
      return chain;
    },
  });
}

/** The runs this run caused (`GET /runs?causedByRunId=`), and theirs, LEVELS deep. */
export function useCaused(ws: string, runId: string) {
  const below = async (id: string, level: number): Promise<CausedNode[]> => {
    const { runs } = await api<{ runs: Run[] }>('GET', wsPath(ws, `/runs?causedByRunId=${id}&limit=${PER_RUN}`));
    const oldestFirst = [...runs].reverse();
    return Promise.all(oldestFirst.map(async (run) => ({ run, children: level < LEVELS ? await below(run.id, level + 1) : [] })));
  };
  return useQuery({ queryKey: ['caused', ws, runId], queryFn: () => below(runId, 1), refetchInterval: 3_000 });
}

/** A run in the graph: the kind of the fact it ran on (the edge from what caused it), its agent and status. */
function RunNode({ ws, run, agents, current, root }: { ws: string; run: Run; agents: AgentResponse[] | undefined; current?: boolean; root?: boolean }) {
  const name = agents?.find((a) => a.id === run.agentId)?.spec.name ?? shortId(run.agentId);
  // The root run's fact is the graph's root node already.
  const fact = useFact(ws, root ? undefined : eventIdOf(run));
  const label = (
    <>
      {fact.data && <code className="muted">{fact.data.kind} → </code>}
      {name} <span className={`status s-${run.status}`}>{run.status}</span>
    </>
  );
  return current ? (
    <strong className="node current" aria-current="true">
      this run · {label}
    </strong>
  ) : (
    <Link href={`/runs/${run.id}`} className="node" data-run-id={run.id}>
      {label}
    </Link>
  );
}

function Tree({ ws, nodes, agents }: { ws: string; nodes: CausedNode[]; agents: AgentResponse[] | undefined }) {
  if (nodes.length === 0) return null;
  return (
    <ul>
      {nodes.map((node) => (
        <li key={node.run.id}>
          <RunNode ws={ws} run={node.run} agents={agents} />
          <Tree ws={ws} nodes={node.children} agents={agents} />
        </li>
      ))}
    </ul>
  );
}

/**
 * What caused a run and what it caused, as a small graph: the chain above it
 * (runs, then the fact that started the first) and the tree of runs below it,
 * a few levels deep.
 */
export function CausationGraph({ ws, run, agents }: { ws: string; run: Run; agents: AgentResponse[] | undefined }) {
  const above = useCausedBy(ws, run);
  const below = useCaused(ws, run.id);
  // The fact at the root: the one that started the first run of the chain.
  const root = above.data?.[0] ?? (above.data ? run : undefined);
  const fact = useFact(ws, root ? eventIdOf(root) : undefined).data;
  return (
    <div className="causation-graph" data-testid="causation">
      <ul>
        <li>
          {fact ? (
            <Link href={`/events/${fact.id}`} className="node fact">
              fact <code>{fact.kind}</code>{' '}
              <span className="muted">
                {fact.subject.type}/{fact.subject.id} · seq {fact.seq}
              </span>
            </Link>
          ) : (
            <span className="node muted">{root?.origin.type ?? '…'}</span>
          )}
          <Chain ws={ws} runs={above.data ?? []} run={run} agents={agents} caused={below.data ?? []} root />
        </li>
      </ul>
      {below.data?.length === 0 && <p className="muted">It caused no run.</p>}
    </div>
  );
}

/** The runs above, each one nested in the one that caused it, down to this run and the tree below it. */
function Chain({ ws, runs, run, agents, caused, root }: { ws: string; runs: Run[]; run: Run; agents: AgentResponse[] | undefined; caused: CausedNode[]; root?: boolean }) {
  const [first, ...rest] = runs;
  if (!first) {
    return (
      <ul>
        <li data-testid="this-run">
          <RunNode ws={ws} run={run} agents={agents} current root={root} />
          <div data-testid="caused">
            <Tree ws={ws} nodes={caused} agents={agents} />
          </div>
        </li>
      </ul>
    );
  }
  return (
    <ul>
      <li>
        <RunNode ws={ws} run={first} agents={agents} root={root} />
        <Chain ws={ws} runs={rest} run={run} agents={agents} caused={caused} />
      </li>
    </ul>
  );
}
