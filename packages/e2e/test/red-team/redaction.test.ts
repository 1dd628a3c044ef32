import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMcpSession, resultText } from "../reliability/support/mcp-session.js";
import { eventually } from "../support/processes.js";
import {
  adminCall,
  RED_ADMIN,
  RED_MCP,
  startRouterIn,
  type WorkingDirectoryRouter,
} from "./support/provisioning-router.js";

/**
 * Red team, redaction: a client calls a tool with credentials under the names people really use. Before
 * redaction covered those names, the raw body and the debug log, each canary below reached the events, the
 * history or the router's log.
 */

const CANARIES = {
  api_key: "CANARY-api-key-4f1a",
  client_secret: "CANARY-client-secret-8b2c",
  cookie: "CANARY-cookie-1d9e",
  private_key: "CANARY-private-key-77aa",
  passphrase: "CANARY-passphrase-3e0b",
  pwd: "CANARY-pwd-c51f",
  "X-Api-Key": "CANARY-x-api-key-a0b1",
  "set-cookie": "CANARY-set-cookie-e4d2",
};
const BODY_CANARY = "CANARY-body-client-secret-9f3d";

describe("red team: credentials under their usual names never reach events, history or logs", () => {
  const project = mkdtempSync(join(tmpdir(), "trestle-red-redact-"));
  let router: WorkingDirectoryRouter;
  let upstream: Server;
  let upstreamUrl: string;

  beforeAll(async () => {
    upstream = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("done");
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    router = await startRouterIn(project, [
      "--memory-store",
      "--log-level",
      "debug",
      "--builtins",
      "--builtin-arg",
      "http=--allow-private",
    ]);
    await eventually(
      async () => {
        const { data } = await adminCall<{ health: string; target: { serviceName: string } }[]>(
          router.url,
          "GET",
          "/api/v1/capabilities",
        );
        return data.some((s) => s.target.serviceName === "http" && s.health === "healthy") ? true : undefined;
      },
      60_000,
      "http built-in healthy",
    );
  }, 120_000);

  afterAll(async () => {
    await router?.stop();
    await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
    rmSync(project, { recursive: true, force: true });
  });

  it("a tool call's secret-named arguments and its body are redacted in events, history and the debug log", async () => {
    const added = await adminCall(router.url, "POST", "/api/v1/tools", {
      name: "login",
      type: "http",
      uri: `${upstreamUrl}/login`,
      inputSchema: {
        type: "object",
        properties: { wanaku_body: { type: "string", description: "the request body" } },
      },
    });
    expect(added.status).toBe(200);

    // The live event stream, as an operator's dashboard would follow it.
    const stream = new AbortController();
    const streamed: string[] = [];
    const response = await fetch(`${router.url}/api/v2/tool-calls/notifications`, {
      headers: { authorization: `Bearer ${RED_ADMIN}` },
      signal: stream.signal,
    });
    expect(response.status).toBe(200);
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
          streamed.push(decoder.decode(chunk, { stream: true }));
        }
      } catch {
        // Aborted at the end of the test.
      }
    })();

    const session = await openMcpSession(`${router.url}/mcp`, { authorization: `Bearer ${RED_MCP}` });
    const call = await session.callTool("login", {
      ...CANARIES,
      user: "alice",
      wanaku_body: JSON.stringify({ user: "alice", client_secret: BODY_CANARY }),
    });
    expect(call.answer?.result?.isError, resultText(call)).toBeFalsy();

    await eventually(() => (streamed.join("").includes("completed") ? true : undefined), 10_000, "events");
    const history = await adminCall(router.url, "GET", "/api/v2/tool-calls/history");
    expect(history.status).toBe(200);
    // Let the router's debug line for the last event reach its output.
    await eventually(
      () => (router.lines.filter((l) => l.includes('"tool call"')).length >= 2 ? true : undefined),
      10_000,
      "debug event lines",
    );
    stream.abort();
    await reading;

    const places = {
      events: streamed.join(""),
      history: JSON.stringify(history.data),
      log: router.lines.join("\n"),
    };
    // The call really was recorded in each place: an empty record would prove nothing.
    for (const text of Object.values(places)) expect(text).toContain("alice");
    for (const [place, text] of Object.entries(places)) {
      for (const canary of [...Object.values(CANARIES), BODY_CANARY]) {
        expect(text.includes(canary), `${canary} in ${place}`).toBe(false);
      }
    }
  });
});
