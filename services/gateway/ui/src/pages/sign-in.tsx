import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api';
import type { SignInMethodsResponse } from '../types';
import { useSession } from '../session';

/** Paste an API token once; the gateway answers with a session cookie (decision 0029). */
export function SignInPage() {
  const { signIn } = useSession();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [sso, setSso] = useState<SignInMethodsResponse['sso']>(null);
  useEffect(() => {
    // Offered only where the operator configured it (decision 0042); the token form works everywhere.
    api<SignInMethodsResponse>('GET', '/v1/sign-in-methods').then((methods) => setSso(methods.sso), () => setSso(null));
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(token.trim());
    } catch (caught) {
      setError(caught instanceof ApiError ? `${caught.code}: ${caught.message}` : String(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <h1>Switchyard</h1>
      {sso && (
        <p>
          <a className="button" href={sso.loginUrl}>
            Sign in with single sign-on
          </a>{' '}
          <span className="hint">to workspace {sso.workspace}</span>
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="token">API token</label>
        <input id="token" name="token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} placeholder="sy_…" required />
        <p className="hint">Paste a token of your workspace once; it is exchanged for a session cookie and not kept by the page.</p>
        <button type="submit" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
