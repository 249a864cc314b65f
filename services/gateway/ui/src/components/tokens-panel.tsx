import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorText, wsPath } from '../api';
import { when } from '../format';
import type { TokenInfo } from '../types';

const ROLES = ['viewer', 'member', 'admin'] as const;
/** The expiries offered, in seconds (0: never). */
const EXPIRIES: ReadonlyArray<[string, number]> = [
  ['never', 0],
  ['1 day', 86_400],
  ['30 days', 30 * 86_400],
  ['90 days', 90 * 86_400],
  ['1 year', 365 * 86_400],
];

/**
 * API tokens (`/tokens`, admins only): create with a role and an expiry — the
 * secret is shown once, here, and never again — and revoke. A non-admin sees
 * the API's refusal.
 */
export function TokensPanel({ ws, canWrite }: { ws: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const tokens = useQuery({ queryKey: ['tokens', ws], queryFn: () => api<{ tokens: TokenInfo[] }>('GET', wsPath(ws, '/tokens')).then((r) => r.tokens) });
  const [name, setName] = useState('');
  const [role, setRole] = useState<(typeof ROLES)[number]>('member');
  const [ttl, setTtl] = useState(0);
  const [created, setCreated] = useState<{ name: string; token: string } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['tokens', ws] });

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setCreated(undefined);
    try {
      const answer = await api<TokenInfo & { token: string }>('POST', wsPath(ws, '/tokens'), { name, role, ...(ttl ? { ttlSeconds: ttl } : {}) });
      setCreated({ name: answer.name, token: answer.token });
      setName('');
      await refresh();
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  const revoke = async (token: TokenInfo) => {
    setError(undefined);
    try {
      await api('DELETE', wsPath(ws, `/tokens/${token.id}`));
      await refresh();
    } catch (caught) {
      setError(errorText(caught));
    }
  };

  return (
    <>
      {tokens.error && <p role="alert" className="error">{errorText(tokens.error)}</p>}
      {canWrite && (
        <form className="stack-form" aria-label="new token" onSubmit={create}>
          <div className="form-row">
            <div className="field">
              <label htmlFor="token-name">Token name</label>
              <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} required autoComplete="off" />
            </div>
            <div className="field">
              <label htmlFor="token-role">Role</label>
              <select id="token-role" value={role} onChange={(e) => setRole(e.target.value as (typeof ROLES)[number])}>
                {ROLES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="token-expiry">Expires after</label>
              <select id="token-expiry" value={ttl} onChange={(e) => setTtl(Number(e.target.value))}>
                {EXPIRIES.map(([label, seconds]) => (
                  <option key={seconds} value={seconds}>
                    {label}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <div className="row">
            <button type="submit">Create token</button>
          </div>
        </form>
      )}
      {created && (
        <p className="secret-once" role="status" data-testid="token-secret">
          The secret of {created.name}, shown this once: <code>{created.token}</code>
        </p>
      )}
      {error && <p role="alert" className="error">{error}</p>}
      {tokens.data && (
        <div className="table-wrap">
          <table data-testid="tokens">
            <thead>
              <tr>
                <th>Name</th>
                <th>Role</th>
                <th className="hide-narrow">Prefix</th>
                <th>Expires</th>
                <th>State</th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((token) => (
                <tr key={token.id} data-token={token.name}>
                  <td>{token.name}</td>
                  <td>{token.role}</td>
                  <td className="hide-narrow">
                    <code>{token.prefix}</code>
                  </td>
                  <td>{token.expiresAt ? when(token.expiresAt) : 'never'}</td>
                  <td>
                    {token.revokedAt ? (
                      <span className="muted">revoked</span>
                    ) : canWrite ? (
                      <button type="button" className="danger" onClick={() => revoke(token)} aria-label={`revoke ${token.name}`}>
                        Revoke
                      </button>
                    ) : (
                      'active'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
