import { useCallback, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { api, ApiError, errorText, wsPath } from '../api';
import { DeleteAgent, StartRun } from '../components/agent-actions';
import { ExportButton } from '../components/bundle-actions';
import { AgentEvals } from '../components/agent-evals';
import { Collaborators } from '../components/collaborators';
import { Limits } from '../components/limits';
import { SpecEditor } from '../components/spec-editor';
import { TryPanel } from '../components/try-panel';
import { VersionDiff } from '../components/version-diff';
import { VersionList } from '../components/version-list';
import { USAGE_REFRESH_MS } from '../queries';
import { useWorkspace } from '../session';
import type { AgentResponse, AgentVersionSummary } from '../types';

/** Every version of an agent, oldest first. */
async function listVersions(ws: string, id: string): Promise<AgentVersionSummary[]> {
  const all: AgentVersionSummary[] = [];
  let after = 0;
  for (;;) {
    const page = await api<{ versions: AgentVersionSummary[]; nextCursor: number | null }>('GET', wsPath(ws, `/agents/${id}/versions?after=${after}&limit=200`));
    all.push(...page.versions);
    if (page.nextCursor === null) return all;
    after = page.nextCursor;
  }
}

export function AgentDetailPage() {
  const { id } = useParams<{ id: string }>();
  const { slug, role } = useWorkspace();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [draft, setDraft] = useState<string | undefined>();
  const onDraft = useCallback((text: string) => setDraft(text), []);
  const agent = useQuery({
    queryKey: ['agent', slug, id],
    queryFn: () => api<AgentResponse>('GET', wsPath(slug, `/agents/${id}`)),
    refetchOnMount: 'always',
    refetchInterval: USAGE_REFRESH_MS,
  });
  const versions = useQuery({ queryKey: ['agent-versions', slug, id], queryFn: () => listVersions(slug, id) });

  const adopt = (saved: AgentResponse) => {
    queryClient.setQueryData(['agent', slug, id], saved);
    void queryClient.invalidateQueries({ queryKey: ['agent-versions', slug, id] });
    void queryClient.invalidateQueries({ queryKey: ['agents', slug] });
  };
  const setEnabled = async (enabled: boolean) => {
    setError(undefined);
    try {
      adopt(await api<AgentResponse>('POST', wsPath(slug, `/agents/${id}/${enabled ? 'enable' : 'disable'}`)));
    } catch (caught) {
      setError(caught instanceof ApiError ? `${caught.code}: ${caught.message}` : String(caught));
    }
  };

  if (agent.error) return <p role="alert" className="error">{errorText(agent.error)}</p>;
  if (!agent.data) return <p className="loading">Loading…</p>;
  const a = agent.data;
  const canWrite = role !== 'viewer';
  return (
    <section>
      <div className="page-head">
        <h1>{a.spec.name}</h1>
        <span className={a.enabled ? 'status s-completed' : 'status s-cancelled'} data-testid="agent-enabled">
          {a.enabled ? 'enabled' : 'disabled'}
        </span>
        <span className="muted" data-testid="agent-version">
          v{a.version}
          {a.pinnedVersion !== null && ` · runs pinned to v${a.pinnedVersion}`}
        </span>
        {canWrite && (
          <>
            <button type="button" onClick={() => setEnabled(!a.enabled)}>
              {a.enabled ? 'Disable' : 'Enable'}
            </button>
            <button
              type="button"
              onClick={() => {
                setEditing(!editing);
                setDraft(undefined);
              }}
              aria-expanded={editing}
            >
              {editing ? 'Close editor' : 'Edit'}
            </button>
            <Link href={`/agents/${id}/craft`} className="button-link">
              Craft
            </Link>
          </>
        )}
        <ExportButton ws={slug} agentId={id} />
        {canWrite && <DeleteAgent ws={slug} agentId={id} name={a.spec.name} />}
      </div>
      {error && <p role="alert" className="error">{error}</p>}
      {editing ? (
        <SpecEditor
          key={a.version}
          ws={slug}
          agent={a}
          onSaved={(saved) => {
            adopt(saved);
            setEditing(false);
            setDraft(undefined);
          }}
          onDraft={onDraft}
        />
      ) : (
        <pre className="spec" data-testid="agent-spec">
          {JSON.stringify(a.spec, null, 2)}
        </pre>
      )}
      {canWrite && (
        <>
          <h2>Start a run</h2>
          <StartRun ws={slug} agentId={id} />
        </>
      )}
      <h2>Limits</h2>
      <Limits agent={a} />
      {canWrite && versions.data && <TryPanel ws={slug} agent={a} versions={versions.data} draft={editing ? draft : undefined} />}
      {versions.data && <AgentEvals ws={slug} agent={a} versions={versions.data} draft={editing ? draft : undefined} canWrite={canWrite} />}
      <h2 id="collaborators">Collaborators</h2>
      <Collaborators ws={slug} agentId={id} canWrite={canWrite} />
      <h2>Versions</h2>
      {versions.data && <VersionList ws={slug} agent={a} versions={versions.data} canWrite={canWrite} onAgent={adopt} />}
      {versions.data && versions.data.length > 0 && (
        <>
          <h2>Diff</h2>
          <VersionDiff key={versions.data.length} ws={slug} agentId={id} versions={versions.data} />
        </>
      )}
    </section>
  );
}
