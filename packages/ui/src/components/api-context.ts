import { createContext } from "preact";
import { useCallback, useContext, useEffect, useRef, useState } from "preact/hooks";
import { type ApiClient, ApiError } from "../api/api-client";

/** What every page gets: the signed-in client, and where to report an error that ends the sign-in. */
export interface ApiSession {
  client: ApiClient;
  /** Signs the operator out when `error` says the token was refused; answers the message to show otherwise. */
  report(error: unknown): string;
}

/** The signed-in session; pages are only rendered inside one. */
export const ApiSessionContext = createContext<ApiSession | undefined>(undefined);

/** The signed-in session. */
export function useApi(): ApiSession {
  const session = useContext(ApiSessionContext);
  if (!session) throw new Error("useApi() outside a signed-in session");
  return session;
}

/** The message of anything thrown, for an alert. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** What {@link useLoad} answers. */
export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload(): void;
}

/**
 * Loads `load()` when the component mounts and whenever `deps` change (and on `reload()`); a refusal of the token
 * signs the operator out. An answer that arrives after a newer load started is dropped.
 */
export function useLoad<T>(load: (client: ApiClient) => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const { client, report } = useApi();
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const mine = ++latest.current;
    setLoading(true);
    load(client).then(
      (value) => {
        if (mine !== latest.current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (mine !== latest.current) return;
        setError(report(failure));
        setLoading(false);
      },
    );
  }, [client, round, ...deps]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, loading, reload };
}

/** Calls `tick` every `ms` while the page is visible. */
export function useInterval(tick: () => void, ms: number): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") saved.current();
    }, ms);
    return () => clearInterval(timer);
  }, [ms]);
}
