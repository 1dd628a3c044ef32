import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { profile } from "./profile.js";

const file = join(import.meta.dirname, "..", "..", "..", "test-results", "reliability-observations.jsonl");

/**
 * Records what a reliability test measured or counted (cases run, latencies, statuses seen) as one JSON line in
 * `test-results/reliability-observations.jsonl`, the source of the table in docs/reliability.md.
 */
export function observe(name: string, observed: Record<string, unknown>): void {
  mkdirSync(join(file, ".."), { recursive: true });
  appendFileSync(
    file,
    `${JSON.stringify({ name, profile: profile.name, at: new Date().toISOString(), ...observed })}\n`,
  );
}
