import { describe, expect, it } from "vitest";
import { createTokenStore, normalizeToken } from "./token-store";

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
    removeItem: (k: string) => void items.delete(k),
  };
}

describe("the signed-in token", () => {
  it("is kept in the storage it is given, and cleared on sign-out", () => {
    const storage = memoryStorage();
    const store = createTokenStore(storage);
    expect(store.read()).toBeUndefined();
    store.write("tok-1234567890abcdef");
    expect(createTokenStore(storage).read()).toBe("tok-1234567890abcdef");
    store.clear();
    expect(storage.items.size).toBe(0);
    expect(store.read()).toBeUndefined();
  });

  it("lasts for the page when the storage refuses it", () => {
    const refusing = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
      removeItem: () => {
        throw new Error("SecurityError");
      },
    };
    const store = createTokenStore(refusing);
    store.write("tok-1234567890abcdef");
    expect(store.read()).toBe("tok-1234567890abcdef");
    store.clear();
    expect(store.read()).toBeUndefined();
  });

  it("is taken as pasted, without a Bearer prefix or surrounding space; empty or spaced input is refused", () => {
    expect(normalizeToken("  Bearer abc123  ")).toEqual({ token: "abc123" });
    expect(normalizeToken("abc123\n")).toEqual({ token: "abc123" });
    expect(normalizeToken("   ")).toEqual({ error: "Enter an admin token." });
    expect(normalizeToken("abc 123")).toMatchObject({ error: expect.stringMatching(/no spaces/) });
  });
});
