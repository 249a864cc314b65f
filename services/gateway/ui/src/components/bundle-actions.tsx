import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, errorText, wsPath } from '../api';
import type { AgentBundle, ImportAgentsResponse } from '../types';

/** Hands `bundle` to the browser as a file download named after its first agent. */
function download(bundle: AgentBundle): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(bundle, null, 2)], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `${bundle.agents[0]?.name ?? 'agents'}.agents.json`;
  link.click();
  URL.revokeObjectURL(url);
}

/** Downloads the agent's bundle (every version, its tags and pin: decision 0046). */
export function ExportButton({ ws, agentId }: { ws: string; agentId: string }) {
  const [error, setError] = useState<string | undefined>();
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setError(undefined);
          api<AgentBundle>('GET', wsPath(ws, `/agents/${agentId}/export`)).then(download, (caught: unknown) => setError(errorText(caught)));
        }}
      >
        Export
      </button>
      {error && <span role="alert" className="error">{error}</span>}
    </>
  );
}

/**
 * Imports a bundle file into this workspace (`POST /agents:import`): the
 * agents arrive disabled, and the secrets they name are listed to be set.
 * A refused bundle shows its code; nothing of it was written.
 */
export function ImportBundle({ ws }: { ws: string }) {
  const queryClient = useQueryClient();
  const [result, setResult] = useState<ImportAgentsResponse | undefined>();
  const [error, setError] = useState<string | undefined>();
  const onFile = async (file: File | undefined) => {
    setError(undefined);
    setResult(undefined);
    if (!file) return;
    let bundle: unknown;
    try {
      bundle = JSON.parse(await file.text());
    } catch {
      setError(`${file.name} is not JSON`);
      return;
    }
    try {
      setResult(await api<ImportAgentsResponse>('POST', wsPath(ws, '/agents:import'), bundle));
      void queryClient.invalidateQueries({ queryKey: ['agents', ws] });
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <div className="import-bundle">
      <label>
        Import a bundle
        <input type="file" accept="application/json,.json" name="bundle" onChange={(e) => void onFile(e.target.files?.[0])} />
      </label>
      {error && <p role="alert" className="error">{error}</p>}
      {result && (
        <p data-testid="import-result" role="status">
          Imported {result.agents.map((a) => a.name).join(', ')} (disabled).{' '}
          {result.secrets.length > 0 ? `Set these secrets before enabling: ${result.secrets.join(', ')}.` : 'They name no secrets.'}
        </p>
      )}
    </div>
  );
}
