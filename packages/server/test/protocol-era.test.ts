import { describe, expect, it } from "vitest";
import { JsonRpcErrorCode } from "../src/mcp/json-rpc.js";
import {
  checkMirroredHeaders,
  decodeHeaderValue,
  type EraRefusal,
  isModernRevision,
  MCP_REVISIONS,
  META,
  type ModernClient,
  ModernErrorCode,
  mcpNameSource,
  metaProtocolVersion,
  negotiateLegacyRevision,
  parseAcceptedRevisions,
  readModernClient,
} from "../src/mcp/protocol-era.js";

const MODERN = "2026-07-28";
const ALL: readonly string[] = MCP_REVISIONS;

/** `_meta` of a well-formed stateless request, with `extra` merged over it. */
function meta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [META.protocolVersion]: MODERN,
    [META.clientCapabilities]: {},
    ...extra,
  };
}

function refusal(result: ModernClient | EraRefusal): EraRefusal {
  if (!("status" in result)) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return result;
}

function b64(text: string): string {
  return `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;
}

describe("readModernClient", () => {
  it("reads a well-formed _meta: revision, capabilities, client info and log level", () => {
    const client = readModernClient(
      {
        name: "echo",
        _meta: meta({
          [META.clientCapabilities]: { sampling: {}, elicitation: { form: {} } },
          [META.clientInfo]: { name: "probe", version: "1.2.3" },
          [META.logLevel]: "warning",
        }),
      },
      ALL,
    );
    expect(client).toEqual({
      revision: MODERN,
      capabilities: { sampling: {}, elicitation: { form: {} } },
      info: { name: "probe", version: "1.2.3" },
      logLevel: "warning",
    });
  });

  it("leaves out client info and log level when the client names none", () => {
    const client = readModernClient({ _meta: meta() }, ALL);
    expect(client).toEqual({ revision: MODERN, capabilities: {} });
    expect("logLevel" in client).toBe(false);
    expect("info" in client).toBe(false);
  });

  it.each([
    ["no params at all", undefined],
    ["params without _meta", { name: "echo" }],
    ["_meta that is null", { _meta: null }],
    ["_meta that is an array", { _meta: [MODERN] }],
    ["_meta that is a string", { _meta: MODERN }],
  ])("refuses %s with 400 / -32602", (_what, params) => {
    const r = refusal(readModernClient(params, ALL));
    expect(r.status).toBe(400);
    expect(r.code).toBe(JsonRpcErrorCode.InvalidParams);
    expect(r.message).toContain("_meta is required");
    expect(r.data).toBeUndefined();
  });

  it.each([
    ["missing", undefined],
    ["a number", 20260728],
    ["empty", ""],
    ["an object", { version: MODERN }],
  ])("refuses a protocol version that is %s with 400 / -32602", (_what, version) => {
    const m = meta();
    if (version === undefined) delete m[META.protocolVersion];
    else m[META.protocolVersion] = version;
    const r = refusal(readModernClient({ _meta: m }, ALL));
    expect(r.status).toBe(400);
    expect(r.code).toBe(JsonRpcErrorCode.InvalidParams);
    expect(r.message).toContain(META.protocolVersion);
  });

  it("refuses an unknown revision with 400 / -32022, listing the supported ones newest first", () => {
    const r = refusal(readModernClient({ _meta: meta({ [META.protocolVersion]: "2099-01-01" }) }, ALL));
    expect(r.status).toBe(400);
    expect(r.code).toBe(ModernErrorCode.UnsupportedProtocolVersion);
    expect(r.code).toBe(-32022);
    expect(r.data).toEqual({
      supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
      requested: "2099-01-01",
    });
    expect(r.message).toContain("2099-01-01");
  });

  it("refuses the modern revision when the operator does not accept it (-32022 with the accepted list)", () => {
    const accepted = ["2025-06-18", "2025-11-25"];
    const r = refusal(readModernClient({ _meta: meta() }, accepted));
    expect(r.code).toBe(-32022);
    expect(r.status).toBe(400);
    expect(r.data).toEqual({ supported: ["2025-11-25", "2025-06-18"], requested: MODERN });
  });

  it("refuses a legacy revision named in _meta (-32022): legacy revisions have no stateless requests", () => {
    const r = refusal(readModernClient({ _meta: meta({ [META.protocolVersion]: "2025-11-25" }) }, ALL));
    expect(r.code).toBe(-32022);
    expect(r.data).toEqual({ supported: [...ALL].reverse(), requested: "2025-11-25" });
  });

  it("does not reverse the caller's accepted list in place", () => {
    const accepted = ["2025-11-25", MODERN];
    refusal(readModernClient({ _meta: meta({ [META.protocolVersion]: "2030-01-01" }) }, accepted));
    expect(accepted).toEqual(["2025-11-25", MODERN]);
  });

  it.each([
    ["missing", undefined],
    ["null", null],
    ["an array", []],
    ["a string", "sampling"],
  ])("refuses client capabilities that are %s with 400 / -32602", (_what, capabilities) => {
    const m = meta();
    if (capabilities === undefined) delete m[META.clientCapabilities];
    else m[META.clientCapabilities] = capabilities;
    const r = refusal(readModernClient({ _meta: m }, ALL));
    expect(r.status).toBe(400);
    expect(r.code).toBe(JsonRpcErrorCode.InvalidParams);
    expect(r.message).toContain(META.clientCapabilities);
  });

  it.each([
    ["a string", "probe/1.0"],
    ["null", null],
    ["without a version", { name: "probe" }],
    ["without a name", { version: "1.0" }],
    ["with a numeric version", { name: "probe", version: 1 }],
  ])("refuses client info that is %s with 400 / -32602", (_what, info) => {
    const r = refusal(readModernClient({ _meta: meta({ [META.clientInfo]: info }) }, ALL));
    expect(r.status).toBe(400);
    expect(r.code).toBe(JsonRpcErrorCode.InvalidParams);
    expect(r.message).toContain(META.clientInfo);
  });

  it.each([
    ["an unknown level", "verbose"],
    ["an upper-case level", "INFO"],
    ["a number", 3],
    ["null", null],
  ])("refuses a log level that is %s with 400 / -32602", (_what, level) => {
    const r = refusal(readModernClient({ _meta: meta({ [META.logLevel]: level }) }, ALL));
    expect(r.status).toBe(400);
    expect(r.code).toBe(JsonRpcErrorCode.InvalidParams);
    expect(r.message).toContain(META.logLevel);
    expect(r.message).toContain("debug");
  });

  it("judges the version before the capabilities (an unsupported version wins over missing capabilities)", () => {
    const r = refusal(readModernClient({ _meta: { [META.protocolVersion]: "2099-01-01" } }, ALL));
    expect(r.code).toBe(-32022);
  });
});

describe("metaProtocolVersion and isModernRevision", () => {
  it("reads the version only when it is a string", () => {
    expect(metaProtocolVersion({ _meta: meta() })).toBe(MODERN);
    expect(metaProtocolVersion({ _meta: { [META.protocolVersion]: 1 } })).toBeUndefined();
    expect(metaProtocolVersion({ _meta: {} })).toBeUndefined();
    expect(metaProtocolVersion(undefined)).toBeUndefined();
  });

  it("counts 2026-07-28 and later as modern", () => {
    expect(isModernRevision("2026-07-28")).toBe(true);
    expect(isModernRevision("2027-01-01")).toBe(true);
    expect(isModernRevision("2025-11-25")).toBe(false);
    expect(isModernRevision("2024-11-05")).toBe(false);
  });
});

describe("checkMirroredHeaders", () => {
  const good = (method: string, extra: Record<string, string> = {}) => ({
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...extra,
  });

  it("accepts agreeing headers for a method without a name", () => {
    expect(checkMirroredHeaders(good("tools/list"), "tools/list", {}, MODERN)).toBeUndefined();
  });

  it("ignores Mcp-Name for a method that mirrors no name", () => {
    expect(
      checkMirroredHeaders(good("tools/list", { "mcp-name": "whatever" }), "tools/list", {}, MODERN),
    ).toBeUndefined();
  });

  it.each([
    ["tools/call", { name: "echo" }, "echo"],
    ["prompts/get", { name: "greet" }, "greet"],
    ["resources/read", { uri: "file:///tmp/a.txt" }, "file:///tmp/a.txt"],
  ])("accepts %s whose Mcp-Name matches the body", (method, params, name) => {
    expect(checkMirroredHeaders(good(method, { "mcp-name": name }), method, params, MODERN)).toBeUndefined();
  });

  it("refuses a missing MCP-Protocol-Version header with 400 / -32020", () => {
    const r = checkMirroredHeaders({ "mcp-method": "tools/list" }, "tools/list", {}, MODERN);
    expect(r).toMatchObject({ status: 400, code: -32020 });
    expect(r?.message).toContain("MCP-Protocol-Version header is required");
  });

  it("refuses an MCP-Protocol-Version header that differs from _meta", () => {
    const r = checkMirroredHeaders(
      { "mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list" },
      "tools/list",
      {},
      MODERN,
    );
    expect(r).toMatchObject({ status: 400, code: ModernErrorCode.HeaderMismatch });
    expect(r?.message).toContain("'2025-11-25'");
    expect(r?.message).toContain(`'${MODERN}'`);
  });

  it("refuses a missing Mcp-Method header", () => {
    const r = checkMirroredHeaders({ "mcp-protocol-version": MODERN }, "tools/list", {}, MODERN);
    expect(r).toMatchObject({ status: 400, code: -32020 });
    expect(r?.message).toContain("Mcp-Method header is required");
  });

  it("refuses an Mcp-Method header that differs from the body's method", () => {
    const r = checkMirroredHeaders(good("tools/list"), "prompts/list", {}, MODERN);
    expect(r).toMatchObject({ status: 400, code: -32020 });
    expect(r?.message).toContain("'tools/list'");
    expect(r?.message).toContain("'prompts/list'");
  });

  it("compares Mcp-Method exactly (case matters)", () => {
    const r = checkMirroredHeaders(good("Tools/List"), "tools/list", {}, MODERN);
    expect(r?.code).toBe(-32020);
  });

  it.each([
    ["tools/call", { name: "echo" }],
    ["prompts/get", { name: "greet" }],
    ["resources/read", { uri: "test://static-text" }],
  ])("refuses %s without an Mcp-Name header", (method, params) => {
    const r = checkMirroredHeaders(good(method), method, params, MODERN);
    expect(r).toMatchObject({ status: 400, code: -32020 });
    expect(r?.message).toBe(`Header mismatch: the Mcp-Name header is required for ${method}`);
  });

  it.each([
    ["tools/call", { name: "echo" }, "other"],
    ["prompts/get", { name: "greet" }, "greeting"],
    ["resources/read", { uri: "test://static-text" }, "test://static-text/"],
  ])("refuses %s whose Mcp-Name differs from the body", (method, params, header) => {
    const r = checkMirroredHeaders(good(method, { "mcp-name": header }), method, params, MODERN);
    expect(r).toMatchObject({ status: 400, code: -32020 });
    expect(r?.message).toContain(`'${header}'`);
  });

  it("decodes a Base64 sentinel Mcp-Name before comparing", () => {
    const name = "wëather/ünicode tool";
    expect(
      checkMirroredHeaders(good("tools/call", { "mcp-name": b64(name) }), "tools/call", { name }, MODERN),
    ).toBeUndefined();
    const r = checkMirroredHeaders(
      good("tools/call", { "mcp-name": b64("other") }),
      "tools/call",
      { name },
      MODERN,
    );
    expect(r?.code).toBe(-32020);
    expect(r?.message).toContain("'other'");
  });

  it("refuses a sentinel Mcp-Name that is not Base64", () => {
    const r = checkMirroredHeaders(
      good("tools/call", { "mcp-name": "=?base64?not*base64!?=" }),
      "tools/call",
      { name: "echo" },
      MODERN,
    );
    expect(r).toMatchObject({ status: 400, code: -32020 });
    expect(r?.message).toContain("not valid Base64");
  });

  it("refuses a tools/call whose body name is not a string", () => {
    const r = checkMirroredHeaders(
      good("tools/call", { "mcp-name": "7" }),
      "tools/call",
      { name: 7 },
      MODERN,
    );
    expect(r?.code).toBe(-32020);
  });
});

describe("decodeHeaderValue and mcpNameSource", () => {
  it("passes a plain value through and decodes the sentinel form", () => {
    expect(decodeHeaderValue("echo")).toBe("echo");
    expect(decodeHeaderValue(b64("日本語"))).toBe("日本語");
    expect(decodeHeaderValue("=?base64?aGk=?=")).toBe("hi");
  });

  it("refuses sentinel content outside the Base64 alphabet", () => {
    expect(decodeHeaderValue("=?base64?a-b_?=")).toBeUndefined();
    expect(decodeHeaderValue("=?base64?aGk=x?=")).toBeUndefined();
    expect(decodeHeaderValue("=?base64?a G k?=")).toBeUndefined();
  });

  it("treats a value that only starts like the sentinel as plain", () => {
    expect(decodeHeaderValue("=?base64?aGk=")).toBe("=?base64?aGk=");
  });

  it("names the mirrored body field per method", () => {
    expect(mcpNameSource("tools/call", { name: "a" })).toBe("a");
    expect(mcpNameSource("prompts/get", { name: "p" })).toBe("p");
    expect(mcpNameSource("resources/read", { uri: "u" })).toBe("u");
    expect(mcpNameSource("tasks/get", { taskId: "t" })).toBe("t");
    expect(mcpNameSource("tools/list", { name: "a" })).toBeUndefined();
  });
});

describe("negotiateLegacyRevision", () => {
  it.each(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])("keeps the known revision %s", (r) => {
    expect(negotiateLegacyRevision(r, ALL)).toBe(r);
  });

  it.each([
    ["a future revision", "2099-12-31"],
    ["an unknown revision", "2025-01-01"],
    ["the modern revision (initialize does not exist there)", MODERN],
    ["a number", 20251125],
    ["nothing", undefined],
  ])("walks %s back to the newest accepted legacy revision", (_what, requested) => {
    expect(negotiateLegacyRevision(requested, ALL)).toBe("2025-11-25");
  });

  it("uses only the accepted revisions", () => {
    const accepted = ["2024-11-05", "2025-03-26", MODERN];
    expect(negotiateLegacyRevision("2025-06-18", accepted)).toBe("2025-03-26");
    expect(negotiateLegacyRevision("2024-11-05", accepted)).toBe("2024-11-05");
    expect(negotiateLegacyRevision("2099-01-01", accepted)).toBe("2025-03-26");
  });
});

describe("parseAcceptedRevisions", () => {
  it("returns the accepted revisions oldest first, whatever order they were given in", () => {
    expect(parseAcceptedRevisions([MODERN, "2024-11-05", "2025-11-25"])).toEqual([
      "2024-11-05",
      "2025-11-25",
      MODERN,
    ]);
  });

  it("drops duplicates", () => {
    expect(parseAcceptedRevisions([MODERN, MODERN])).toEqual([MODERN]);
  });

  it("refuses an unknown revision, naming it and the known ones", () => {
    expect(() => parseAcceptedRevisions(["2025-11-25", "2025-13-01", "latest"])).toThrow(
      "unknown MCP revision(s) 2025-13-01, latest; the router speaks 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28",
    );
  });

  it("refuses an empty list", () => {
    expect(() => parseAcceptedRevisions([])).toThrow("at least one MCP revision must be accepted");
  });
});
