import { startTrestle } from "../../configurations.js";
import { type PathComparisonOptions, runPathComparison } from "./path-comparison.js";
import type { PathRow } from "./path-rows.js";

/** One trestle-grpc router of a settings comparison: its row's label and the environment it starts with. */
export interface RouterSettings {
  label: string;
  env?: Record<string, string>;
}

/**
 * What settings cost the router: trestle-grpc routers (each `trestle serve --memory-store` with its echo capability
 * over gRPC) started with each of `settings`, loaded interleaved, one row each. `beforeStop` runs after the last run,
 * while they still run (an exporter's last batch). Every router is stopped, whatever fails.
 */
export async function compareRouterSettings(
  settings: readonly RouterSettings[],
  options: PathComparisonOptions,
  beforeStop?: () => Promise<void>,
): Promise<PathRow[]> {
  const started = await Promise.allSettled(
    settings.map((s) => startTrestle("grpc", s.env ? { env: s.env } : {})),
  );
  try {
    const routers = started.map((s) => {
      if (s.status === "rejected") throw s.reason;
      return s.value;
    });
    const rows = await runPathComparison(
      routers.map((router, i) => ({
        label: settings[i]?.label ?? `router ${i + 1}`,
        target: router.target,
        serverPid: router.router.pid,
      })),
      options,
    );
    await beforeStop?.();
    return rows;
  } finally {
    await Promise.allSettled(started.map((s) => (s.status === "fulfilled" ? s.value.stop() : undefined)));
  }
}
