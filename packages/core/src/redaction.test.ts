import { describe, expect, it } from "vitest";
import {
  argumentSecretValues,
  isSecretName,
  REDACTED,
  redactArguments,
  redactBody,
  redactHeaders,
  redactSecretsUri,
  redactToolCallEvent,
  redactUrlCredentials,
  redactValue,
  scrubSecrets,
  stringifyArgument,
} from "./redaction.js";

describe("argumentSecretValues", () => {
  it("finds secret-named arguments, secret fields nested in objects, and URL passwords", () => {
    const values = argumentSecretValues({
      api_key: "k3y-123",
      app: "shop",
      environment: { DATABASE_URL: "postgres://db", credentials: { password: "hunter22" } },
      dsn: "postgres://app:s3cret-pw@db:5432/shop",
      count: 3,
      gone: null,
    });
    expect(values).toEqual(["k3y-123", "hunter22", "s3cret-pw"]);
  });

  it("holds a secret-named object argument as the JSON text it is sent as", () => {
    expect(argumentSecretValues({ credentials: { user: "al", pin: 1234 } })).toEqual([
      '{"user":"al","pin":1234}',
    ]);
  });

  it("treats the Wanaku credential prefix as secret in every protocol, and nothing else by prefix", () => {
    expect(argumentSecretValues({ wanaku_auth_Tenant: "acme-tenant", wanaku_meta_trace: "t-1" })).toEqual([
      "acme-tenant",
    ]);
  });

  it("says which argument cannot be sent as text", () => {
    expect(() => argumentSecretValues({ token: { n: 1n } })).toThrowError(/Argument 'token' cannot be sent/);
  });
});

describe("redactArguments", () => {
  it("keeps every argument by its name, whatever the protocol: wanaku_auth_* redacted, wanaku_meta_* as it is", () => {
    expect(
      redactArguments({
        wanaku_auth_Tenant: "acme-tenant",
        wanaku_meta_trace: "t",
        wanaku_body: "{}",
        city: "Oslo",
      }),
    ).toEqual({ wanaku_auth_Tenant: REDACTED, wanaku_meta_trace: "t", wanaku_body: "{}", city: "Oslo" });
  });

  it.each([
    "password",
    "userPassword",
    "SECRET",
    "client_secret",
    "token",
    "accessToken",
    "apikey",
    "ApiKey",
    "api_key",
    "credentials",
    "private_key",
    "passphrase",
    "pwd",
    "cookie",
    "client-secret",
    "x-api-key",
  ])("replaces the value of '%s'", (key) => {
    expect(redactArguments({ [key]: "hunter2" })[key]).toBe(REDACTED);
  });

  it("keeps names that only contain a secret word's start, such as tokens_used", () => {
    expect(redactArguments({ tokens_used: 12, max_tokens: 100 })).toEqual({
      tokens_used: "12",
      max_tokens: "100",
    });
  });

  it("keeps ordinary arguments, stringified, and drops null values", () => {
    expect(redactArguments({ n: 3, ok: true, obj: { a: [1] }, gone: null })).toEqual({
      n: "3",
      ok: "true",
      obj: '{"a":[1]}',
    });
  });

  it("redacts secret-named fields inside an object argument, at any depth", () => {
    const redacted = redactArguments({
      environment: {
        DATABASE_URL: "postgres://x",
        db: { password: "hunter22" },
        list: [{ apiKey: "k3y-1" }],
      },
    });
    expect(JSON.parse(redacted.environment as string)).toEqual({
      DATABASE_URL: "postgres://x",
      db: { password: REDACTED },
      list: [{ apiKey: REDACTED }],
    });
    expect(JSON.stringify(redacted)).not.toContain("hunter22");
    expect(JSON.stringify(redacted)).not.toContain("k3y-1");
  });
});

describe("redactUrlCredentials", () => {
  it("hides the password of every URL that carries one, whatever the field is called", () => {
    const found: string[] = [];
    expect(
      redactUrlCredentials(
        "primary postgres://app:s3cret@db:5432/shop, replica mysql://ro:p%40ss@r/x",
        found,
      ),
    ).toBe(`primary postgres://app:${REDACTED}@db:5432/shop, replica mysql://ro:${REDACTED}@r/x`);
    expect(found).toEqual(["s3cret", "p%40ss"]);
    expect(redactUrlCredentials("https://example.com/a:b@c and mailto:x@y")).toBe(
      "https://example.com/a:b@c and mailto:x@y",
    );
  });

  it("applies inside object arguments and to string arguments alike", () => {
    expect(
      redactArguments({
        url: "redis://:hunter22@cache:6379",
        env: { DATABASE_URL: "postgres://u:pw1234@h/d" },
      }),
    ).toEqual({
      url: `redis://:${REDACTED}@cache:6379`,
      env: JSON.stringify({ DATABASE_URL: `postgres://u:${REDACTED}@h/d` }),
    });
  });
});

describe("redactValue", () => {
  it("redacts secret-named fields at any depth and collects what it took out", () => {
    const found: string[] = [];
    expect(
      redactValue({ a: { client_secret: "s3cr3t", keep: 1 }, b: [{ token: { v: "t0k3n" } }] }, found),
    ).toEqual({
      a: { client_secret: REDACTED, keep: 1 },
      b: [{ token: REDACTED }],
    });
    expect(found.sort()).toEqual(["s3cr3t", "t0k3n"]);
  });
});

describe("isSecretName", () => {
  it.each([
    "authorization",
    "Proxy-Authorization",
    "api-key",
    "api_key",
    "apikey",
    "apiKey",
    "APIKEY",
    "x-api-key",
    "X_API_KEY",
    "private_key",
    "private-key",
    "privateKey",
    "passphrase",
    "password",
    "DB_PASSWORD",
    "passwd",
    "pwd",
    "secret",
    "client_secret",
    "client-secret",
    "clientSecret",
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "X-Auth-Token",
    "csrftoken",
    "cookie",
    "Set-Cookie",
    "cookies",
    "session",
    "JSESSIONID",
    "X-Session-Id",
    "credentials",
    "aws_secret_access_key",
    "aws_access_key",
    "basic_auth",
    "jwt",
    "bearer",
  ])("treats '%s' as secret", (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each([
    "tokens_used",
    "max_tokens",
    "maxTokens",
    "token_count",
    "token_type",
    "session_timeout",
    "cookie_policy",
    "oauth_provider",
    "author",
    "access_key_id",
    "keyword",
    "sort_key",
    "city",
    "user",
    "",
    "-_-",
  ])("leaves the harmless name '%s' readable", (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});

describe("redactBody", () => {
  it("redacts secret-named fields of a JSON body at any depth, keeping the rest", () => {
    const body = JSON.stringify({
      user: "alice",
      client_secret: "s3cr3t-1",
      nested: [{ "X-Api-Key": "k3y-2", tokens_used: 5 }],
      credentials: { login: "bob", pin: "9911" },
    });
    const { text, secretValues } = redactBody(body);
    expect(JSON.parse(text)).toEqual({
      user: "alice",
      client_secret: REDACTED,
      nested: [{ "X-Api-Key": REDACTED, tokens_used: 5 }],
      credentials: REDACTED,
    });
    expect(secretValues.sort()).toEqual(["9911", "bob", "k3y-2", "s3cr3t-1"]);
  });

  it("returns a JSON body without secret fields unchanged, byte for byte", () => {
    const body = '{ "user": "alice",  "n": 1 }';
    expect(redactBody(body)).toEqual({ text: body, secretValues: [] });
  });

  it("redacts the values of secret-named form fields, decoded values included", () => {
    const { text, secretValues } = redactBody("grant_type=password&client_secret=a%2Bb&password=hunter2&x=1");
    expect(text).toBe(`grant_type=password&client_secret=${REDACTED}&password=${REDACTED}&x=1`);
    expect(secretValues).toContain("a+b");
    expect(secretValues).toContain("hunter2");
  });

  it("redacts key=value and key: value lines", () => {
    expect(redactBody("user=alice\npassphrase = open sesame\r\nCookie: c=1\nnote: hi").text).toBe(
      `user=alice\npassphrase = ${REDACTED}\r\nCookie: ${REDACTED}\nnote: hi`,
    );
  });

  it("reads a key=value line the same whatever its length: a long word is left, a long secret key redacted", () => {
    // One long word (a base64 blob): no key, left as it is.
    const blob = "QUJD".repeat(20_000);
    expect(redactBody(`${blob}\nnote: hi`).text).toBe(`${blob}\nnote: hi`);
    // A key as long, naming a secret: still a key, its value redacted, the line's \r kept.
    const key = `${"k".repeat(50_000)}_password`;
    const { text, secretValues } = redactBody(`${key}: hunter2\r\n  token =\t abc def \r\nnote: hi`);
    expect(text).toBe(`${key}: ${REDACTED}\r\n  token =\t ${REDACTED}\r\nnote: hi`);
    expect(secretValues).toEqual(["hunter2", "abc def "]);
    // Nothing after the separator: nothing to redact.
    expect(redactBody("password:\r\nx: 1").text).toBe("password:\r\nx: 1");
  });

  it("redacts key: value lines in a text with no '=' at all", () => {
    const { text, secretValues } = redactBody("note: hi\napi_key: k-123\nuser: al");
    expect(text).toBe(`note: hi\napi_key: ${REDACTED}\nuser: al`);
    expect(secretValues).toEqual(["k-123"]);
  });

  it("leaves text without key=value pairs, and an empty body, as they are", () => {
    expect(redactBody("just some words").text).toBe("just some words");
    expect(redactBody("").text).toBe("");
    expect(redactBody("{not json").text).toBe("{not json");
  });
});

describe("redactHeaders", () => {
  it.each([
    "Authorization",
    "x-api-key",
    "Api-Key",
    "X-Auth-Token",
    "bearer",
    "Cookie",
    "Set-Cookie",
    "X-Session-Id",
  ])("replaces the value of header '%s'", (key) => {
    expect(redactHeaders({ [key]: "v" })[key]).toBe(REDACTED);
  });

  it("keeps ordinary headers", () => {
    expect(redactHeaders({ "Content-Type": "application/json" })).toEqual({
      "Content-Type": "application/json",
    });
  });
});

describe("redactSecretsUri", () => {
  it("hides a set secrets URI and keeps an empty one empty", () => {
    expect(redactSecretsUri("file:///secret/x")).toBe(REDACTED);
    expect(redactSecretsUri("")).toBe("");
    expect(redactSecretsUri(undefined)).toBe("");
  });
});

describe("scrubSecrets", () => {
  it("replaces every occurrence of each secret, longest first", () => {
    expect(scrubSecrets("key abcd1234 and abcd1234xyz", ["abcd1234", "abcd1234xyz"])).toBe(
      `key ${REDACTED} and ${REDACTED}`,
    );
  });

  it("leaves values under 4 characters alone", () => {
    expect(scrubSecrets("a b c", ["a"])).toBe("a b c");
  });
});

describe("stringifyArgument", () => {
  it("turns objects and arrays into JSON and keeps strings as they are", () => {
    expect(stringifyArgument("x")).toBe("x");
    expect(stringifyArgument([1, "a"])).toBe('[1,"a"]');
    expect(stringifyArgument(1.5)).toBe("1.5");
  });
});

describe("redactToolCallEvent", () => {
  it("redacts what a producer left in a STARTED event, and is idempotent", () => {
    const started = {
      type: "started" as const,
      eventId: "e1",
      toolName: "t",
      toolType: "http",
      timestamp: "2026-01-01T00:00:00Z",
      arguments: { pwd: "hunter22", city: "Oslo" },
      headers: { Cookie: "c=1", Accept: "text/plain" },
      body: '{"private_key":"pk-1234"}',
      secretsURI: "file:///home/s.properties",
    };
    const once = redactToolCallEvent(started as never);
    expect(once).toMatchObject({
      arguments: { pwd: REDACTED, city: "Oslo" },
      headers: { Cookie: REDACTED, Accept: "text/plain" },
      body: `{"private_key":"${REDACTED}"}`,
      secretsURI: REDACTED,
    });
    expect(redactToolCallEvent(once)).toEqual(once);
    expect(started.arguments.pwd).toBe("hunter22");
  });

  it("returns COMPLETED and FAILED events as they are", () => {
    const completed = { type: "completed", eventId: "e1", isError: false, content: ["ok"], duration: 1 };
    expect(redactToolCallEvent(completed as never)).toBe(completed);
  });
});
