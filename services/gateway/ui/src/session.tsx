import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api, ApiError, setCsrfToken, setOnUnauthenticated } from './api';
import type { UiSessionResponse } from './types';

/** The signed-in session, or null when signed out; undefined while it is being looked up. */
interface SessionState {
  session: UiSessionResponse | null | undefined;
  signIn(token: string): Promise<void>;
  signOut(): Promise<void>;
  /** Takes a session opened elsewhere (an invitation accepted, a sign-in link redeemed). */
  adopt(next: UiSessionResponse): void;
}

const SessionContext = createContext<SessionState | null>(null);

/** The session of the page: the cookie is HttpOnly, so the page asks `GET /v1/session` what it is. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<UiSessionResponse | null | undefined>(undefined);
  const adopt = useCallback((next: UiSessionResponse | null) => {
    setCsrfToken(next?.csrfToken);
    setSession(next);
  }, []);

  useEffect(() => {
    setOnUnauthenticated(() => adopt(null));
    api<UiSessionResponse>('GET', '/v1/session').then(adopt, () => adopt(null));
  }, [adopt]);

  const signIn = useCallback(async (token: string) => adopt(await api<UiSessionResponse>('POST', '/v1/session', { token })), [adopt]);
  const signOut = useCallback(async () => {
    try {
      await api('DELETE', '/v1/session');
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
    adopt(null);
  }, [adopt]);

  return <SessionContext.Provider value={{ session, signIn, signOut, adopt }}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}

/** The signed-in session's workspace slug and role (only under a signed-in page). */
export function useWorkspace(): { slug: string; role: 'viewer' | 'member' | 'admin'; userId: string; userName: string | null } {
  const { session } = useSession();
  if (!session) throw new Error('useWorkspace while signed out');
  return { slug: session.whoami.workspace.slug, role: session.whoami.role, userId: session.whoami.userId, userName: session.whoami.userName };
}
