import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually, repoRoot, startRouter, stopAll } from "./support/processes.js";

const FIXTURE_SERVER = join(repoRoot, "packages", "transport-mcp", "test", "fixtures", "fixture-server.mjs");

describe("the first hour: a forward that takes seconds to start", () => {
  afterAll(stopAll);

  it("the router's terminal says which forward it waits on and for how long, then that it was imported", async () => {
    const router = await startRouter();
    const started = Date.now();
    const response = await fetch(`${router.url}/api/v1/forwards`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "slow-starter",
        upstream: {
          kind: "stdio",
          command: process.execPath,
          // As a first `npx -y` download would: nothing answered for seconds.
          args: [FIXTURE_SERVER, "--start-delay=7000"],
          // The fixture imports the MCP SDK from the workspace: its sandbox shows it the cwd.
          cwd: repoRoot,
        },
      }),
    });
    expect(response.status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(7_000);

    const waiting = router.lines.filter((l) => l.includes("waiting for forward 'slow-starter'"));
    expect(waiting.length).toBeGreaterThanOrEqual(2);
    const first = JSON.parse(waiting[0] as string) as { msg: string; elapsedMs: number; timeoutMs: number };
    expect(first.msg).toMatch(
      /\(3 s so far, up to 120 s: the forward's startTimeoutMs, else forwardStartTimeoutMs\)/,
    );
    // Its 3 s timer may fire a millisecond before Date.now() has moved 3 s on (CI saw 2,999).
    expect(first.elapsedMs).toBeGreaterThanOrEqual(2_900);
    expect(first.timeoutMs).toBe(120_000);
    // The log line may reach the pipe a moment after the 201.
    const imported = await eventually(
      () => {
        const at = router.lines.findIndex(
          (l) => l.includes('"forward imported"') && l.includes("slow-starter"),
        );
        return at >= 0 ? at : undefined;
      },
      10_000,
      "the forward imported line",
    );
    expect(imported).toBeGreaterThan(router.lines.indexOf(waiting[waiting.length - 1] as string));
    // Once it answered, the reports stop.
    const count = waiting.length;
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(router.lines.filter((l) => l.includes("waiting for forward 'slow-starter'"))).toHaveLength(count);
  }, 90_000);
});
