import type { HealthState, HealthStatus } from "@trestle/core";
import { RuntimeStatus } from "@trestle/proto";

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

/** The `RuntimeStatus` a service in `state` reports: the reverse of {@link healthFromRuntimeStatus}. */
export function runtimeStatusFromHealth(state: HealthState): RuntimeStatus {
  switch (state) {
    case "healthy":
      return RuntimeStatus.STARTED;
    case "pending":
      return RuntimeStatus.STARTING;
    default:
      return RuntimeStatus.STOPPED;
  }
}
