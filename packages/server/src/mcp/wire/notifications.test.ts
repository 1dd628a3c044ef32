import { describe, expect, it } from "vitest";
import { expectValid, NOTIFICATION_DEFINITIONS } from "../../../test/mcp-wire/revision-schemas.js";
import { richNotifications, whats } from "../../../test/mcp-wire/rich-inputs.js";
import { encodeNotification } from "./notifications.js";
import { LATEST_MCP_REVISION, MCP_REVISIONS } from "./revisions.js";
import type { McpNotification } from "./types.js";

describe.each(MCP_REVISIONS)("notifications for %s", (revision) => {
  it("are valid in the revision's schema", () => {
    for (const notification of richNotifications()) {
      const { value } = encodeNotification(notification, revision);
      if (!value) continue;
      const definition = NOTIFICATION_DEFINITIONS[value.method] as string;
      expectValid(revision, definition, { jsonrpc: "2.0", ...value });
    }
  });

  it("encode what they already encoded to the same object with no notes", () => {
    for (const notification of richNotifications()) {
      const once = encodeNotification(notification, revision);
      if (!once.value) continue;
      const twice = encodeNotification(once.value, revision);
      expect(twice.value).toBe(once.value);
      expect(twice.notes).toEqual([]);
    }
  });
});

describe("downgrades of notifications", () => {
  it("passes every notification the newest revision has as the same object", () => {
    for (const notification of richNotifications().filter(
      (n) => n.method !== "notifications/elicitation/complete",
    )) {
      const encoded = encodeNotification(notification, LATEST_MCP_REVISION);
      expect(encoded.value).toBe(notification);
      expect(encoded.notes).toEqual([]);
    }
  });

  it("drops the progress message before 2025-03-26, noted", () => {
    const input = richNotifications()[0] as McpNotification;
    const encoded = encodeNotification(input, "2024-11-05");
    expect(encoded.value).toEqual({
      method: "notifications/progress",
      params: { progressToken: "p1", progress: 2, total: 4 },
    });
    expect(whats(encoded)).toEqual(["notifications/progress message"]);
    expect(encodeNotification(input, "2025-03-26").value).toBe(input);
  });

  it("withholds notifications a revision lacks, noted", () => {
    const complete = { method: "notifications/elicitation/complete", params: { elicitationId: "e1" } };
    expect(encodeNotification(complete, "2025-11-25").value).toBe(complete);
    for (const revision of ["2025-06-18", LATEST_MCP_REVISION] as const) {
      const encoded = encodeNotification(complete, revision);
      expect(encoded.value).toBeUndefined();
      expect(whats(encoded)).toEqual(["notifications/elicitation/complete"]);
    }
    const ack = { method: "notifications/subscriptions/acknowledged", params: { notifications: {} } };
    expect(encodeNotification(ack, "2025-11-25").value).toBeUndefined();
    const cancelled = { method: "notifications/cancelled", params: { reason: "task gone" } };
    expect(encodeNotification(cancelled, "2025-11-25").value).toBe(cancelled);
    expect(encodeNotification(cancelled, "2025-06-18").value).toBeUndefined();
  });

  it("removes the 2026-07-28 subscription id from older clients' notifications without a note", () => {
    const encoded = encodeNotification(
      {
        method: "notifications/tools/list_changed",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": 1 } },
      },
      "2025-11-25",
    );
    expect(encoded.value).toEqual({ method: "notifications/tools/list_changed", params: {} });
    expect(encoded.notes).toEqual([]);
  });

  it("passes an extension's notification unchanged", () => {
    const tasks = { method: "notifications/tasks", params: { taskId: "t1", status: "working" } };
    expect(encodeNotification(tasks, LATEST_MCP_REVISION).value).toBe(tasks);
  });
});
