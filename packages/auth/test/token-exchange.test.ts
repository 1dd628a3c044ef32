import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ACCESS_TOKEN_TYPE,
  AuthError,
  createPrincipal,
  createTokenExchanger,
  TOKEN_EXCHANGE_GRANT_TYPE,
  type TokenExchangeOptions,
} from "../src/index.js";
import { startTestIssuer, type TestIssuer } from "./support/test-issuer.js";

const SECRET = "client-secret-for-exchange";
const SUBJECT = "subject-token-of-alice-0001";

let idp: TestIssuer;
beforeEach(async () => {
  idp = await startTestIssuer();
});
afterEach(async () => {
  await idp.close();
});

function exchanger(extra: Partial<TokenExchangeOptions> = {}) {
  return createTokenExchanger({
    tokenEndpoint: `${idp.origin}/token`,
    clientId: "trestle",
    clientSecret: SECRET,
    audience: "payments",
    ...extra,
  });
}

const alice = (token = SUBJECT) =>
  createPrincipal({ kind: "oauth", id: "https://idp#alice", name: "alice", scopes: ["mcp"] }, token);

const issued = (token: string, expiresIn = 300) => ({
  status: 200,
  body: {
    access_token: token,
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: "Bearer",
    expires_in: expiresIn,
  },
});

async function rejection(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(AuthError.is(error)).toBe(true);
  return error as AuthError;
}

describe("createTokenExchanger", () => {
  it("posts an RFC 8693 form with the principal's token as subject_token and client_secret_basic", async () => {
    idp.onToken(() => issued("exchanged-for-payments"));
    const token = await exchanger({
      resource: "https://payments.internal/mcp",
      scope: ["pay", "read"],
    }).exchange(alice());
    expect(token.accessToken).toBe("exchanged-for-payments");
    expect(token).toMatchObject({
      tokenType: "Bearer",
      issuedTokenType: ACCESS_TOKEN_TYPE,
      scope: undefined,
    });
    const [request] = idp.tokenRequests;
    expect(Object.fromEntries(request?.form ?? [])).toEqual({
      grant_type: TOKEN_EXCHANGE_GRANT_TYPE,
      subject_token: SUBJECT,
      subject_token_type: ACCESS_TOKEN_TYPE,
      audience: "payments",
      resource: "https://payments.internal/mcp",
      scope: "pay read",
    });
    expect(request?.authorization).toBe(`Basic ${Buffer.from(`trestle:${SECRET}`).toString("base64")}`);
  });

  it("form-encodes the client id and secret before Basic encoding (RFC 6749 §2.3.1)", async () => {
    idp.onToken(() => issued("x"));
    await exchanger({ clientId: "my client", clientSecret: "p@ss:word" }).exchange(alice());
    const basic = idp.tokenRequests[0]?.authorization?.slice("Basic ".length) ?? "";
    expect(Buffer.from(basic, "base64").toString()).toBe("my+client:p%40ss%3Aword");
  });

  it("sends client_secret_post and several audiences when configured", async () => {
    idp.onToken(() => issued("x"));
    await exchanger({ clientAuth: "client_secret_post", audience: ["a", "b"] }).exchange(alice());
    const [request] = idp.tokenRequests;
    expect(request?.authorization).toBeUndefined();
    expect(request?.form.getAll("audience")).toEqual(["a", "b"]);
    expect(request?.form.get("client_id")).toBe("trestle");
    expect(request?.form.get("client_secret")).toBe(SECRET);
  });

  it("keeps the issued token out of serialisation", async () => {
    idp.onToken(() => issued("exchanged-secret-value"));
    const token = await exchanger().exchange(alice());
    expect(JSON.stringify(token)).not.toContain("exchanged-secret-value");
    expect(Object.keys(token)).not.toContain("accessToken");
    expect({ ...token }).not.toHaveProperty("accessToken");
  });

  it("caches per principal and subject token until expires_in minus the margin", async () => {
    let clock = Date.now();
    let n = 0;
    idp.onToken(() => issued(`exchanged-${++n}`, 120));
    const ex = exchanger({ now: () => clock, expiryMarginSeconds: 30 });
    expect((await ex.exchange(alice())).accessToken).toBe("exchanged-1");
    clock += 60_000;
    expect((await ex.exchange(alice())).accessToken).toBe("exchanged-1");
    clock += 31_000; // 91 s: within 30 s of the 120 s expiry
    expect((await ex.exchange(alice())).accessToken).toBe("exchanged-2");
    // Another subject token (a refreshed one) or another principal gets its own exchange.
    expect((await ex.exchange(alice("subject-token-of-alice-0002"))).accessToken).toBe("exchanged-3");
    const bob = createPrincipal({ kind: "oauth", id: "https://idp#bob", name: "bob", scopes: [] }, SUBJECT);
    expect((await ex.exchange(bob)).accessToken).toBe("exchanged-4");
    expect(idp.counts.token).toBe(4);
  });

  it("shares one request among concurrent exchanges for the same principal", async () => {
    idp.onToken(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return issued("shared");
    });
    const ex = exchanger();
    const tokens = await Promise.all([ex.exchange(alice()), ex.exchange(alice()), ex.exchange(alice())]);
    expect(tokens.map((t) => t.accessToken)).toEqual(["shared", "shared", "shared"]);
    expect(idp.counts.token).toBe(1);
  });

  it("does not cache a token whose lifetime is unknown", async () => {
    let n = 0;
    idp.onToken(() => ({
      status: 200,
      body: { access_token: `t${++n}`, issued_token_type: ACCESS_TOKEN_TYPE, token_type: "Bearer" },
    }));
    const ex = exchanger();
    await ex.exchange(alice());
    await ex.exchange(alice());
    expect(idp.counts.token).toBe(2);
  });

  it("refuses an OAuth error with 403 and never quotes the tokens or the secret, even when the server echoes them", async () => {
    idp.onToken(() => ({
      status: 400,
      body: {
        error: "invalid_grant",
        error_description: `subject ${SUBJECT} rejected for client secret ${SECRET}`,
      },
    }));
    const error = await rejection(exchanger().exchange(alice()));
    expect(error).toMatchObject({ code: "exchange_refused", status: 403 });
    expect(error.message).toMatch(/invalid_grant/);
    expect(error.message).not.toContain(SUBJECT);
    expect(error.message).not.toContain(SECRET);
  });

  it("fails with 502 on a server error, a malformed answer, or an unreachable endpoint", async () => {
    idp.onToken(() => ({ status: 503, body: undefined }));
    expect((await rejection(exchanger().exchange(alice()))).code).toBe("exchange_failed");
    idp.onToken(() => ({ status: 200, body: { token_type: "Bearer" } }));
    expect((await rejection(exchanger().exchange(alice()))).message).toMatch(/without an access_token/);
    await idp.close();
    const error = await rejection(exchanger().exchange(alice()));
    expect(error).toMatchObject({ code: "exchange_failed", status: 502 });
    idp = await startTestIssuer();
  });

  it("refuses an answer that hands back the caller's own token", async () => {
    idp.onToken(() => issued(SUBJECT));
    expect((await rejection(exchanger().exchange(alice()))).message).toMatch(/caller's own token/);
  });

  it("refuses a static-token principal without contacting the server", async () => {
    const ops = createPrincipal({ kind: "token", id: "token:ops", name: "ops", scopes: ["admin"] });
    expect((await rejection(exchanger().exchange(ops))).code).toBe("exchange_refused");
    expect(idp.counts.token).toBe(0);
  });

  it("refuses a plain-http token endpoint off loopback", () => {
    expect(() =>
      createTokenExchanger({
        tokenEndpoint: "http://idp.example.com/token",
        clientId: "c",
        clientSecret: "s",
      }),
    ).toThrow(/must use https/);
  });
});
