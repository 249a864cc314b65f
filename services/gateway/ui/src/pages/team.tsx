import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { personName, shortId, when } from '../format';
import { SpawnTeammate } from '../components/spawn-teammate';
import { Roster } from '../components/roster';
import { useFacts } from '../live';
import { useAgents, useMembers } from '../queries';
import { useWorkspace } from '../session';
import type { Fact, MessageSentPayload, Task, TaskStatus, Teammate } from '../types';
import './team.css';

/** How many `message.sent` facts the messages table keeps (newest last). */
const MESSAGES_SHOWN = 100;
const BOARD: TaskStatus[] = ['pending', 'in_progress', 'completed', 'cancelled'];

/**
 * The team: the roster of teammates (status, turns, spend; a person's message,
 * stop), who messaged whom (the `message.sent` facts: ids and sizes, never the
 * content), and the task board with claim / complete / cancel / reopen. Live
 * through the workspace stream: `teammate.*`, `task.*`, `message.sent` and the
 * turns' `agent.run.*` facts refresh what they change.
 */
export function TeamPage() {
  const { slug, role } = useWorkspace();
  const queryClient = useQueryClient();
  const live = useFacts(
    slug,
    (fact) => {
      if (fact.kind === 'message.sent') {
        queryClient.setQueryData<Fact[]>(['messages', slug], (old) => newestMessages(old ?? [], [fact]));
      }
      if (fact.kind.startsWith('teammate.') || fact.kind === 'message.sent' || fact.kind.startsWith('agent.run.')) void queryClient.invalidateQueries({ queryKey: ['teammates', slug] });
      if (fact.kind.startsWith('task.')) void queryClient.invalidateQueries({ queryKey: ['tasks', slug] });
    },
    [['teammates', slug], ['tasks', slug], ['messages', slug]],
  );
  const roster = useQuery({
    queryKey: ['teammates', slug],
    queryFn: () => api<{ teammates: Teammate[] }>('GET', wsPath(slug, '/teammates')).then((r) => r.teammates),
    enabled: live,
  });
  const tasks = useQuery({
    queryKey: ['tasks', slug],
    queryFn: () => api<{ tasks: Task[] }>('GET', wsPath(slug, '/tasks?limit=200')).then((r) => r.tasks),
    enabled: live,
  });
  const messages = useQuery({
    queryKey: ['messages', slug],
    // Merged with what the stream added while the read was under way: it may have begun before them.
    queryFn: async () => newestMessages(await messageFacts(slug), queryClient.getQueryData<Fact[]>(['messages', slug]) ?? []),
    enabled: live,
  });
  const canWrite = role !== 'viewer';
  return (
    <section className="team">
      <div className="page-head">
        <h1>Team</h1>
        <Link href="/teams">Teams</Link>
        <span className="badge" data-testid="roster-count">
          {roster.data ? `${roster.data.filter((mate) => mate.status !== 'stopped').length} active teammates` : '…'}
        </span>
      </div>
      {roster.error && <p role="alert" className="error">{errorText(roster.error)}</p>}
      {canWrite && <SpawnTeammate ws={slug} />}
      <Roster teammates={roster.data} canWrite={canWrite} />
      <h2>Messages</h2>
      <Messages facts={messages.data} teammates={roster.data ?? []} />
      <h2>Tasks</h2>
      {tasks.error && <p role="alert" className="error">{errorText(tasks.error)}</p>}
      {canWrite && <NewTask />}
      <div className="board" data-testid="task-board">
        {BOARD.map((status) => (
          <div key={status} className="board-column" data-status={status}>
            <h3>
              {status.replace('_', ' ')} <span className="muted">{tasks.data?.filter((task) => task.status === status).length ?? ''}</span>
            </h3>
            {tasks.data
              ?.filter((task) => task.status === status)
              .map((task) => <TaskCard key={task.id} task={task} canWrite={canWrite} />)}
          </div>
        ))}
      </div>
    </section>
  );
}

/** The newest MESSAGES_SHOWN of two lists of `message.sent` facts, each once, in seq order. */
function newestMessages(a: Fact[], b: Fact[]): Fact[] {
  const byId = new Map([...a, ...b].map((fact) => [fact.id, fact]));
  return [...byId.values()].sort((x, y) => x.seq - y.seq).slice(-MESSAGES_SHOWN);
}

/** The latest `message.sent` facts: the first page tells where the kind ends, the tail of it is kept. */
async function messageFacts(slug: string): Promise<Fact[]> {
  let after = 0;
  let kept: Fact[] = [];
  // Pages of 1,000 oldest first, up to 10: the table shows the newest of what was read.
  for (let page = 0; page < 10; page++) {
    const { events, nextCursor } = await api<{ events: Fact[]; nextCursor: number }>('GET', wsPath(slug, `/events?kind=message.sent&limit=1000&after=${after}`));
    kept = newestMessages(kept, events);
    if (events.length < 1000) break;
    after = nextCursor;
  }
  return kept;
}

function Messages({ facts, teammates }: { facts: Fact[] | undefined; teammates: Teammate[] }) {
  const { slug } = useWorkspace();
  const agents = useAgents(slug);
  const members = useMembers(slug);
  const sender = (payload: MessageSentPayload) => {
    if (payload.from === 'agent') {
      const mate = teammates.find((t) => t.agentId === payload.senderId);
      return mate ? `teammate ${mate.name}` : `agent ${agents.data?.find((a) => a.id === payload.senderId)?.spec.name ?? shortId(payload.senderId)}`;
    }
    if (payload.from === 'event') return `event ${shortId(payload.senderId)}`;
    if (payload.from === 'user') return personName(payload.senderId, undefined, members.data);
    return `${payload.from} ${shortId(payload.senderId)}`;
  };
  const rows = [...(facts ?? [])].reverse();
  return (
    <div className="table-wrap">
      <table data-testid="messages">
        <thead>
          <tr>
            <th>From</th>
            <th>To</th>
            <th className="c-num">Chars</th>
            <th className="hide-narrow">Woke</th>
            <th className="hide-narrow">At</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((fact) => {
            const payload = fact.payload as MessageSentPayload;
            return (
              <tr key={fact.id} data-message-id={payload.messageId}>
                <td className="ellipsis">{sender(payload)}</td>
                <td>{payload.teammate ?? shortId(payload.sessionId)}</td>
                <td className="c-num">{payload.chars}</td>
                <td className="hide-narrow">{payload.woke ? 'woke' : ''}</td>
                <td className="hide-narrow">{when(fact.ts)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {facts?.length === 0 && <p className="muted pad">No messages yet.</p>}
    </div>
  );
}

function NewTask() {
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const [subject, setSubject] = useState('');
  const [error, setError] = useState<string | undefined>();
  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      await api('POST', wsPath(slug, '/tasks'), { subject });
      // The new card can show (live) before this answer: text typed meanwhile for the next task stays.
      setSubject((current) => (current === subject ? '' : current));
      void queryClient.invalidateQueries({ queryKey: ['tasks', slug] });
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <form className="filters" onSubmit={create} aria-label="new task">
      <label>
        New task
        <input name="subject" value={subject} onChange={(e) => setSubject(e.target.value)} placeholder="subject" maxLength={500} />
      </label>
      <button type="submit" disabled={!subject.trim()}>
        Create
      </button>
      {error && (
        <span role="alert" className="error">
          {error}
        </span>
      )}
    </form>
  );
}

const ACTIONS: Record<TaskStatus, ('claim' | 'complete' | 'cancel' | 'reopen')[]> = {
  pending: ['claim', 'complete', 'cancel'],
  in_progress: ['complete', 'cancel'],
  completed: ['reopen'],
  cancelled: ['reopen'],
};

function TaskCard({ task, canWrite }: { task: Task; canWrite: boolean }) {
  const { slug } = useWorkspace();
  const members = useMembers(slug).data;
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | undefined>();
  const act = async (action: string) => {
    setError(undefined);
    try {
      const changed = await api<Task>('POST', wsPath(slug, `/tasks/${task.id}/${action}`));
      queryClient.setQueryData<Task[]>(['tasks', slug], (old) => old?.map((t) => (t.id === changed.id ? changed : t)));
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  const blocked = task.openBlockers.length > 0;
  return (
    <article className="task" data-task-id={task.id} aria-label={`task ${task.subject}`}>
      <strong>{task.subject}</strong>
      <div className="who-line">
        {task.owner ? `held by ${task.owner.type === 'member' ? personName(task.owner.id, undefined, members) : `agent ${shortId(task.owner.id)}`}` : 'unclaimed'}
        {blocked && <span className="error"> · blocked by {task.openBlockers.length}</span>}
        {task.endedAt && <> · ended {when(task.endedAt)}</>}
      </div>
      {canWrite && (
        <div className="row">
          {ACTIONS[task.status].map((action) => (
            <button key={action} type="button" onClick={() => void act(action)} disabled={blocked && (action === 'claim' || action === 'complete')}>
              {action[0]!.toUpperCase() + action.slice(1)}
            </button>
          ))}
        </div>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </article>
  );
}
