import { Task } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { STORED_PART_MAX_BYTES, storedTaskDocument } from "../src/a2a/stored-task-document.js";

function taskWith(state: string, parts: unknown[]): Task {
  return Task.fromJSON({
    id: "t",
    contextId: "c",
    status: { state },
    history: [{ messageId: "m", role: "ROLE_USER", parts }],
  });
}

describe("a task as the store keeps it", () => {
  it("redacts secret-named fields of a message's data part, at any depth, and keeps the rest", () => {
    const document = storedTaskDocument(
      taskWith("TASK_STATE_COMPLETED", [
        {
          data: {
            tool: "deploy",
            arguments: { environment: { DATABASE_URL: "postgres://x", db_password: "hunter22" } },
          },
        },
      ]),
    );
    const text = JSON.stringify(document);
    expect(text).not.toContain("hunter22");
    expect(text).toContain("[REDACTED]");
    expect(text).toContain("postgres://x");
  });

  it("cuts a long text part to the bound, marking what it left out", () => {
    const document = storedTaskDocument(
      taskWith("TASK_STATE_COMPLETED", [{ text: "é".repeat(STORED_PART_MAX_BYTES) }]),
    );
    const kept = (document.history as { parts: { text: string }[] }[])[0]?.parts[0]?.text ?? "";
    expect(Buffer.byteLength(kept)).toBeLessThan(STORED_PART_MAX_BYTES + 64);
    expect(kept).toMatch(/…\[truncated \d+ bytes\]$/);
    expect(kept).not.toContain("\uFFFD");
  });

  it("keeps only a note of a refused task's messages", () => {
    const big = "x".repeat(3 * 1024 * 1024);
    const document = storedTaskDocument(taskWith("TASK_STATE_REJECTED", [{ text: big }, { data: { a: 1 } }]));
    const text = JSON.stringify(document);
    expect(text.length).toBeLessThan(4_096);
    expect(text).toContain("is not kept");
  });

  it("replaces a data part too large to keep with a note of its size", () => {
    const document = storedTaskDocument(
      taskWith("TASK_STATE_COMPLETED", [{ data: { blob: "y".repeat(2 * STORED_PART_MAX_BYTES) } }]),
    );
    expect(JSON.stringify(document)).toMatch(/a data part of \d+ bytes, not kept/);
  });
});
