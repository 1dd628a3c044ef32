import { createContextKey } from "@trestle/core";

/**
 * A principal as the call service sees it: who makes a call, whatever front and credential it came through. Plain,
 * frozen data, one object per credential (the fronts reuse it for every request it makes).
 */
export interface CallerPrincipal {
  /**
   * What everything a call leaves behind is bound to (tasks, request states, held calls, sessions): a static
   * token's name, or an OAuth principal's `<issuer>#<subject>`.
   */
  readonly id: string;
  /** A name for events, logs and policies: the token's name, or the principal claim. */
  readonly name: string;
  /** The router scopes it holds (`mcp`, `admin`, `register`); `admin` implies every scope. */
  readonly scopes: readonly string[];
  /** Its groups (empty for a static token without any). */
  readonly groups: readonly string[];
  /** Its token's claims (empty for a static token). */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** Who calls, and in which namespace: what every request to the call service names. */
export interface Caller {
  /** Required: policy, limits, events and every object the call leaves behind are its. */
  readonly principal: CallerPrincipal;
  /** The namespace the call is made in ("" for the default). */
  readonly namespace: string;
}

/** Makes a frozen {@link CallerPrincipal}. */
export function callerPrincipal(init: {
  id: string;
  name?: string;
  scopes?: readonly string[];
  groups?: readonly string[];
  claims?: Readonly<Record<string, unknown>>;
}): CallerPrincipal {
  return Object.freeze({
    id: init.id,
    name: init.name ?? init.id,
    scopes: Object.freeze([...(init.scopes ?? [])]),
    groups: Object.freeze([...(init.groups ?? [])]),
    claims: Object.freeze({ ...(init.claims ?? {}) }),
  });
}

/**
 * The principal of a request on a router without tokens, where every scope is open (and the router listens on
 * loopback only, unless deliberately opened).
 */
export const ANONYMOUS_PRINCIPAL: CallerPrincipal = callerPrincipal({ id: "anonymous", scopes: ["admin"] });

/**
 * The principal of the stdio front's one client: whoever started the router with `--stdio` holds the process, so
 * it is trusted as the process is.
 */
export const STDIO_PRINCIPAL: CallerPrincipal = callerPrincipal({ id: "stdio", scopes: ["admin"] });

/**
 * The principal of a call, in the call's context values: what the interceptors below the bridge act for (the
 * upstream's credential is exchanged for it). The call service sets it on every call it makes.
 */
export const callerPrincipalKey = createContextKey<CallerPrincipal | undefined>(undefined, {
  description: "trestle.callerPrincipal",
});
