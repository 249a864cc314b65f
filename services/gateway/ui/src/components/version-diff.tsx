import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, wsPath } from '../api';
import { lineDiff } from '../line-diff';
import type { AgentSpec, AgentVersionDiffResponse, AgentVersionSummary } from '../types';

function useVersionSpec(ws: string, agentId: string, version: number | undefined) {
  return useQuery({
    queryKey: ['agent-version', ws, agentId, version],
    enabled: version !== undefined,
    // Versions are immutable.
    staleTime: Infinity,
    queryFn: () => api<{ spec: AgentSpec }>('GET', wsPath(ws, `/agents/${agentId}/versions/${version}`)).then((v) => JSON.stringify(v.spec, null, 2)),
  });
}

/** A labelled choice of one of the agent's versions. */
export function VersionPicker({ label, name, value, versions, onChange }: { label: string; name: string; value: number | undefined; versions: AgentVersionSummary[]; onChange: (version: number) => void }) {
  return (
    <label>
      {label}
      <select name={name} value={value ?? ''} onChange={(e) => onChange(Number(e.target.value))}>
        {versions.map((v) => (
          <option key={v.version} value={v.version}>
            v{v.version}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The diff between any two versions of an agent, picked from its history. */
export function VersionDiff({ ws, agentId, versions }: { ws: string; agentId: string; versions: AgentVersionSummary[] }) {
  const latest = versions.at(-1)?.version;
  const [from, setFrom] = useState<number | undefined>(latest !== undefined && latest > 1 ? latest - 1 : latest);
  const [to, setTo] = useState<number | undefined>(latest);
  const before = useVersionSpec(ws, agentId, from);
  const after = useVersionSpec(ws, agentId, to);
  const lines = before.data !== undefined && after.data !== undefined ? lineDiff(before.data, after.data) : [];
  // The API's diff (decision 0046): the fields that changed and the JSON Patch from one spec to the other.
  const diff = useQuery({
    queryKey: ['agent-diff', ws, agentId, from, to],
    enabled: from !== undefined && to !== undefined,
    staleTime: Infinity,
    queryFn: () => api<AgentVersionDiffResponse>('GET', wsPath(ws, `/agents/${agentId}/versions/${from}/diff/${to}`)),
  });
  const picker = (label: string, value: number | undefined, set: (v: number) => void) => <VersionPicker label={label} name={label} value={value} versions={versions} onChange={set} />;
  return (
    <div className="diff">
      <div className="filters">
        {picker('from', from, setFrom)}
        {picker('to', to, setTo)}
      </div>
      {diff.data && (
        <p data-testid="diff-fields">
          {diff.data.changedFields.length === 0 ? 'No change.' : `Changed: ${diff.data.changedFields.join(', ')}`}
        </p>
      )}
      {diff.data && diff.data.patch.length > 0 && (
        <details>
          <summary>JSON Patch ({diff.data.patch.length} operations)</summary>
          <pre className="diff-body" data-testid="diff-patch">
            {JSON.stringify(diff.data.patch, null, 2)}
          </pre>
        </details>
      )}
      <pre className="diff-body" data-testid="version-diff">
        {lines.map((line, index) => (
          <div key={index} className={line.op === '+' ? 'add' : line.op === '-' ? 'del' : 'same'}>
            {line.op} {line.text}
          </div>
        ))}
      </pre>
    </div>
  );
}
