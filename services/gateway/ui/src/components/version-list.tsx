import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorText, wsPath } from '../api';
import { when } from '../format';
import { VersionPicker } from './version-diff';
import type { AgentResponse, AgentVersionSummary } from '../types';

/** One tag as the API lists it (`GET /agents/{id}/tags`). */
interface Tag {
  tag: string;
  version: number;
}

/**
 * An agent's versions with their tags, which one new runs use, and (for a
 * member) the pin, rollback, unpin and tag actions (decision 0046). Every
 * action is the API's: the page shows what the API answers.
 */
export function VersionList({ ws, agent, versions, canWrite, onAgent }: { ws: string; agent: AgentResponse; versions: AgentVersionSummary[]; canWrite: boolean; onAgent: (agent: AgentResponse) => void }) {
  const queryClient = useQueryClient();
  const tagsKey = ['agent-tags', ws, agent.id];
  const tags = useQuery({ queryKey: tagsKey, queryFn: () => api<{ tags: Tag[] }>('GET', wsPath(ws, `/agents/${agent.id}/tags`)).then((r) => r.tags) });
  const [error, setError] = useState<string | undefined>();
  const [newTag, setNewTag] = useState('');
  const [tagVersion, setTagVersion] = useState(agent.version);
  const inForce = agent.pinnedVersion ?? agent.version;

  const act = async (action: () => Promise<void>) => {
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  const pin = (version: number | null) =>
    act(async () => {
      const path = wsPath(ws, `/agents/${agent.id}/pin`);
      onAgent(await api<AgentResponse>(version === null ? 'DELETE' : 'PUT', path, version === null ? undefined : { version }));
    });
  const tagAction = (method: 'PUT' | 'DELETE', version: number, tag: string) =>
    act(async () => {
      const answer = await api<{ tags: Tag[] }>(method, wsPath(ws, `/agents/${agent.id}/versions/${version}/tags/${encodeURIComponent(tag)}`));
      queryClient.setQueryData(tagsKey, answer.tags);
      if (method === 'PUT') setNewTag('');
    });

  return (
    <>
      {error && <p role="alert" className="error">{error}</p>}
      <ol className="versions" data-testid="versions">
        {versions.map((v) => (
          <li key={v.version} data-testid={`version-${v.version}`}>
            v{v.version} <span className="muted">{v.name} · {when(v.createdAt)}</span>
            {v.version === agent.version && <span className="badge">latest</span>}
            {v.version === inForce && (
              <span className="badge in-force" data-testid="in-force">
                {agent.pinnedVersion === null ? 'runs use this' : 'pinned · runs use this'}
              </span>
            )}
            {tags.data
              ?.filter((t) => t.version === v.version)
              .map((t) => (
                <span key={t.tag} className="badge tag" data-testid={`tag-${t.tag}`}>
                  {t.tag}
                  {canWrite && (
                    <button type="button" className="link" aria-label={`remove tag ${t.tag}`} onClick={() => void tagAction('DELETE', v.version, t.tag)}>
                      ×
                    </button>
                  )}
                </span>
              ))}
            {canWrite && agent.pinnedVersion !== v.version && (
              <button type="button" onClick={() => void pin(v.version)}>
                {v.version < agent.version ? `Roll back to v${v.version}` : `Pin v${v.version}`}
              </button>
            )}
            {canWrite && agent.pinnedVersion === v.version && (
              <button type="button" onClick={() => void pin(null)}>
                Unpin (run the latest)
              </button>
            )}
          </li>
        ))}
      </ol>
      {canWrite && (
        <form
          className="filters"
          aria-label="tag a version"
          onSubmit={(e) => {
            e.preventDefault();
            if (newTag) void tagAction('PUT', tagVersion, newTag);
          }}
        >
          <label>
            Tag
            <input name="tag" value={newTag} onChange={(e) => setNewTag(e.target.value)} placeholder="stable" maxLength={64} />
          </label>
          <VersionPicker label="on" name="tag-version" value={tagVersion} versions={versions} onChange={setTagVersion} />
          <button type="submit" disabled={!newTag}>
            Tag
          </button>
        </form>
      )}
    </>
  );
}
