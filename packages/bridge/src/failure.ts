import { Code, type ServiceTarget, TrestleError } from "@trestle/core";
import type { SecretValues } from "./secret-values.js";

/** What a failed call was doing, for the message a user reads. */
export interface FailureSubject {
  /** The service that was called, when one was resolved. */
  target?: ServiceTarget;
  /** What was asked, e.g. `tool 'forecast'` or `resource 'file:///a.txt'`. */
  what: string;
  /** The part of the contract that was called, e.g. `tool invocation`. */
  operation: string;
}

/**
 * A message a user can act on for a failure of a routed call: it names the service when the service could not
 * serve the call, and says what to check. An error the service itself reported (`INTERNAL` and the like) is
 * shown as the service wrote it, as the contract prescribes. The text is not yet scrubbed of secrets.
 */
export function describeFailure(error: TrestleError, subject: FailureSubject): string {
  const raw = error.rawMessage;
  const target = subject.target;
  if (error.code === Code.Canceled) return `The call to ${subject.what} was cancelled`;
  if (!target) return raw;
  const service = `The capability service '${target.serviceName}' at ${target.host}:${target.port}`;
  switch (error.code) {
    case Code.Unavailable:
      return `${service} is unavailable (${raw}); check that it is running and reachable, then try again`;
    case Code.DeadlineExceeded:
      return `${service} did not answer in time (${raw}); try again, or raise the call's timeout`;
    case Code.FailedPrecondition:
      return `${service} is not ready to serve calls yet (${raw}); try again shortly`;
    case Code.ResourceExhausted:
      return `${service} is overloaded (${raw}); try again later`;
    case Code.InvalidArgument:
    case Code.OutOfRange:
      return `Invalid arguments for ${subject.what}: ${raw}`;
    case Code.NotFound:
      return `${service} does not know ${subject.what}: ${raw}`;
    case Code.Unimplemented:
      return `${service} does not implement ${subject.operation}: ${raw}`;
    case Code.Unauthenticated:
    case Code.PermissionDenied:
      return `${service} refused the call to ${subject.what}: ${raw}`;
    default:
      return raw;
  }
}

/**
 * A `TrestleError` safe to hand to a caller: its text scrubbed of the call's `secrets` (when the call had any), its
 * typed details kept (scrubbed likewise: a front answers with them, as with a backend's -32021), and no `cause` or
 * `metadata`, since either may carry what the service echoed back.
 */
export function safeError(
  error: TrestleError,
  message: string,
  secrets?: Pick<SecretValues, "scrub" | "scrubDeep">,
): TrestleError {
  return new TrestleError(secrets ? secrets.scrub(message) : message, error.code, {
    details: secrets ? secrets.scrubDeep(error.details) : error.details,
  });
}
