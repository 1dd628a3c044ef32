import { createParser } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernRequest } from "./support/mcp-wire.js";
import { api, eventually, type RouterProcess, stopAll } from "./support/processes.js";
import { startRouterWithPrincipals } from "./support/router-with-principals.js";

/**
 * The audit trail and the policy managed through the management API, on a real router: two `mcp` principals
 * (alice, bob) whose calls are recorded with their own names, a live tail, a policy change that refuses the next
 * call, a rule that does not compile refused with a 400, and the admin scope the audit needs.
 */

const ADMIN = "audit-e2e-admin-0123456789abcdef";
const ALICE = "audit-e2e-alice-0123456789abcdef";
const BOB = "audit-e2e-bob-0123456789abcdef01";
const REGISTER = "audit-e2e-register-0123456789ab";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const admin = bearer(ADMIN);

interface AuditRecord {
  id: string;
  principalId: string;
  principalName: string;
  principalKind: string;
  method: string;
  target: string | null;
  decision: string;
  rule: string | null;
  outcome: string | null;
  front: string;
  requestId: string | null;
  arguments: unknown;
}

describe("the audit trail and policies managed through the API", () => {
  let router: RouterProcess;
  const call = (token: string, city: string) =>
    modernRequest(
      `${router.url}/mcp`,
      "tools/call",
      { name: "echo_city", arguments: { city } },
      {
        headers: bearer(token),
      },
    );
  const audit = (query: string) =>
    api<{ records: AuditRecord[]; nextCursor: string | null }>(
      router.url,
      "GET",
      `/api/audit?${query}`,
      undefined,
      admin,
    );

  beforeAll(async () => {
    ({ router } = await startRouterWithPrincipals({
      adminToken: ADMIN,
      registerToken: REGISTER,
      principals: { alice: ALICE, bob: BOB },
      env: {
        TRESTLE_POLICIES: JSON.stringify([
          {
            name: "no-paris-for-bob",
            effect: "deny",
            when: 'principal.name == "bob" && arguments.city == "Paris"',
          },
        ]),
      },
    }));
  }, 300_000);

  afterAll(async () => {
    await stopAll();
  });

  it("records an allowed and a denied call, each with its own principal, never a token", async () => {
    const allowed = await call(ALICE, "Rome");
    expect(JSON.stringify(allowed.body.result)).toContain("Rome");
    const denied = await call(BOB, "Paris");
    expect(JSON.stringify(denied.body)).toContain("no-paris-for-bob");

    const bobs = await eventually(async () => {
      const page = await audit("principal=bob");
      return page.records.length > 0 ? page.records : undefined;
    });
    expect(bobs).toEqual([
      expect.objectContaining({
        principalId: "bob",
        principalKind: "token",
        method: "tools/call",
        target: "echo_city",
        decision: "denied",
        rule: "no-paris-for-bob",
        outcome: null,
        front: "mcp",
        arguments: null,
      }),
    ]);
    const alices = (await audit("principal=alice")).records;
    expect(alices).toEqual([
      expect.objectContaining({
        principalId: "alice",
        decision: "allowed",
        rule: "(default)",
        outcome: "ok",
      }),
    ]);
    expect(alices[0]?.requestId).not.toBeNull();
    const everything = JSON.stringify((await audit("limit=1000")).records);
    for (const token of [ADMIN, ALICE, BOB, REGISTER]) expect(everything).not.toContain(token);
    expect((await audit("decision=denied")).records.map((r) => r.principalId)).toEqual(["bob"]);
  });

  it("tails the trail live over SSE", async () => {
    const controller = new AbortController();
    const response = await fetch(`${router.url}/api/audit/stream`, {
      headers: admin,
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const seen: AuditRecord[] = [];
    const parser = createParser({
      onEvent: (event) => {
        if (event.event === "audit") seen.push(JSON.parse(event.data) as AuditRecord);
      },
    });
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
          parser.feed(decoder.decode(chunk, { stream: true }));
      } catch {
        // aborted at the end of the test
      }
    })();
    // The tail starts from the newest record: only calls made from now on arrive.
    await new Promise((r) => setTimeout(r, 300));
    await call(ALICE, "Lisbon");
    await eventually(() =>
      seen.some((r) => r.principalId === "alice" && r.outcome === "ok") ? true : undefined,
    );
    expect(seen.every((r) => r.principalId === "alice")).toBe(true);
    controller.abort();
    await reading;
  });

  it("applies a policy PUT through the API to the next call, and refuses a rule that does not compile", async () => {
    expect((await call(ALICE, "Oslo")).body.result).toBeDefined();
    const put = await api<{ rules: unknown[]; configured: { name: string }[]; revision: number }>(
      router.url,
      "PUT",
      "/api/policies",
      { rules: [{ name: "alice-off", effect: "deny", when: 'principal.name == "alice"' }] },
      admin,
    );
    expect(put.configured.map((r) => r.name)).toEqual(["no-paris-for-bob"]);
    expect(put.revision).toBe(1);

    const refused = await call(ALICE, "Oslo");
    expect(refused.body.result?.isError === true || refused.body.error !== undefined).toBe(true);
    expect(JSON.stringify(refused.body)).not.toContain('Oslo"}');
    const records = await eventually(async () => {
      const page = await audit("principal=alice&decision=denied");
      return page.records.length > 0 ? page.records : undefined;
    });
    expect(records[0]).toMatchObject({ target: "echo_city", rule: "alice-off" });
    // Bob is not concerned by alice's rule.
    expect(JSON.stringify((await call(BOB, "Oslo")).body.result)).toContain("Oslo");

    const bad = await fetch(`${router.url}/api/policies`, {
      method: "PUT",
      headers: { ...admin, "content-type": "application/json" },
      body: JSON.stringify({ rules: [{ name: "typo", effect: "deny", when: 'principle.name == "x"' }] }),
    });
    expect(bad.status).toBe(400);
    const message = ((await bad.json()) as { error: { message: string } }).error.message;
    expect(message).toContain('"typo"');
    expect(message).toContain("principle");
    const now = await api<{ rules: { name: string }[]; revision: number }>(
      router.url,
      "GET",
      "/api/policies",
      undefined,
      admin,
    );
    expect(now.rules.map((r) => r.name)).toEqual(["alice-off"]);
    expect(now.revision).toBe(1);
  });

  it("refuses the audit to a token with the mcp scope alone", async () => {
    for (const path of ["/api/audit", "/api/policies"]) {
      const response = await fetch(`${router.url}${path}`, { headers: bearer(ALICE) });
      expect(response.status).toBe(403);
    }
  });
});
