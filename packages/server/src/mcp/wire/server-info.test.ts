import { describe, expect, it } from "vitest";
import { expectValid } from "../../../test/mcp-wire/revision-schemas.js";
import {
  richCapabilities,
  richImplementation,
  SERVER_INFO,
  whats,
} from "../../../test/mcp-wire/rich-inputs.js";
import { LATEST_MCP_REVISION, MCP_REVISIONS, type McpRevision } from "./revisions.js";
import {
  encodeDiscoverResult,
  encodeImplementation,
  encodeInitializeResult,
  encodeServerCapabilities,
} from "./server-info.js";

describe.each(MCP_REVISIONS)("the router's identity for %s", (revision) => {
  it("is valid in the revision's schema, and encodes to itself once encoded", () => {
    const once = encodeImplementation(richImplementation(), revision);
    expectValid(revision, "Implementation", once.value);
    const twice = encodeImplementation(once.value, revision);
    expect(twice.value).toBe(once.value);
    expect(twice.notes).toEqual([]);
    expectValid(revision, "ServerCapabilities", encodeServerCapabilities(richCapabilities(), revision).value);
  });
});

describe("serverInfo and capabilities", () => {
  it("serverInfo loses title before 2025-06-18 and description, websiteUrl, icons before 2025-11-25", () => {
    expect(whats(encodeImplementation(richImplementation(), "2025-06-18")).sort()).toEqual(
      ["serverInfo description", "serverInfo icons", "serverInfo websiteUrl"].sort(),
    );
    expect(encodeImplementation(richImplementation(), "2024-11-05").value).toEqual({
      name: "trestle",
      version: "0.1.0",
    });
    const newest = richImplementation();
    expect(encodeImplementation(newest, LATEST_MCP_REVISION).value).toBe(newest);
  });

  it("capabilities keep only what the revision defines, without notes", () => {
    const keys = (revision: McpRevision) =>
      Object.keys(encodeServerCapabilities(richCapabilities(), revision).value).sort();
    expect(keys("2024-11-05")).toEqual(["logging", "prompts", "resources", "tools"]);
    expect(keys("2025-06-18")).toEqual(["completions", "logging", "prompts", "resources", "tools"]);
    expect(keys("2025-11-25")).toEqual(["completions", "logging", "prompts", "resources", "tasks", "tools"]);
    expect(keys(LATEST_MCP_REVISION)).toEqual([
      "completions",
      "extensions",
      "logging",
      "prompts",
      "resources",
      "tools",
    ]);
    const plain = { tools: {} };
    expect(encodeServerCapabilities(plain, "2024-11-05")).toEqual({ value: plain, notes: [] });
  });

  it("an initialize result is in the revision it negotiated, and the same object when nothing changes", () => {
    const result = {
      protocolVersion: "2024-11-05",
      capabilities: richCapabilities(),
      serverInfo: richImplementation(),
      instructions: "Trestle",
    };
    const old = encodeInitializeResult(result, "2024-11-05");
    expect(old.value.serverInfo).toEqual(SERVER_INFO);
    expect(Object.keys(old.value.capabilities).sort()).toEqual(["logging", "prompts", "resources", "tools"]);
    expectValid("2024-11-05", "InitializeResult", old.value);
    const plain = { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: SERVER_INFO };
    expect(encodeInitializeResult(plain, "2025-11-25").value).toBe(plain);
  });

  it("a server/discover result keeps its identity and gets the caching hints it requires", () => {
    const discover = encodeDiscoverResult(
      {
        supportedVersions: ["2026-07-28"],
        capabilities: richCapabilities(),
        serverInfo: richImplementation(),
      },
      LATEST_MCP_REVISION,
    );
    expect(discover.value).toMatchObject({
      ttlMs: 0,
      cacheScope: "private",
      serverInfo: richImplementation(),
    });
    expect(discover.value.capabilities).not.toHaveProperty("tasks");
    expectValid(LATEST_MCP_REVISION, "DiscoverResult", { ...discover.value, resultType: "complete" });
  });
});
