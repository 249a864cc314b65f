import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorText, wsPath } from '../api';
import { when } from '../format';
import type { SecretInfo } from '../types';

/**
 * Workspace secrets (`/secrets`): members see names and dates; admins set,
 * rotate (set again) and delete. A value goes in and is never shown back: the
 * field is emptied once the API has it.
 */
export function SecretsPanel({ ws, canWrite }: { ws: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const secrets = useQuery({ queryKey: ['secrets', ws], queryFn: () => api<{ secrets: SecretInfo[] }>('GET', wsPath(ws, '/secrets')).then((r) => r.secrets) });
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [done, setDone] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['secrets', ws] });

  const put = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setDone(undefined);
    const existed = secrets.data?.some((secret) => secret.name === name);
    try {
      await api('PUT', wsPath(ws, `/secrets/${encodeURIComponent(name)}`), { value });
      setDone(`${existed ? 'Rotated' : 'Set'} ${name}.`);
      setName('');
      setValue('');
      await refresh();
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  const remove = async (secret: string) => {
    setError(undefined);
    setDone(undefined);
    try {
      await api('DELETE', wsPath(ws, `/secrets/${encodeURIComponent(secret)}`));
      setDone(`Deleted ${secret}.`);
      await refresh();
    } catch (caught) {
      setError(errorText(caught));
    }
  };

  return (
    <>
      {secrets.error && <p role="alert" className="error">{errorText(secrets.error)}</p>}
      {canWrite && (
        <form className="stack-form" aria-label="set a secret" onSubmit={put}>
          <div className="form-row">
            <div className="field">
              <label htmlFor="secret-name">Secret name</label>
              <input id="secret-name" value={name} onChange={(e) => setName(e.target.value)} required autoComplete="off" />
            </div>
            <div className="field">
              <label htmlFor="secret-value">Value</label>
              <input id="secret-value" type="password" value={value} onChange={(e) => setValue(e.target.value)} required autoComplete="new-password" />
            </div>
          </div>
          <div className="row">
            <button type="submit">Set secret</button>
          </div>
        </form>
      )}
      {done && (
        <p role="status" className="ok" data-testid="secret-done">
          {done}
        </p>
      )}
      {error && <p role="alert" className="error">{error}</p>}
      {secrets.data && (
        <div className="table-wrap">
          <table data-testid="secrets">
            <thead>
              <tr>
                <th>Name</th>
                <th>Set</th>
                <th>Changed</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {secrets.data.map((secret) => (
                <tr key={secret.name} data-secret={secret.name}>
                  <td>
                    <code>{secret.name}</code>
                  </td>
                  <td>{when(secret.createdAt)}</td>
                  <td>{when(secret.updatedAt)}</td>
                  <td>
                    {canWrite && (
                      <span className="row">
                        <button type="button" onClick={() => {
                          setName(secret.name);
                          document.getElementById('secret-value')?.focus();
                        }}
                        aria-label={`rotate ${secret.name}`}>
                          Rotate
                        </button>
                        <button type="button" className="danger" onClick={() => remove(secret.name)} aria-label={`delete ${secret.name}`}>
                          Delete
                        </button>
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {secrets.data.length === 0 && <p className="muted">No secrets.</p>}
        </div>
      )}
    </>
  );
}
