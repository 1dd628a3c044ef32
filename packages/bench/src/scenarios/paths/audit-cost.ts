import type { Headline } from "../../bench-report.js";
import type { PathComparisonOptions } from "./path-comparison.js";
import { medianCpuRatio } from "./path-rows.js";
import { PATH_SECTION_TITLES, type PathSection } from "./path-section.js";
import { compareRouterSettings } from "./router-settings-comparison.js";

/**
 * The router's CPU per call with the audit trail off and on (issue 49's trail, on by default): trestle-grpc on the
 * embedded store, where every call's record is written by the router's own process, interleaved with the same router
 * started with `TRESTLE_AUDIT=false`.
 */
export async function runAuditCost(options: PathComparisonOptions): Promise<PathSection> {
  const rows = await compareRouterSettings(
    [
      { label: "trestle-grpc, audit off", env: { TRESTLE_AUDIT: "false" } },
      { label: "trestle-grpc, audit on (the default)" },
    ],
    options,
  );
  const [offRow, onRow] = rows;
  const headline: Headline = {
    name: "router CPU per call, audit trail on / off (trestle-grpc, embedded store)",
    value: medianCpuRatio(rows),
    unit: "×",
    target: "",
    detail:
      `c${options.concurrency}, median over rounds of the ratio measured in the same round; ` +
      `${offRow ? offRow.serverCpuUsPerCall.toFixed(0) : "n/a"} µs off, ` +
      `${onRow ? onRow.serverCpuUsPerCall.toFixed(0) : "n/a"} µs on`,
  };
  return {
    name: "audit",
    title: PATH_SECTION_TITLES.audit,
    method:
      "Two trestle-grpc routers (`trestle serve --memory-store`, each with its echo capability over gRPC), " +
      "interleaved: one with `TRESTLE_AUDIT=false`, one as it starts by default, writing a record of every call to " +
      "the embedded store (PGlite, in the router's process) in batches of up to 1,000 records, written at the latest a second after the first.",
    rows,
    concurrency: options.concurrency,
    rounds: options.rounds,
    latencyRows: [],
    headlines: [headline],
  };
}
