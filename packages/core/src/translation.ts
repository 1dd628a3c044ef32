import { type ContextValues, createContextKey } from "./context-values.js";
import type { TranslationLeg, TranslationNote, TranslationReport } from "./events.js";

/**
 * The translation report of a call being translated between protocols or revisions: the front that received
 * the call creates it with its own leg; a transport that translates sets the backend's leg and adds notes while
 * the call runs; the call's terminal event carries it. Absent when nobody asked for one.
 */
export const translationKey = createContextKey<TranslationReport | undefined>(undefined, {
  description: "trestle.translation",
});

/** Adds notes to the call's translation report, if the call has one. */
export function noteTranslation(values: ContextValues | undefined, ...notes: TranslationNote[]): void {
  const report = values?.get(translationKey);
  if (report) report.notes.push(...notes);
}

/** Sets the backend's leg of the call's translation report (the protocol and method the backend saw). */
export function setBackendLeg(values: ContextValues | undefined, leg: TranslationLeg): void {
  const report = values?.get(translationKey);
  if (report) report.backend = leg;
}
