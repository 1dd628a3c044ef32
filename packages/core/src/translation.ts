import { createContextKey } from "./context-values.js";
import type { TranslationLeg, TranslationNote } from "./events.js";

/**
 * Where a transport that translates a call into another protocol says so: which leg it spoke to the backend, and
 * what the translation dropped, rewrote or approximated. The bridge puts one in every recorded call's context
 * values (under {@link translationRecorderKey}) and turns what it is told into the call event's translation
 * report, so a transport reports without knowing the bridge.
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
