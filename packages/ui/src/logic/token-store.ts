/** Where the signed-in operator's token is kept: the tab's `sessionStorage`, never a URL, a cookie or a log. */
export interface TokenStore {
  read(): string | undefined;
  write(token: string): void;
  clear(): void;
}

const KEY = "trestle.admin.token";

/**
 * The token of this browser tab, kept in `storage` (the tab's `sessionStorage`): it goes when the tab closes, is
 * not shared with other tabs, and is never sent anywhere but in an `Authorization` header. Storage that refuses
 * (a browser's private mode, a full quota) keeps the token for this page only.
 */
export function createTokenStore(storage: Pick<Storage, "getItem" | "setItem" | "removeItem">): TokenStore {
  let fallback: string | undefined;
  return {
    read() {
      try {
        return storage.getItem(KEY) ?? fallback;
      } catch {
        return fallback;
      }
    },
    write(token) {
      fallback = token;
      try {
        storage.setItem(KEY, token);
      } catch {
        // The page keeps it in memory: sign-in lasts until a reload.
      }
    },
    clear() {
      fallback = undefined;
      try {
        storage.removeItem(KEY);
      } catch {
        // Nothing was stored.
      }
    },
  };
}

/** A token as pasted: trimmed, with a leading `Bearer ` dropped; an error message when it cannot be one. */
export function normalizeToken(input: string): { token: string } | { error: string } {
  const token = input.trim().replace(/^bearer\s+/i, "");
  if (!token) return { error: "Enter an admin token." };
  if (/\s/.test(token)) return { error: "A token has no spaces or line breaks." };
  return { token };
}
