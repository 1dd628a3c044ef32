import { describe, expect, it } from "vitest";
import {
  features,
  isAtLeast,
  isMcpRevision,
  LATEST_MCP_REVISION,
  MCP_REVISIONS,
  type McpRevision,
  NEWEST_SESSION_REVISION,
  revisionOf,
} from "./revisions.js";

describe("revision ordering", () => {
  it("lists the five revisions oldest first and orders them", () => {
    expect(MCP_REVISIONS).toEqual(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
    expect(LATEST_MCP_REVISION).toBe("2026-07-28");
    expect(isAtLeast("2025-06-18", "2025-03-26")).toBe(true);
    expect(isAtLeast("2025-06-18", "2025-06-18")).toBe(true);
    expect(isAtLeast("2025-03-26", "2025-06-18")).toBe(false);
    expect(isMcpRevision("2025-11-25")).toBe(true);
    expect(isMcpRevision("2025-11-26")).toBe(false);
    expect(isMcpRevision(20251125)).toBe(false);
  });

  it("refuses an unknown revision with a message naming the known ones", () => {
    expect(() => features("2099-01-01" as McpRevision)).toThrow(
      /Unknown MCP revision '2099-01-01'.*2024-11-05/,
    );
  });

  it("gives a client that named no revision the router serves the newest of the session era", () => {
    expect(revisionOf("2025-03-26")).toBe("2025-03-26");
    expect(revisionOf(undefined)).toBe(NEWEST_SESSION_REVISION);
    expect(revisionOf("1999-01-01")).toBe("2025-11-25");
  });
});

describe("what each revision can say", () => {
  it("grows with the revisions: what one revision has, every later one has", () => {
    const flags = ["audio", "resourceLink", "titles", "nestedMeta", "lastModified", "icons"] as const;
    for (const [index, revision] of MCP_REVISIONS.entries()) {
      const next = MCP_REVISIONS[index + 1];
      if (!next) continue;
      for (const flag of flags) if (features(revision)[flag]) expect(features(next)[flag]).toBe(true);
    }
    expect(features("2024-11-05")).toMatchObject({ audio: false, structuredContent: "none", icons: false });
    expect(features("2025-06-18")).toMatchObject({ resourceLink: true, structuredContent: "object" });
    expect(features("2026-07-28")).toMatchObject({ structuredContent: "any", modernEnvelope: true });
  });

  it("gives tool execution to 2025-11-25 alone (2026-07-28 moved tasks into an extension)", () => {
    expect(MCP_REVISIONS.filter((r) => features(r).toolExecution)).toEqual(["2025-11-25"]);
  });
});
