import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import { createTabulaClient, type TabulaClient } from 'tabula/client';

/**
 * The signed-in account's token. Kept in sessionStorage (gone when the tab closes) unless the
 * person asks to be remembered on this device (localStorage). The console is served by the API
 * itself, so the client talks to its own origin.
 */
const STORAGE_KEY = 'tabula.token';

export interface Session {
  token: string;
  client: TabulaClient;
}

interface SessionState {
  session: Session | null;
  signIn(token: string, remember: boolean): Session;
  signOut(): void;
}

const SessionContext = createContext<SessionState | null>(null);

const storedToken = (): string | null => sessionStorage.getItem(STORAGE_KEY) ?? localStorage.getItem(STORAGE_KEY);

/** Where the API answers, as the console knows it: the origin it is served from. */
export const apiOrigin = (): string => window.location.origin;

/** Marks the console's calls in the request logs (docs/logs-and-metrics.md#request-logs). */
export const CONSOLE_HEADERS = { 'tabula-client': 'console' };

export const clientFor = (token: string): TabulaClient => createTabulaClient({ baseUrl: apiOrigin(), token, headers: CONSOLE_HEADERS });

export function SessionProvider({ children }: { children: ReactNode }) {
  const [token, setToken] = useState<string | null>(storedToken);
  const state = useMemo<SessionState>(() => {
    const session = token ? { token, client: clientFor(token) } : null;
    return {
      session,
      signIn(next, remember) {
        (remember ? localStorage : sessionStorage).setItem(STORAGE_KEY, next);
        setToken(next);
        return { token: next, client: clientFor(next) };
      },
      signOut() {
        sessionStorage.removeItem(STORAGE_KEY);
        localStorage.removeItem(STORAGE_KEY);
        setToken(null);
      },
    };
  }, [token]);
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}

export function useSessionState(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSessionState outside SessionProvider');
  return state;
}

/** The typed client of the signed-in account (pages under the signed-in shell only). */
export function useClient(): TabulaClient {
  const { session } = useSessionState();
  if (!session) throw new Error('useClient without a session');
  return session.client;
}

/** The signed-in token, for the few calls that are not tRPC procedures (file upload and content). */
export function useToken(): string {
  const { session } = useSessionState();
  if (!session) throw new Error('useToken without a session');
  return session.token;
}
