import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, errorText } from '../api';
import { useSession } from '../session';
import type { JoinedResponse } from '../types';

/**
 * The secret of a one-time link: the URL's fragment, which the browser never
 * sends to a server. Read once when the page loads, before it is dropped from
 * the address bar.
 */
const LINK_SECRET = window.location.hash.replace(/^#/, '');

/** The one redemption of this page's sign-in link: a link works once, however often an effect runs. */
let redeeming: Promise<JoinedResponse> | undefined;

/** Forgets the link in the address bar (and history), so a copied address does not carry it. */
function dropSecretFromAddress(): void {
  window.history.replaceState(null, '', window.location.pathname);
}

/** The token the person now has, shown once, and the way on. */
function Joined({ joined, onContinue }: { joined: JoinedResponse; onContinue: () => void }) {
  return (
    <main className="sign-in">
      <h1>Welcome, {joined.member.name}</h1>
      <p data-testid="joined">
        You are a {joined.member.role} of <strong>{joined.whoami.workspace.slug}</strong>, signed in in this browser.
      </p>
      <label htmlFor="own-token">Your API token (for scripts and MCP clients; shown once)</label>
      <input id="own-token" readOnly value={joined.token} onFocus={(e) => e.target.select()} />
      <button type="button" onClick={onContinue}>
        Continue to Switchyard
      </button>
    </main>
  );
}

/** `/join#<secret>`: an invitation (decision 0042). The invitee chooses a display name and is in. */
export function JoinPage() {
  const { adopt } = useSession();
  const secret = useRef(LINK_SECRET);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [joined, setJoined] = useState<JoinedResponse | undefined>();
  useEffect(dropSecretFromAddress, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      setJoined(await api<JoinedResponse>('POST', '/v1/invitations/accept', { token: secret.current, name: name.trim() }));
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  if (joined) {
    return (
      <Joined
        joined={joined}
        onContinue={() => {
          window.history.replaceState(null, '', '/');
          adopt(joined);
        }}
      />
    );
  }
  return (
    <main className="sign-in">
      <h1>Join Switchyard</h1>
      <form onSubmit={submit}>
        <label htmlFor="display-name">Your name</label>
        <input id="display-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} autoComplete="name" required />
        <p className="hint">How your teammates will see you on every approval, task and change you make.</p>
        <button type="submit" disabled={busy || name.trim() === '' || secret.current === ''}>
          Join
        </button>
        {secret.current === '' && <p className="error">This link is incomplete: open the whole link you were sent.</p>}
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

/** `/sign-in#<secret>`: a one-time sign-in link (`npm start`'s banner, `npm run admin -- sign-in-link`). */
export function SignInLinkPage() {
  const { adopt } = useSession();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    dropSecretFromAddress();
    if (!LINK_SECRET) {
      setError('This link is incomplete: open the whole link');
      return;
    }
    redeeming ??= api<JoinedResponse>('POST', '/v1/sign-in-links/redeem', { token: LINK_SECRET });
    redeeming.then(
      (joined) => {
        window.history.replaceState(null, '', '/');
        adopt(joined);
      },
      (caught: unknown) => setError(errorText(caught)),
    );
  }, [adopt]);
  return (
    <main className="sign-in">
      <h1>Switchyard</h1>
      {error ? (
        <p role="alert" className="error">
          {error} — ask for a new link (npm run admin -- sign-in-link WORKSPACE), or <a href="/">sign in with a token</a>.
        </p>
      ) : (
        <p>Signing you in…</p>
      )}
    </main>
  );
}
