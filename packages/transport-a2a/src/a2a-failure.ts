/**
 * Failures of an A2A agent as one sentence and a code, and the refusal of what A2A has no counterpart of.
 */
import { Code, type ErrorDetail, TrestleError } from "@trestle/core";
import { type A2aAgent, agentOrigin, scrub } from "./agent-client.js";

/** The refusal of a method A2A has no counterpart of (an A2A agent cannot serve it). */
export function unimplemented(method: string): TrestleError {
  return new TrestleError(
    `A2A agents have no counterpart of ${method}, so an A2A agent behind the router cannot serve it`,
    Code.Unimplemented,
  );
}

/** Maps an error of the A2A client to one sentence and a code. */
export function a2aFailure(error: unknown, agent: A2aAgent, method: string): TrestleError {
  if (error instanceof TrestleError) return error;
  const origin = agentOrigin(agent.url);
  const name = (error as { name?: string })?.name ?? "";
  const raw = error instanceof Error ? error.message : String(error);
  const message = scrub(raw, agent);
  const byName: Record<string, Code> = {
    TaskNotFoundError: Code.NotFound,
    TaskNotCancelableError: Code.FailedPrecondition,
    UnsupportedOperationError: Code.Unimplemented,
    VersionNotSupportedError: Code.FailedPrecondition,
    ContentTypeNotSupportedError: Code.InvalidArgument,
    InvalidAgentResponseError: Code.Internal,
    RequestMalformedError: Code.InvalidArgument,
  };
  let code = byName[name] ?? Code.Unknown;
  if (/\b401\b|unauthori[sz]ed|unauthenticated/i.test(raw)) code = Code.Unauthenticated;
  else if (/\b403\b|forbidden/i.test(raw)) code = Code.PermissionDenied;
  else if (error instanceof TypeError || /fetch failed|ECONNREFUSED|ECONNRESET|socket/i.test(raw))
    code = Code.Unavailable;
  // An agent's JSON-RPC error keeps its code, typed: a front may answer with it (the envelope's `data` is the agent's
  // own text, not carried).
  const envelopeCode = (error as { envelopeCode?: unknown } | null)?.envelopeCode;
  const details: ErrorDetail[] =
    typeof envelopeCode === "number" && Number.isInteger(envelopeCode)
      ? [{ type: "json-rpc", protocol: "a2a", code: envelopeCode }]
      : [];
  return new TrestleError(`The A2A agent at ${origin} failed ${method}: ${message}`, code, {
    cause: error,
    details,
  });
}
