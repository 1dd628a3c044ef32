import { describe, expect, it } from "vitest";
import { a2aAnswerText } from "./a2a-answer.js";

describe("reading the echo from an A2A answer", () => {
  it("reads the first text part of a completed task's artifacts, or of a direct message", () => {
    const task = {
      result: {
        task: {
          status: { state: "TASK_STATE_COMPLETED" },
          artifacts: [{ parts: [{ data: {} }, { text: "hi", mediaType: "text/plain" }] }],
        },
      },
    };
    expect(a2aAnswerText(task)).toBe("hi");
    expect(a2aAnswerText({ result: { message: { parts: [{ text: "direct" }] } } })).toBe("direct");
  });

  it("refuses an error, a task that did not complete and an answer without text", () => {
    expect(() => a2aAnswerText({ error: { code: -32001, message: "Task not found" } })).toThrow(
      /JSON-RPC error -32001: Task not found/,
    );
    expect(() =>
      a2aAnswerText({ result: { task: { status: { state: "TASK_STATE_FAILED" }, artifacts: [] } } }),
    ).toThrow(/TASK_STATE_FAILED/);
    expect(() => a2aAnswerText({ result: { message: { parts: [{ data: {} }] } } })).toThrow(/no text part/);
  });
});
