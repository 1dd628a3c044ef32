import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  argumentsDigest,
  createRequestStateSealer,
  MAX_STATE_LENGTH,
  type RequestStateClaims,
  type RequestStateSealer,
} from "../src/mcp/request-state.js";

const KEY = Buffer.from("0123456789abcdef0123456789abcdef");
const claims: RequestStateClaims = {
  method: "tools/call",
  name: "book_flight",
  namespace: "travel",
  principal: "alice",
  argumentsDigest: argumentsDigest({ from: "OSL", to: "BGO" }),
};

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Replaces the character at `index` with another character of the same alphabet. */
function changeAt(state: string, index: number): string {
  const current = state[index] as string;
  const replacement = current === "A" ? "B" : "A";
  return state.slice(0, index) + replacement + state.slice(index + 1);
}

function refused(sealer: RequestStateSealer, state: string): string {
  const opened = sealer.open(state);
  if (!("refused" in opened)) throw new Error(`expected a refusal, opened ${JSON.stringify(opened)}`);
  return opened.refused;
}

describe("request state sealer", () => {
  it("opens what it sealed, with exactly the claims sealed", () => {
    const sealer = createRequestStateSealer(KEY);
    const state = sealer.seal(claims);
    expect(state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(sealer.open(state)).toEqual(claims);
  });

  it("carries the backend's state and the held call", () => {
    const sealer = createRequestStateSealer(KEY);
    const backendState = JSON.stringify({ step: 2, cart: ["a", "b"], note: "ünïcode ✓" });
    const state = sealer.seal({ ...claims, backendState, parked: "3b8f7c2e-park" });
    expect(sealer.open(state)).toEqual({ ...claims, backendState, parked: "3b8f7c2e-park" });
  });

  it("carries an empty backend state as empty, not as absent", () => {
    const sealer = createRequestStateSealer(KEY);
    expect(sealer.open(sealer.seal({ ...claims, backendState: "" }))).toEqual({
      ...claims,
      backendState: "",
    });
  });

  it("opens a state sealed by another sealer with the same key (a replica)", () => {
    const state = createRequestStateSealer(Buffer.from(KEY)).seal(claims);
    expect(createRequestStateSealer(Buffer.from(KEY)).open(state)).toEqual(claims);
  });

  it("refuses a state sealed with another key", () => {
    const state = createRequestStateSealer(randomBytes(32)).seal(claims);
    expect(refused(createRequestStateSealer(KEY), state)).toBe(
      "it was altered or was not issued by this router",
    );
  });

  it("refuses every single-character change to the payload or the MAC", () => {
    const sealer = createRequestStateSealer(KEY);
    const state = sealer.seal({ ...claims, backendState: "s" });
    const dot = state.lastIndexOf(".");
    for (let i = 0; i < state.length; i++) {
      if (i === dot) continue;
      const changed = changeAt(state, i);
      expect(changed).not.toBe(state);
      expect(BASE64URL).toContain(changed[i]);
      expect(refused(sealer, changed), `change at ${i}`).toBe(
        "it was altered or was not issued by this router",
      );
    }
  });

  it("refuses a state whose separator was changed", () => {
    const sealer = createRequestStateSealer(KEY);
    const state = sealer.seal(claims);
    const dot = state.lastIndexOf(".");
    expect(refused(sealer, `${state.slice(0, dot)}A${state.slice(dot + 1)}`)).toBe(
      "it is not a state the router issued",
    );
  });

  it.each(["-TAMPERED", "A", "=", ".x"])("refuses a state with %s appended", (suffix) => {
    const sealer = createRequestStateSealer(KEY);
    const state = sealer.seal(claims);
    expect(refused(sealer, `${state}${suffix}`)).toMatch(/altered|not a state/);
  });

  it("refuses a state with a character removed from its end", () => {
    const sealer = createRequestStateSealer(KEY);
    const state = sealer.seal(claims);
    expect(refused(sealer, state.slice(0, -1))).toBe("it was altered or was not issued by this router");
  });

  it("refuses a payload re-sealed with altered claims but the old MAC", () => {
    const sealer = createRequestStateSealer(KEY);
    const state = sealer.seal(claims);
    const [payload, mac] = state.split(".") as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
    decoded.p = "mallory";
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString("base64url")}.${mac}`;
    expect(refused(sealer, forged)).toBe("it was altered or was not issued by this router");
  });

  it.each(["", ".", "abc", ".abc", "no-dot-at-all"])("refuses the malformed state %j", (state) => {
    expect(refused(createRequestStateSealer(KEY), state)).toMatch(/not a state|altered/);
  });

  it("refuses an expired state and accepts it up to its expiry (injected clock)", () => {
    let now = 1_000_000;
    const sealer = createRequestStateSealer(KEY, { lifetimeMs: 5_000, clock: () => now });
    const state = sealer.seal(claims);
    now += 4_999;
    expect(sealer.open(state)).toEqual(claims);
    now += 1;
    expect(sealer.open(state)).toEqual(claims);
    now += 1;
    expect(refused(sealer, state)).toBe("it has expired; make the request again without it");
  });

  it("expires after an hour by default", () => {
    let now = 0;
    const sealer = createRequestStateSealer(KEY, { clock: () => now });
    const state = sealer.seal(claims);
    now = 59 * 60_000;
    expect(sealer.open(state)).toEqual(claims);
    now = 60 * 60_000 + 1;
    expect(refused(sealer, state)).toContain("expired");
  });

  it("refuses a state longer than any it issues, before computing a MAC", () => {
    const sealer = createRequestStateSealer(KEY);
    const huge = `${"A".repeat(MAX_STATE_LENGTH)}.${"B".repeat(43)}`;
    expect(refused(sealer, huge)).toBe("it is longer than any state the router issues");
  });

  it("never issues a state it would refuse: a backend state too large to carry is refused at sealing", () => {
    const sealer = createRequestStateSealer(KEY);
    expect(() => sealer.seal({ ...claims, backendState: "x".repeat(MAX_STATE_LENGTH) })).toThrow(RangeError);
    const fits = sealer.seal({ ...claims, backendState: "x".repeat(MAX_STATE_LENGTH / 2) });
    expect(sealer.open(fits)).toEqual({ ...claims, backendState: "x".repeat(MAX_STATE_LENGTH / 2) });
  });

  it("opens a large backend state that fits the bound", () => {
    const sealer = createRequestStateSealer(KEY);
    const backendState = "x".repeat(40 * 1024);
    const state = sealer.seal({ ...claims, backendState });
    expect(state.length).toBeLessThanOrEqual(MAX_STATE_LENGTH);
    expect(sealer.open(state)).toEqual({ ...claims, backendState });
  });

  it("seals different requests into different states", () => {
    const sealer = createRequestStateSealer(KEY);
    const a = sealer.seal(claims);
    const b = sealer.seal({ ...claims, name: "cancel_flight" });
    expect(a).not.toBe(b);
    expect(sealer.open(b)).toEqual({ ...claims, name: "cancel_flight" });
  });
});
