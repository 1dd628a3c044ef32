import { Agent, createServer, type Server } from "node:http";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { type CapabilityProcess, startCapability } from "../capability-process.js";
import { echoTool } from "../configurations.js";
import { median } from "../latency-summary.js";
import { runLoad } from "../load-runner.js";
import type { LoadTarget } from "../load-spec.js";
import { createMcpHttpClient } from "../mcp-http-client.js";
import { readSelfCpuMs } from "../proc-stats.js";
import { manage, type RouterProcess, startRouter } from "../router-process.js";

/** The router's `publicUrl`: only the tokens' audience, so it need not name the port the router gets. */
const PUBLIC_URL = "http://127.0.0.1";
const ADMIN_TOKEN = "bench-identity-admin-token-0001";
const CLIENT_TOKEN = "bench-identity-static-client-0002";

/**
 * The five rules the OAuth router decides every call with: none refuses the benchmark's echo, so each call goes
 * through all five (the first match decides, and only the last matches).
 */
export const IDENTITY_BENCH_POLICIES = [
  { name: "no-admin-tools", effect: "deny", when: 'tool.name.startsWith("admin_")' },
  { name: "blocked-group", effect: "deny", when: '"blocked" in principal.groups' },
  {
    name: "payments-finance-only",
    effect: "deny",
    when: 'tool.name == "pay" && !("finance" in principal.groups)',
  },
  { name: "no-atlantis", effect: "deny", when: '"city" in arguments && arguments.city == "Atlantis"' },
  { name: "mcp-scope", effect: "allow", when: 'principal.scopes.exists(s, s == "mcp")' },
] as const;

/** One way of authenticating the benchmark's calls. */
export interface IdentityCostRow {
  /** `static token` or `JWT + 5 CEL rules`. */
  variant: string;
  /** Median over rounds. */
  callsPerSecond: number;
  /** CPU of the router per call, µs; median over rounds. */
  serverCpuUsPerCall: number;
  errors: number;
  rounds: Array<{ callsPerSecond: number; serverCpuUsPerCall: number }>;
}

/** What {@link runIdentityCost} measured. */
export interface IdentityCostResult {
  concurrency: number;
  rounds: number;
  rows: IdentityCostRow[];
}

/** Settings of {@link runIdentityCost}. */
export interface IdentityCostOptions {
  concurrency: number;
  rounds: number;
  warmupMs: number;
  durationMs: number;
  log(line: string): void;
}

/** A JWKS issuer in the harness's process: its keys, and one access token for the router, valid two hours. */
async function startIssuer(): Promise<{ issuer: string; token: string; server: Server }> {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "bench-1", alg: "ES256", use: "sig" };
  let issuer = "";
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const body =
      path === "/jwks"
        ? { keys: [jwk] }
        : path === "/.well-known/oauth-authorization-server"
          ? { issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` }
          : undefined;
    res.writeHead(body ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  issuer = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const token = await new SignJWT({ scope: "mcp", groups: ["bench"] })
    .setProtectedHeader({ alg: "ES256", kid: "bench-1", typ: "at+jwt" })
    .setIssuer(issuer)
    .setSubject("bench-client")
    .setAudience(`${PUBLIC_URL}/mcp`)
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(privateKey);
  return { issuer, token, server };
}

/** Calls the echo until it answers through `url` with `authorization`, for at most 20 s. */
async function untilEchoes(url: string, authorization: string): Promise<void> {
  const agent = new Agent({ keepAlive: true });
  const end = Date.now() + 20_000;
  try {
    for (;;) {
      try {
        const client = createMcpHttpClient({ url, agent, authorization });
        await client.initialize();
        const reply = await client.request("tools/call", { name: "echo", arguments: { text: "smoke" } });
        await client.terminate();
        if ((reply.result as { content?: { text?: string }[] } | undefined)?.content?.[0]?.text === "smoke")
          return;
        if (Date.now() > end)
          throw new Error(`the echo did not come back: ${JSON.stringify(reply).slice(0, 300)}`);
      } catch (error) {
        if (Date.now() > end) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    agent.destroy();
  }
}

/** A router with the echo capability registered, its tool added, and the load target that calls it. */
async function startIdentityRouter(
  capability: CapabilityProcess,
  env: Record<string, string>,
  authorization: string,
): Promise<{ router: RouterProcess; target: LoadTarget }> {
  const router = await startRouter({
    env: {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "bench-admin", token: ADMIN_TOKEN, scopes: ["admin", "register"] },
        { name: "bench-client", token: CLIENT_TOKEN, scopes: ["mcp"] },
      ]),
      // Measured is the cost of identity, not of the rate limit.
      TRESTLE_RATE_LIMIT: "false",
      ...env,
    },
  });
  try {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    await capability.register(
      router.url,
      { serviceName: "echo-grpc", serviceType: "tool-invoker", protocol: "grpc" },
      ADMIN_TOKEN,
    );
    await manage(router.url, "POST", "/api/v1/tools", echoTool("echo-grpc"), admin);
    const url = `${router.url}/mcp`;
    await untilEchoes(url, authorization);
    return { router, target: { kind: "mcp", url, tool: "echo", openStream: true, authorization } };
  } catch (error) {
    await router.stop();
    throw error;
  }
}

/**
 * The cost of identity per call: the same echo through two routers at one concurrency, in interleaved rounds —
 * one whose client sends a static token, one whose client sends an OAuth JWT (ES256, checked against the issuer's
 * keys, the verified token cached as the router does) and whose every call is decided by five CEL rules.
 */
export async function runIdentityCost(options: IdentityCostOptions): Promise<IdentityCostResult> {
  const issuer = await startIssuer();
  const capability = await startCapability();
  const routers: RouterProcess[] = [];
  try {
    const staticRouter = await startIdentityRouter(capability, {}, `Bearer ${CLIENT_TOKEN}`);
    routers.push(staticRouter.router);
    const oauthRouter = await startIdentityRouter(
      capability,
      {
        TRESTLE_PUBLIC_URL: PUBLIC_URL,
        TRESTLE_OAUTH: JSON.stringify({ issuers: [{ issuer: issuer.issuer }] }),
        TRESTLE_POLICIES: JSON.stringify(IDENTITY_BENCH_POLICIES),
      },
      `Bearer ${issuer.token}`,
    );
    routers.push(oauthRouter.router);
    const variants = [
      { variant: "static token", ...staticRouter },
      { variant: `JWT + ${IDENTITY_BENCH_POLICIES.length} CEL rules`, ...oauthRouter },
    ].map((v) => ({ ...v, rounds: [] as IdentityCostRow["rounds"], errors: 0 }));
    for (let round = 1; round <= options.rounds; round++) {
      for (const entry of round % 2 === 1 ? variants : [...variants].reverse()) {
        const load = (durationMs: number) => ({
          target: entry.target,
          concurrency: options.concurrency,
          warmupMs: 0,
          durationMs,
        });
        await runLoad(load(options.warmupMs));
        const before = readSelfCpuMs(entry.router.pid);
        let serverMs = Number.NaN;
        const result = await runLoad(load(options.durationMs), () => {
          serverMs = readSelfCpuMs(entry.router.pid) - before;
        });
        const measurement = {
          callsPerSecond: (result.calls * 1000) / result.windowMs,
          serverCpuUsPerCall: result.totalCalls > 0 ? (serverMs * 1000) / result.totalCalls : Number.NaN,
        };
        entry.rounds.push(measurement);
        entry.errors += result.errors;
        options.log(
          `  round ${round} ${entry.variant.padEnd(20)} ${measurement.callsPerSecond.toFixed(0).padStart(6)} calls/s  ` +
            `server ${measurement.serverCpuUsPerCall.toFixed(0)} µs/call  errors ${result.errors}`,
        );
      }
    }
    return {
      concurrency: options.concurrency,
      rounds: options.rounds,
      rows: variants.map((entry) => ({
        variant: entry.variant,
        callsPerSecond: median(entry.rounds.map((r) => r.callsPerSecond)),
        serverCpuUsPerCall: median(entry.rounds.map((r) => r.serverCpuUsPerCall)),
        errors: entry.errors,
        rounds: entry.rounds,
      })),
    };
  } finally {
    await Promise.allSettled([...routers.map((r) => r.stop()), capability.stop()]);
    issuer.server.close();
  }
}
