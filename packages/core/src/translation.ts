import { createContextKey } from "./context-values.js";

/** One side of a translated call: the protocol it spoke, its revision or version, and the method it saw. */
export interface TranslationLeg {
  /** `mcp`, `a2a`, `grpc`, `connect`, … */
  protocol: string;
  /** The protocol revision or version this side negotiated (`2025-06-18`, `1.0`), where it has one. */
  version?: string;
  /** The method this side saw (`tools/call`, `SendMessage`, `InvokeTool`). */
  method: string;
}

/** One thing a translation did not carry over unchanged. */
export interface TranslationNote {
  /** `dropped`: not carried at all; `rewritten`: carried in another form; `approximated`: carried in part. */
  action: "dropped" | "rewritten" | "approximated";
  /** What it was, e.g. `content[1] (audio)`, `structuredContent`, `skill input schema`. */
  what: string;
  /** Why, and what the other side got instead. */
  detail: string;
}

/**
 * What a call's translation between the client's protocol (or revision) and the backend's kept and lost: the
 * operator's record of every lossy step. Present on a terminal event when the two legs differ.
 */
export interface TranslationReport {
  client: TranslationLeg;
  backend: TranslationLeg;
  /** Empty when nothing was lost. */
  notes: TranslationNote[];
}

/**
 * Where a transport says which leg it spoke to the backend, and what its translation of the call dropped, rewrote
 * or approximated. The bridge puts one in every recorded call's context values (under
 * {@link translationRecorderKey}) and turns what it is told into the call event's translation report, so a
 * transport reports without knowing the bridge. Every transport reports its own leg on each `callTool` and
 * `executeCode`; a leg the transport shares between calls should be frozen (the report then keeps it as it is,
 * rather than a copy per call).
 *
 * @example
 * ```ts
 * const INVOKE_LEG = Object.freeze({ protocol: "nats", method: "tools.invoke" });
 * options?.contextValues?.get(translationRecorderKey)?.backend(INVOKE_LEG);
 * ```
 */
export interface TranslationRecorder {
  /** The protocol, version and method the client spoke to the front (what a codec translates into). */
  readonly client: TranslationLeg;
  /** The protocol, version and method the backend leg spoke (the last call wins). */
  backend(leg: TranslationLeg): void;
  /** One lossy step of the translation. */
  note(note: TranslationNote): void;
}

/** The {@link TranslationRecorder} of a call; absent for calls nobody records (probes, provisioning). */
export const translationRecorderKey = createContextKey<TranslationRecorder | undefined>(undefined, {
  description: "trestle.translationRecorder",
});
