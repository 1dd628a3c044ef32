import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

/** A signing key of the test issuer. */
export interface TestKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** A request the test issuer received on a form endpoint. */
export interface FormRequest {
  form: URLSearchParams;
  authorization: string | undefined;
}

/** The answer a form endpoint gives: status and JSON body. */
export interface FormAnswer {
  status: number;
  body: unknown;
}

/** Options of {@link startTestIssuer}. */
export interface TestIssuerOptions {
  /** A path for the issuer identifier (`/tenant1`), to test path-inserted discovery. */
  issuerPath?: string;
  /** Which discovery document to serve: RFC 8414 (default) or OpenID Connect. */
  discovery?: "oauth" | "oidc";
  /** Make the discovery document name another issuer (a mix-up attempt). */
  announcedIssuer?: string;
}

/**
 * A real authorization server on a loopback port for tests: discovery, a JWKS whose published keys the test
 * changes (rotation), an introspection endpoint and a token endpoint whose answers the test decides. Counts
 * every request so tests can assert caching.
 */
export interface TestIssuer {
  readonly issuer: string;
  readonly origin: string;
  readonly counts: { discovery: number; jwks: number; introspect: number; token: number };
  readonly introspectRequests: FormRequest[];
  readonly tokenRequests: FormRequest[];
  /** Makes a key (not yet published unless `publish` is true). */
  addKey(alg?: string, publish?: boolean): Promise<TestKey>;
  /** Publishes exactly these keys in the JWKS. */
  publish(...keys: TestKey[]): void;
  /** Signs a JWT with `key`; `claims` default to iss = this issuer, exp in 5 minutes, iat now. */
  sign(key: TestKey, claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** Decides the introspection endpoint's answers. */
  onIntrospect(handler: (request: FormRequest) => FormAnswer | Promise<FormAnswer>): void;
  /** Decides the token endpoint's answers. */
  onToken(handler: (request: FormRequest) => FormAnswer | Promise<FormAnswer>): void;
  close(): Promise<void>;
}

// Key generation (RSA above all) dominates test time: tests reuse the n-th key pair of each algorithm.
const keyPairs = new Map<string, Promise<{ privateKey: CryptoKey; publicKey: CryptoKey }>>();
function keyPair(alg: string, index: number) {
  const id = `${alg}#${index}`;
  let pair = keyPairs.get(id);
  if (pair === undefined) {
    pair = generateKeyPair(alg, { extractable: true });
    keyPairs.set(id, pair);
  }
  return pair;
}

/** Starts a {@link TestIssuer} on 127.0.0.1, port 0. */
export async function startTestIssuer(options: TestIssuerOptions = {}): Promise<TestIssuer> {
  let published: TestKey[] = [];
  let introspect: (request: FormRequest) => FormAnswer | Promise<FormAnswer> = () => ({
    status: 200,
    body: { active: false },
  });
  let token: (request: FormRequest) => FormAnswer | Promise<FormAnswer> = () => ({
    status: 400,
    body: { error: "unsupported_grant_type" },
  });
  const counts = { discovery: 0, jwks: 0, introspect: 0, token: 0 };
  const introspectRequests: FormRequest[] = [];
  const tokenRequests: FormRequest[] = [];
  let issuer = "";
  let nextKid = 1;
  const used = new Map<string, number>();
  const issuerPath = options.issuerPath ?? "";
  const discoveryPath =
    options.discovery === "oidc"
      ? `/.well-known/openid-configuration${issuerPath}`
      : `/.well-known/oauth-authorization-server${issuerPath}`;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(body === undefined ? "" : JSON.stringify(body));
  };
  const readForm = async (req: IncomingMessage): Promise<FormRequest> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return {
      form: new URLSearchParams(Buffer.concat(chunks).toString("utf8")),
      authorization: req.headers.authorization,
    };
  };

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    void (async () => {
      if (req.method === "GET" && path === discoveryPath) {
        counts.discovery++;
        return send(res, 200, {
          issuer: options.announcedIssuer ?? issuer,
          jwks_uri: `${origin}/jwks`,
          introspection_endpoint: `${origin}/introspect`,
          token_endpoint: `${origin}/token`,
        });
      }
      if (req.method === "GET" && path === "/jwks") {
        counts.jwks++;
        return send(res, 200, { keys: published.map((key) => key.publicJwk) });
      }
      if (req.method === "POST" && path === "/introspect") {
        counts.introspect++;
        const request = await readForm(req);
        introspectRequests.push(request);
        const answer = await introspect(request);
        return send(res, answer.status, answer.body);
      }
      if (req.method === "POST" && path === "/token") {
        counts.token++;
        const request = await readForm(req);
        tokenRequests.push(request);
        const answer = await token(request);
        return send(res, answer.status, answer.body);
      }
      send(res, 404, { error: "not_found" });
    })().catch(() => send(res, 500, { error: "server_error" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer = `${origin}${issuerPath}`;

  return {
    issuer,
    origin,
    counts,
    introspectRequests,
    tokenRequests,
    async addKey(alg = "RS256", publish = true) {
      const index = used.get(alg) ?? 0;
      used.set(alg, index + 1);
      const { privateKey, publicKey } = await keyPair(alg, index);
      const kid = `key-${nextKid++}`;
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
      const key = { kid, alg, privateKey, publicJwk };
      if (publish) published = [...published, key];
      return key;
    },
    publish(...keys) {
      published = keys;
    },
    async sign(key, claims, header = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "at+jwt", ...header })
        .sign(key.privateKey);
    },
    onIntrospect(handler) {
      introspect = handler;
    },
    onToken(handler) {
      token = handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Encodes a JSON value as base64url, to hand-craft tokens jose would refuse to sign. */
export function base64url(value: unknown): string {
  return Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
}
