import { RuntimeStatus } from "@trestle/proto";
import { Code, TrestleError } from "./error.js";
import type { HealthStatus } from "./transport.js";

/** The health a `HealthProbe` reply means: STARTED is healthy, STARTING pending, anything else unhealthy. */
export function healthFromRuntimeStatus(status: RuntimeStatus): HealthStatus {
  switch (status) {
    case RuntimeStatus.STARTED:
      return { state: "healthy" };
    case RuntimeStatus.STARTING:
      return { state: "pending", message: "The service is starting" };
    default:
      return { state: "unhealthy", message: `The service reports ${RuntimeStatus[status] ?? status}` };
  }
}

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
