import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterProcess, startRouter, stopAll } from "../support/processes.js";
import { type CapabilityProcess, startCapability } from "./support/capability.js";
import { serviceHealthyWith } from "./support/health.js";
import { openMcpSession, postMcp } from "./support/mcp-session.js";
import { observe } from "./support/observations.js";

/** Every secret below carries this tag, so one search finds any of them wherever it went. */
const TAG = `cnry${randomBytes(8).toString("hex")}`;
const ADMIN_TOKEN = `${TAG}-admin-token`;
const MCP_TOKEN = `${TAG}-mcp-token`;
const REGISTER_TOKEN = `${TAG}-register-token`;
const PROVISIONED = `${TAG}-provisioned-secret`;
const AUTH_ARGUMENT = `${TAG}-wanaku-auth-argument`;
/** A credential of the client's own, in a header the router forwards to capabilities. */
const FORWARDED_CREDENTIAL = `${TAG}-forwarded-credential`;
/** Punctuation a gRPC error message carries percent-encoded: the scrubber must still find it. */
const PUNCTUATED = `${TAG}:with/slashes,commas;and%percent`;

/** Every file under `dir`, with its bytes. */
async function filesUnder(dir: string): Promise<{ path: string; bytes: Buffer }[]> {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.push({ path, bytes: await readFile(path) });
  }
  return out;
}

/** Where the tag turns up in `texts`, with a little context around each hit. */
function hits(texts: readonly string[]): string[] {
  return texts
    .filter((t) => t.includes(TAG))
    .map((t) => t.slice(Math.max(0, t.indexOf(TAG) - 120), t.indexOf(TAG) + 80));
}

/**
 * A canary secret in every place a secret can enter the router (provisioned secrets, `wanaku_auth_*` arguments,
 * the Authorization header, tokens, right and wrong), through every flow including the failing ones; then every
 * log line, event, SSE frame, answer and the router's store are searched for it.
 */
describe("secrets never leave the places they must live", () => {
  let router: RouterProcess;
  let vault: CapabilityProcess;
  let dataDir: string;
  let home: string;
  /** Every answer body the router sent during the flows. */
  const answers: string[] = [];
  /** Every SSE frame received during the flows. */
  const streamed: string[] = [];
  const streams = new AbortController();

  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  async function call(path: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
    const response = await fetch(`${router.url}${path}`, init);
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text };
  }

  const adminPost = (path: string, body: unknown) =>
    call(path, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  async function follow(path: string): Promise<void> {
    const response = await fetch(`${router.url}${path}`, { headers: admin, signal: streams.signal });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          streamed.push(decoder.decode(value, { stream: true }));
        }
      } catch {
        // aborted at the end of the test
      }
    })();
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "trestle-reliability-secrets-"));
    home = await mkdtemp(join(tmpdir(), "trestle-reliability-vault-"));
    // A credential header of the client's own is forwarded to capabilities (which echo it back), and one secret
    // holds the punctuation a gRPC error message percent-encodes (findings 3 and 4). Its Authorization, the
    // router's token, is never forwarded while tokens are configured (the router refuses to start so).
    router = await startRouter(
      ["--data-dir", dataDir, "--log-level", "trace", "--forward-header", "x-upstream-api-key"],
      {
        TRESTLE_TOKENS: JSON.stringify([
          { name: "admin", token: ADMIN_TOKEN, scopes: ["admin"] },
          { name: "client", token: MCP_TOKEN, scopes: ["mcp"] },
          { name: "capabilities", token: REGISTER_TOKEN, scopes: ["register"] },
        ]),
        // The capabilities run on this machine, registered with the register token.
        TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "127.0.0.0/8",
      },
    );
    vault = await startCapability({
      router: router.url,
      serviceName: "vault",
      serviceType: "multi-capability",
      home,
      token: REGISTER_TOKEN,
    });
    await startCapability({
      router: router.url,
      serviceName: "careless",
      hostileProvisioner: true,
      token: REGISTER_TOKEN,
    });
    await serviceHealthyWith(router.url, "vault", admin);
    await serviceHealthyWith(router.url, "careless", admin);
  }, 120_000);

  afterAll(async () => {
    streams.abort();
    await stopAll();
    await rm(dataDir, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  it("runs every flow with the canary, failures included, and finds it only in the capability's secrets file", async () => {
    await follow("/api/v2/tool-calls/notifications");
    await follow("/api/v1/management/events");

    // Provisioning: a tool and a resource with secrets, on a service that stores them, on one that echoes
    // them in its error, and for a type no service serves.
    const secretsData = `api.key=${PROVISIONED}\npassword=${PROVISIONED}-2`;
    const tool = {
      name: "vault_echo",
      description: "Echoes",
      uri: "fixture://echo",
      type: "vault",
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    };
    expect(
      (
        await adminPost("/api/v1/tools/payloads", {
          payload: tool,
          configurationData: "region=eu",
          secretsData,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await adminPost("/api/v1/tools/payloads", {
          payload: { ...tool, name: "vault_refuser", uri: "fixture://error-echo" },
          secretsData,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await adminPost("/api/v1/resources/payloads", {
          payload: { name: "vault_notes", location: "test://notes", type: "vault" },
          secretsData,
        })
      ).status,
    ).toBe(200);
    const careless = await adminPost("/api/v1/tools/payloads", {
      payload: { ...tool, name: "careless_echo", type: "careless" },
      secretsData,
    });
    expect(careless.status).toBeGreaterThanOrEqual(400);
    const ghost = await adminPost("/api/v1/tools/payloads", {
      payload: { ...tool, name: "ghost_echo", type: "ghost" },
      secretsData,
    });
    expect(ghost.status).toBe(404);
    expect((await adminPost("/api/v1/tools", { ...tool, name: "ghost_call", type: "ghost" })).status).toBe(
      200,
    );

    // Calls over MCP with the token in Authorization, a forwarded credential, and secrets in wanaku_auth_* arguments.
    const session = await openMcpSession(`${router.url}/mcp`, {
      authorization: `Bearer ${MCP_TOKEN}`,
      "x-upstream-api-key": `${FORWARDED_CREDENTIAL}`,
    });
    const args = {
      city: "Oslo",
      wanaku_auth_token: AUTH_ARGUMENT,
      wanaku_auth_Authorization: `Bearer ${AUTH_ARGUMENT}-2`,
      wanaku_auth_X_Api_Key: PUNCTUATED,
    };
    for (const name of ["vault_echo", "vault_refuser", "ghost_call", "no_such_tool"]) {
      const exchange = await session.callTool(name, args);
      answers.push(exchange.text);
    }
    answers.push((await session.request("resources/read", { uri: "test://notes" })).text);
    const echoed = await session.callTool("vault_echo", { city: "Lima" });
    answers.push(echoed.text);
    expect(echoed.answer?.result?.isError).toBeFalsy();

    // Wrong tokens that are themselves canaries: refused, and not repeated anywhere.
    const wrong = { authorization: `Bearer ${TAG}-wrong-token` };
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const refused = await postMcp(`${router.url}/mcp`, ping, wrong);
    answers.push(refused.text);
    expect(refused.status).toBe(401);
    expect((await call("/api/v1/tools", { headers: wrong })).status).toBe(401);
    expect((await call("/api/v1/tools", { headers: { authorization: `Bearer ${MCP_TOKEN}` } })).status).toBe(
      403,
    );
    expect((await call("/api/v1/tools", { headers: { authorization: `Basic ${TAG}` } })).status).toBe(401);

    // Management reads that show what the router keeps.
    for (const path of [
      "/api/v1/tools",
      "/api/v1/resources",
      "/api/v1/capabilities",
      "/api/v2/tool-calls/history?limit=1000",
    ])
      expect((await call(path, { headers: admin })).status).toBe(200);

    // Stop the router (flushing its logs and store), then search everything it left.
    streams.abort();
    expect(await router.stop()).toBe(0);
    const stored = await filesUnder(dataDir);
    const storedHits = stored.filter((f) => f.bytes.includes(TAG)).map((f) => f.path);
    const vaultFiles = await filesUnder(home);
    const secretFiles = vaultFiles.filter((f) => f.bytes.includes(TAG)).map((f) => f.path);

    const found = {
      logLines: hits(router.lines),
      answers: hits(answers),
      streamed: hits(streamed),
      storeFiles: storedHits,
    };
    observe("secrets", {
      logLines: router.lines.length,
      answers: answers.length,
      sseChunks: streamed.length,
      storeFiles: stored.length,
      hits: found,
      capabilityFilesWithSecrets: secretFiles.map((p) => p.slice(home.length)),
    });
    // The search itself works: the secrets are where they must live, in the capability's secrets files.
    expect(secretFiles.length).toBeGreaterThan(0);
    for (const path of secretFiles) expect(path).toMatch(/\.secrets\.properties$/);
    expect(router.lines.some((l) => l.includes('"tool call"'))).toBe(true);
    expect(streamed.join("")).toContain("vault_echo");
    expect(found).toEqual({ logLines: [], answers: [], streamed: [], storeFiles: [] });
    // The capability was really called (so the search had something to miss).
    expect(vault.lines.some((l) => l.includes("fixture://echo"))).toBe(true);
  }, 120_000);
});
