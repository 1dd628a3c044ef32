import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "../canonical-json.js";

/** What a sealed request state binds: the request it belongs to, and the backend's own state inside. */
export interface RequestStateClaims {
  /** The method (`tools/call`, `prompts/get`). */
  method: string;
  /** The tool's or prompt's name. */
  name: string;
  namespace: string;
  /** The principal that made the request (token name, or `anonymous`). */
  principal: string;
  /**
   * The request's arguments (a tool's or a prompt's), as {@link argumentsDigest} digests them: a state answers only
   * the request it was issued for, not the same tool called with other arguments.
   */
  argumentsDigest: string;
  /** The backend's own opaque state, passed back to it unchanged. */
  backendState?: string;
  /** The call this router holds open for the answers (a legacy upstream's question), when there is one. */
  parked?: string;
}

/** Seals and opens the `requestState` of `input_required` results (2026-07-28 multi round-trip requests). */
export interface RequestStateSealer {
  /**
   * Seals `claims` into an opaque, tamper-evident string that expires after the sealer's lifetime.
   *
   * @throws RangeError when the state would be longer than {@link MAX_STATE_LENGTH} (a backend's state too large
   * to carry): the router never issues a state it would refuse.
   */
  seal(claims: RequestStateClaims): string;
  /**
   * Opens a state a client sent back: its claims, or why it is refused (tampered, expired, malformed). Only a
   * state sealed with the same key opens: replicas that share the key accept each other's states.
   */
  open(state: string): RequestStateClaims | { refused: string };
}

interface Sealed {
  m: string;
  n: string;
  ns: string;
  p: string;
  /** arguments' digest */
  a: string;
  s?: string;
  /** held call */
  h?: string;
  /** expiry, epoch ms */
  e: number;
}

/**
 * The digest a request state binds a request's arguments with: SHA-256 over their canonical JSON (keys sorted),
 * so the same arguments sent with their keys in another order still match.
 */
export function argumentsDigest(args: unknown): string {
  return createHash("sha256")
    .update(canonicalJson(args ?? {}))
    .digest("base64url");
}

/** Largest request state issued and accepted back, in characters: a backend's state plus the router's envelope. */
export const MAX_STATE_LENGTH = 256 * 1024;

/**
 * Creates a sealer keyed by `key`: states are `payload.mac`, the payload the claims as base64url JSON, the MAC an
 * HMAC-SHA256 over it. The router reads the claims back but a client cannot change them unnoticed; the backend's
 * state rides inside, so no replica holds anything between the two requests.
 */
export function createRequestStateSealer(
  key: Buffer,
  options: { lifetimeMs?: number; clock?: () => number } = {},
): RequestStateSealer {
  const lifetimeMs = options.lifetimeMs ?? 60 * 60_000;
  const clock = options.clock ?? Date.now;
  const mac = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url");
  return {
    seal(claims) {
      const sealed: Sealed = {
        m: claims.method,
        n: claims.name,
        ns: claims.namespace,
        p: claims.principal,
        a: claims.argumentsDigest,
        e: clock() + lifetimeMs,
      };
      if (claims.backendState !== undefined) sealed.s = claims.backendState;
      if (claims.parked !== undefined) sealed.h = claims.parked;
      const payload = Buffer.from(JSON.stringify(sealed)).toString("base64url");
      const state = `${payload}.${mac(payload)}`;
      if (state.length > MAX_STATE_LENGTH) {
        throw new RangeError(
          `the backend's request state is too large to carry (${state.length} characters sealed; at most ${MAX_STATE_LENGTH})`,
        );
      }
      return state;
    },
    open(state) {
      if (state.length > MAX_STATE_LENGTH)
        return { refused: "it is longer than any state the router issues" };
      const dot = state.lastIndexOf(".");
      if (dot <= 0) return { refused: "it is not a state the router issued" };
      const payload = state.slice(0, dot);
      const given = Buffer.from(state.slice(dot + 1));
      const expected = Buffer.from(mac(payload));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return { refused: "it was altered or was not issued by this router" };
      }
      let sealed: Sealed;
      try {
        sealed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Sealed;
      } catch {
        return { refused: "it is not a state the router issued" };
      }
      if (sealed.e < clock()) return { refused: "it has expired; make the request again without it" };
      return {
        method: sealed.m,
        name: sealed.n,
        namespace: sealed.ns,
        principal: sealed.p,
        argumentsDigest: sealed.a,
        ...(sealed.s !== undefined ? { backendState: sealed.s } : {}),
        ...(sealed.h !== undefined ? { parked: sealed.h } : {}),
      };
    },
  };
}
