import { createServer } from "node:net";
import { join } from "node:path";
import { generateKeyPair, SignJWT } from "jose";
import {
  type RouterProcess,
  type RunningProcess,
  repoRoot,
  startNode,
  trestleCli,
} from "../../support/processes.js";

/** The fixture authorization server (jose): client credentials, token exchange, key rotation, minting. */
export const AUTHORIZATION_SERVER = join(repoRoot, "packages", "e2e", "fixtures", "authorization-server.mjs");
/** The canary MCP server: reports the authorization header of every request it gets. */
export const CANARY_MCP_SERVER = join(repoRoot, "packages", "e2e", "fixtures", "canary-mcp-server.mjs");

/** A client of the fixture authorization server. */
export interface FixtureClient {
  secret: string;
  sub?: string;
  groups?: string[];
  /** Whether it may exchange tokens (the router's own client). */
  exchange?: boolean;
}

/** A running fixture authorization server. */
export interface AuthorizationServer extends RunningProcess {
  issuer: string;
  /** A token signed with the current key, with any claims (`expiresIn` seconds; negative for an expired one). */
  mint(claims: Record<string, unknown>, expiresIn?: number): Promise<string>;
  /** Replaces the signing key with one of a new `kid`; the old key leaves the JWKS. */
  rotate(): Promise<string>;
  /** A client-credentials token for `resource`, as a client other than the MCP SDK would get one. */
  clientCredentials(clientId: string, secret: string, resource: string, scope?: string): Promise<string>;
}

/** Starts the fixture authorization server with `clients`. */
export async function startAuthorizationServer(
  clients: Record<string, FixtureClient>,
): Promise<AuthorizationServer> {
  const proc = startNode(AUTHORIZATION_SERVER, ["--clients", JSON.stringify(clients)]);
  const { issuer } = JSON.parse(await proc.waitForLine((l) => l.includes('"ready"'), 30_000)) as {
    issuer: string;
  };
  const control = async (path: string, body: unknown = {}) => {
    const response = await fetch(`${issuer}${path}`, { method: "POST", body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return (await response.json()) as Record<string, string>;
  };
  return Object.assign(proc, {
    issuer,
    mint: async (claims: Record<string, unknown>, expiresIn?: number) =>
      (await control("/control/mint", { claims, expiresIn })).token as string,
    rotate: async () => (await control("/control/rotate")).kid as string,
    async clientCredentials(clientId: string, secret: string, resource: string, scope = "mcp") {
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource, scope }).toString(),
      });
      if (!response.ok) throw new Error(`token: HTTP ${response.status}`);
      return ((await response.json()) as { access_token: string }).access_token;
    },
  });
}

/** A loopback port free a moment ago: the router's `publicUrl` must name its port before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `trestle serve` on `port` with an in-memory store and `env`, and waits for it to listen. */
export async function startRouterOn(port: number, env: Record<string, string>): Promise<RouterProcess> {
  const proc = startNode(
    trestleCli,
    ["serve", "--port", String(port), "--log-level", "info", "--memory-store"],
    { TRESTLE_PROBE_INTERVAL_MS: "1000", ...env },
  );
  const line = await proc.waitForLine((l) => l.includes('"router listening"'), 60_000);
  return Object.assign(proc, { url: (JSON.parse(line) as { url: string }).url });
}

/** The claims of a JWT (no check: the test reads what an upstream received). */
export function claimsOf(jwt: string): Record<string, unknown> {
  const payload = jwt.split(".")[1] ?? "";
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
}

/** An unsigned token (`alg: none`) with `claims`: what no verifier may accept. */
/** A token signed with a key of its own, which no issuer publishes (kid `unpublished`). */
export async function tokenOfUnpublishedKey(claims: Record<string, unknown>): Promise<string> {
  const { privateKey } = await generateKeyPair("ES256");
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: "unpublished", typ: "at+jwt" })
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(privateKey);
}

export function unsignedToken(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.`;
}
