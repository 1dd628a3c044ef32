import { describe, expect, it } from "vitest";
import { callerPrincipal } from "../src/calls/caller.js";
import {
  CODE_MODE_PATH,
  createCodeModeRuns,
  RUN_TOKEN_METADATA,
  TOOL_CHANNEL_URL_METADATA,
} from "../src/calls/code-mode-runs.js";

const caller = { principal: callerPrincipal({ id: "alice", scopes: ["mcp"] }), namespace: "team" };
const limits = { maxCallsPerRun: 3, maxConcurrentCallsPerRun: 2, maxRunMs: 60_000 };

describe("code-mode runs", () => {
  it("mints an unguessable capability per run, bound to its caller, valid until the run ends", () => {
    const runs = createCodeModeRuns({ enabled: true, limits, callbackUrl: () => "http://127.0.0.1:9/" });
    const first = runs.begin(caller);
    const second = runs.begin(caller);
    const token = first?.metadata[RUN_TOKEN_METADATA] as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second?.metadata[RUN_TOKEN_METADATA]).not.toBe(token);
    expect(first?.metadata[TOOL_CHANNEL_URL_METADATA]).toBe(`http://127.0.0.1:9${CODE_MODE_PATH}`);
    const run = runs.find(token);
    expect(run?.caller).toBe(caller);
    expect(run?.id).toBe(first?.id);
    first?.end();
    expect(runs.find(token)).toBeUndefined();
    expect(run?.signal.aborted).toBe(true);
    expect(runs.find(`${token.slice(0, -1)}A`)).toBeUndefined();
    runs.close();
  });

  it("bounds a run's calls in all and at once, with messages naming the setting", () => {
    const runs = createCodeModeRuns({ enabled: true, limits, callbackUrl: () => "http://127.0.0.1:9" });
    const begun = runs.begin(caller);
    const run = runs.find(begun?.metadata[RUN_TOKEN_METADATA] as string);
    if (!run) throw new Error("no run");
    const a = run.admit();
    const b = run.admit();
    expect(run.admit()).toEqual({ refusal: expect.stringContaining("codeMode.maxConcurrentCallsPerRun") });
    if ("release" in a) a.release();
    const c = run.admit();
    expect("release" in c).toBe(true);
    expect(run.admit()).toEqual({ refusal: expect.stringContaining("a program may make 3") });
    if ("release" in b) b.release();
    runs.close();
  });

  it("gives no capability when turned off or with no address to call back", () => {
    expect(
      createCodeModeRuns({ enabled: false, limits, callbackUrl: () => "http://127.0.0.1:9" }).begin(caller),
    ).toBeUndefined();
    expect(
      createCodeModeRuns({ enabled: true, limits, callbackUrl: () => undefined }).begin(caller),
    ).toBeUndefined();
  });

  it("ends a run whose engine never reports its end once maxRunMs passes", async () => {
    const runs = createCodeModeRuns({
      enabled: true,
      limits: { ...limits, maxRunMs: 50 },
      callbackUrl: () => "http://127.0.0.1:9",
    });
    const token = runs.begin(caller)?.metadata[RUN_TOKEN_METADATA] as string;
    expect(runs.find(token)).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(runs.find(token)).toBeUndefined();
  });
});
