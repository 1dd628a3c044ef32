import { useState } from "preact/hooks";
import { createApiClient } from "../api/api-client";
import { messageOf } from "../components/api-context";
import { Alert } from "../components/bits";
import { normalizeToken } from "../logic/token-store";

/**
 * Sign-in with a bearer token: the token is tried on the management API (listing namespaces needs `admin`)
 * before it is kept, so a wrong one is refused here with the router's own message.
 */
export function SignIn({
  notice,
  onSignedIn,
}: {
  notice?: string | undefined;
  onSignedIn(token: string): void;
}) {
  const [input, setInput] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const normalized = normalizeToken(input);
    if ("error" in normalized) {
      setError(normalized.error);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await createApiClient({ token: normalized.token }).listNamespaces();
      setInput("");
      onSignedIn(normalized.token);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="sign-in">
      <form class="card sign-in-card" onSubmit={submit}>
        <h1>Trestle</h1>
        <p class="muted">Sign in to this router's admin console with an admin token.</p>
        {notice && <p class="notice">{notice}</p>}
        <label for="token">Admin token</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={input}
          onInput={(e) => setInput((e.target as HTMLInputElement).value)}
        />
        {error && <Alert>{error}</Alert>}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <p class="muted small">
          The token stays in this tab (session storage) and is sent only in the Authorization header.
        </p>
      </form>
    </main>
  );
}
