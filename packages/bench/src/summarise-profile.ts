#!/usr/bin/env node
/**
 * Summarises a `.cpuprofile` by self time per area, file and function, and inclusive time per function:
 * `node dist/summarise-profile.js FILE.cpuprofile [--calls N] [--from-us T] [--to-us T] [--top N] [--json]`.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type CpuProfile, cpuProfileMarkdown, summariseCpuProfile } from "./cpu-profile-summary.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    calls: { type: "string" },
    "from-us": { type: "string" },
    "to-us": { type: "string" },
    top: { type: "string" },
    json: { type: "boolean" },
  },
});
const file = positionals[0];
if (!file) {
  process.stderr.write(
    "usage: summarise-profile FILE.cpuprofile [--calls N] [--from-us T] [--to-us T] [--top N] [--json]\n",
  );
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
const summary = summariseCpuProfile(profile, {
  ...(values["from-us"] ? { fromUs: Number(values["from-us"]) } : {}),
  ...(values["to-us"] ? { toUs: Number(values["to-us"]) } : {}),
  top: values.top ? Number(values.top) : 30,
});
const calls = values.calls ? Number(values.calls) : undefined;
process.stdout.write(
  values.json
    ? `${JSON.stringify(summary, null, 2)}\n`
    : `${cpuProfileMarkdown(summary, calls, summary.byFile.length)}\n`,
);
