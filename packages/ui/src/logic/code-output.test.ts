import { describe, expect, it } from "vitest";
import type { CodeExecutionEvent } from "../api/types";
import { applyCodeEvent, enginesOf, IDLE_RUN, MAX_OUTPUT_CHARS, type RunState } from "./code-output";

const reply = (
  outputType: "stdout" | "stderr" | "status" | "completion",
  content: string | string[],
  extra = {},
) => ({ event: "reply", data: { outputType, status: "running", content, ...extra } }) as CodeExecutionEvent;

function run(events: CodeExecutionEvent[]): RunState {
  return events.reduce(applyCodeEvent, { ...IDLE_RUN, phase: "starting" } as RunState);
}

describe("the console's view of a run", () => {
  it("keeps stdout and stderr apart, joining what follows on the same stream, then the exit code", () => {
    const state = run([
      reply("status", []),
      reply("stdout", ["tick 1\n"]),
      reply("stdout", "tick 2\n"),
      reply("stderr", ["oops\n"]),
      reply("stdout", ["tick 3\n"]),
      { event: "reply", data: { outputType: "completion", status: "completed", content: [], exitCode: 0 } },
      { event: "end", data: { taskId: "t" } },
    ]);
    expect(state.chunks).toEqual([
      { stream: "stdout", text: "tick 1\ntick 2\n" },
      { stream: "stderr", text: "oops\n" },
      { stream: "stdout", text: "tick 3\n" },
    ]);
    expect(state).toMatchObject({ phase: "finished", exitCode: 0, status: "completed" });
  });

  it("is running once output arrives, and failed with the router's message on an error event", () => {
    expect(run([reply("stdout", "x")]).phase).toBe("running");
    const failed = run([
      reply("stdout", "x"),
      { event: "error", data: { code: 14, message: "engine is down" } },
    ]);
    expect(failed).toMatchObject({ phase: "failed", error: "engine is down" });
    expect(applyCodeEvent(failed, { event: "end", data: { taskId: "t" } }).phase).toBe("failed");
  });

  it("notes replies lost before the stream was read", () => {
    const state = run([{ event: "dropped", data: { dropped: 7 } }]);
    expect(state.chunks[0]?.text).toContain("7 replies were lost");
  });

  it("keeps at most MAX_OUTPUT_CHARS of output, dropping the oldest", () => {
    const big = "x".repeat(MAX_OUTPUT_CHARS / 2);
    const state = run([reply("stdout", big), reply("stderr", big), reply("stdout", big)]);
    const total = state.chunks.reduce((n, c) => n + c.text.length, 0);
    expect(total).toBeLessThanOrEqual(MAX_OUTPUT_CHARS);
    expect(state.chunks[0]?.stream).toBe("stderr");
  });
});

describe("the engines a console offers", () => {
  it("lists each engine and language once, from code execution engines only", () => {
    const engines = enginesOf([
      {
        target: {
          serviceType: "code-execution-engine",
          serviceName: "trestle",
          serviceSubType: "trestle",
          languageName: "python",
        },
      },
      {
        target: {
          serviceType: "code-execution-engine",
          serviceName: "trestle",
          serviceSubType: "trestle",
          languageName: "javascript",
        },
      },
      {
        target: {
          serviceType: "code-execution-engine",
          serviceName: "trestle",
          serviceSubType: "trestle",
          languageName: "javascript",
        },
      },
      { target: { serviceType: "tool-invoker", serviceName: "http" } },
      { target: { serviceType: "code-execution-engine", serviceName: "no-language" } },
    ]);
    expect(engines).toEqual([
      { engine: "trestle", language: "javascript" },
      { engine: "trestle", language: "python" },
    ]);
  });
});
