import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type RouterProcess, serviceHealthy, startRouter, stopAll } from "../support/processes.js";
import { type BadRequest, managementRequests, mcpRequests } from "./support/bad-input.js";
import { startCapability } from "./support/capability.js";
import { openMcpSession, resultText } from "./support/mcp-session.js";
import { residentBytes } from "./support/memory.js";
import { observe } from "./support/observations.js";
import { profile } from "./support/profile.js";

const MAX_BODY_BYTES = 256 * 1024;
/** How much the router's resident memory may grow over the whole corpus. */
const RSS_GROWTH_BOUND = 160 * 1024 * 1024;

interface Sent {
  status: number;
  text: string;
}

/** The router's observable state: the catalog and the fleet as the management API lists them. */
async function stateOf(url: string): Promise<string> {
  const get = (path: string) => api<Record<string, unknown>[]>(url, "GET", path);
  const services = (await get("/api/v1/capabilities")).map((s) => JSON.stringify(s.target)).sort();
  return JSON.stringify({
    tools: await get("/api/v1/tools"),
    teamTools: await get("/api/v1/tools?namespace=team-a"),
    resources: await get("/api/v1/resources"),
    prompts: await get("/api/v1/prompts"),
    namespaces: await get("/api/v1/namespaces"),
    services,
  });
}

/** A generated corpus of bad input against one router: it answers each in kind and stays as it was. */
describe("bad input, generated", () => {
  let router: RouterProcess;
  let before: string;
  let rssBefore: number;
  const counts: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  /** The first request and answer seen for each kind → status, for the report. */
  const examples: Record<string, string> = {};

  /**
   * Sends one request. Every request gets an answer: a body over the limit too, since the router reads the rest
   * of it before its 413 (finding 7, fixed), so a connection closed under the client fails the test.
   */
  async function send(request: BadRequest): Promise<Sent> {
    const response = await fetch(`${router.url}${request.path}`, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal: AbortSignal.timeout(15_000),
    });
    const status = response.status;
    const text = await response.text();
    counts[request.kind] = (counts[request.kind] ?? 0) + 1;
    const key = `${request.kind} → ${status}`;
    statuses[key] = (statuses[key] ?? 0) + 1;
    examples[key] ??=
      `${request.method} ${request.path} ${String(request.body ?? "").slice(0, 160)} → ${text.slice(0, 160)}`;
    return { status, text };
  }

  beforeAll(async () => {
    router = await startRouter([], { TRESTLE_MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
    await startCapability({ router: router.url, serviceName: "fuzz" });
    await api(router.url, "POST", "/api/v1/namespaces", { name: "team-a" });
    for (const [name, uri, namespace] of [
      ["echo", "fixture://echo", undefined],
      ["sleep", "fixture://sleep?ms=10", undefined],
      ["echo", "fixture://echo", "team-a"],
    ] as const) {
      await api(router.url, "POST", "/api/v1/tools", {
        name,
        uri,
        type: "fuzz",
        description: name,
        inputSchema: { type: "object", properties: { text: { type: "string" } } },
        ...(namespace ? { namespace } : {}),
      });
    }
    await serviceHealthy(router.url, "fuzz");
    // Warm up so that what is measured afterwards is growth, not the first allocations.
    const warm = await openMcpSession(`${router.url}/mcp`);
    for (let i = 0; i < 50; i++) await warm.callTool("echo", { text: "warm" });
    before = await stateOf(router.url);
    rssBefore = residentBytes(router.child.pid as number);
  }, 120_000);

  afterAll(stopAll);

  it(`${profile.mcpFrames} malformed MCP requests: each answered in kind, never a 5xx, never a crash`, async () => {
    const session = await openMcpSession(`${router.url}/mcp`);
    const corpus = mcpRequests({
      paths: ["/mcp", "/team-a/mcp"],
      sessionId: session.sessionId,
      maxBodyBytes: MAX_BODY_BYTES,
    });
    await fc.assert(
      fc.asyncProperty(corpus, async (request) => {
        const { status, text } = await send(request);
        expect(status, text.slice(0, 200)).toBeLessThan(500);
        if (status >= 400) {
          // Refusals are JSON-RPC errors, so any MCP client can show them.
          const answer = JSON.parse(text) as { jsonrpc: string; error: { code: number; message: string } };
          expect(answer.jsonrpc).toBe("2.0");
          expect(typeof answer.error.code).toBe("number");
          expect(answer.error.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: profile.mcpFrames, endOnFailure: true },
    );
    // The session the corpus used (sometimes with the right id) still works.
    const after = await session.callTool("echo", { text: "still here" });
    expect(JSON.parse(resultText(after)).arguments).toEqual({ text: "still here" });
  }, 600_000);

  it(`${profile.managementPayloads} malformed management and registration payloads: 4xx with a message, nothing stored`, async () => {
    const existing = JSON.parse(before) as { services: string[] };
    const corpus = managementRequests({
      existing: ["echo", "sleep", "team-a", "fuzz", ...existing.services],
      maxBodyBytes: MAX_BODY_BYTES,
    });
    await fc.assert(
      fc.asyncProperty(corpus, async (request) => {
        const { status, text } = await send(request);
        const what = `${request.method} ${request.path} ${String(request.body ?? "").slice(0, 120)} → ${status} ${text.slice(0, 200)}`;
        if (request.method === "GET") expect([200, 400, 404], what).toContain(status);
        else {
          expect(status, what).toBeGreaterThanOrEqual(400);
          expect(status, what).toBeLessThan(500);
        }
        const envelope = JSON.parse(text) as { error: { message: string } | null; data: unknown };
        if (status >= 400) {
          expect(envelope.data, what).toBeNull();
          expect(envelope.error?.message.length, what).toBeGreaterThan(0);
        }
      }),
      { numRuns: profile.managementPayloads, endOnFailure: true },
    );
  }, 600_000);

  it("after the whole corpus: the same catalog and fleet, bounded memory, no error logged, still serving", async () => {
    expect(await stateOf(router.url)).toBe(before);
    const rssAfter = residentBytes(router.child.pid as number);
    observe("bad-input", {
      cases: counts,
      statuses,
      examples,
      rssBeforeMiB: Math.round(rssBefore / 2 ** 20),
      rssAfterMiB: Math.round(rssAfter / 2 ** 20),
    });
    expect(rssAfter - rssBefore).toBeLessThan(RSS_GROWTH_BOUND);
    expect(router.child.exitCode).toBeNull();
    const errors = router.lines.filter((l) => l.includes('"level":50') || l.includes('"level":60'));
    expect(errors).toEqual([]);
    const session = await openMcpSession(`${router.url}/team-a/mcp`);
    const exchange = await session.callTool("echo", { text: "after" });
    expect(JSON.parse(resultText(exchange)).arguments).toEqual({ text: "after" });
  });
});
