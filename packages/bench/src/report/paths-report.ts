import type { PathSection } from "../scenarios/paths/path-section.js";

const ms = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
const int = (value: number | undefined) =>
  value !== undefined && Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "–";

/** One section of the paths benchmark as markdown: its method, its load table, its latency table. */
export function pathSectionMarkdown(section: PathSection): string[] {
  const lines = [section.method, ""];
  const first = section.rows[0];
  if (section.rows.length > 0 && first) {
    lines.push(
      `Concurrency ${section.concurrency ?? "n/a"}, ${section.rounds ?? "n/a"} interleaved round(s). *Server*: CPU of the process that answers the client (the router, the bare server, the proxy) from /proc; *with children*: adding its descendants (a stdio server, its sandbox).`,
      "",
      `| path | calls/s (min–max) | p50 ms | p99 ms | server µs/call | with children µs/call | errors | calls/s ÷ ${first.label}'s |`,
      "|---|---:|---:|---:|---:|---:|---:|---:|",
      ...section.rows.map((row) => {
        const calls = row.rounds.map((r) => r.callsPerSecond);
        return (
          `| ${row.label} | ${int(row.callsPerSecond)} (${int(Math.min(...calls))}–${int(Math.max(...calls))}) | ` +
          `${ms(row.p50Ms)} | ${ms(row.p99Ms)} | ${int(row.serverCpuUsPerCall)} | ${int(row.treeCpuUsPerCall)} | ` +
          `${row.errors} | ${row === first ? "–" : `${ms(row.ratioToFirst)} ×`} |`
        );
      }),
    );
    const samples = section.rows.flatMap((r) => r.errorSamples.map((e) => `${r.label}: ${e}`));
    if (samples.length > 0)
      lines.push(
        "",
        `Errors seen (first samples): ${samples.map((e) => `\`${e.replace(/`/g, "'")}\``).join("; ")}`,
      );
    lines.push("");
  }
  if (section.latencyRows.length > 0) {
    lines.push(
      "| measured | count | p50 ms | p99 ms | max ms | errors | router µs/call | with children µs/call |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
      ...section.latencyRows.map(
        (row) =>
          `| ${row.label} | ${row.count} | ${ms(row.p50Ms, 1)} | ${ms(row.p99Ms, 1)} | ${ms(row.maxMs, 1)} | ${row.errors} | ` +
          `${int(row.serverCpuUsPerCall)} | ${int(row.treeCpuUsPerCall)} |`,
      ),
      "",
    );
  }
  return lines;
}
