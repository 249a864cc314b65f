import { useState, type FormEvent } from 'react';
import { ApiError } from '../api';
import { useSession } from '../session';

/** Paste an API token once; the gateway answers with a session cookie (decision 0029). */
export function SignInPage() {
  const { signIn } = useSession();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

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
