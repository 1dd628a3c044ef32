import type { HealthStatus } from "./call.js";
import { Code, TrestleError } from "./error.js";

/**
 * The health a failed probe means, per the contract: `UNIMPLEMENTED` → healthy (it answered; it has no probe),
 * `FAILED_PRECONDITION` → pending (starting), unreachable or deadline → down, anything else → unhealthy.
 */
export function healthFromProbeError(error: unknown): HealthStatus {
  const e = TrestleError.from(error);
  switch (e.code) {
    case Code.Unimplemented:
      return { state: "healthy", message: "The service has no health probe; it answered" };
    case Code.FailedPrecondition:
      return { state: "pending", message: e.rawMessage };
    case Code.Unavailable:
    case Code.DeadlineExceeded:
    case Code.Canceled:
      return { state: "down", message: e.rawMessage };
    default:
      return { state: "unhealthy", message: e.rawMessage };
  }
}
