import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { DEFAULT_TOKEN_RATE_LIMIT, effectiveRateLimit, resolveConfig } from "../src/config.js";
import { renderConfigReference } from "../src/config-reference.js";

describe("configuration", () => {
  it("layers defaults, file, environment and flags, later winning", () => {
    const config = resolveConfig({
      file: { port: 1000, host: "0.0.0.0", allowedHosts: ["a.example"] },
      env: { TRESTLE_PORT: "2000", TRESTLE_STATELESS: "true", TRESTLE_ALLOWED_HOSTS: "b.example, c.example" },
      flags: { port: "3000" },
    });
    expect(config.port).toBe(3000);
    expect(config.host).toBe("0.0.0.0");
    expect(config.stateless).toBe(true);
    expect(config.allowedHosts).toEqual(["b.example", "c.example"]);
    expect(config.unaryTimeoutMs).toBe(10_000);
  });

  it("keeps A2A tasks 7 days unless told otherwise", () => {
    expect(resolveConfig({}).a2aTaskRetentionMs).toBe(7 * 24 * 60 * 60_000);
    expect(resolveConfig({ env: { TRESTLE_A2A_TASK_RETENTION_MS: "3600000" } }).a2aTaskRetentionMs).toBe(
      3_600_000,
    );
  });

  it.each([
    [{ file: { port: 70_000 } }, "port"],
    [{ file: { colour: "blue" } }, "Unknown config key(s): colour"],
    [{ env: { TRESTLE_PORT: "eighty" } }, "TRESTLE_PORT"],
    [{ env: { TRESTLE_STATELESS: "maybe" } }, "TRESTLE_STATELESS"],
    [{ env: { TRESTLE_TOKENS: '[{"name":"x","token":"short","scopes":["mcp"]}]' } }, "at least 16"],
    [{ env: { TRESTLE_TOKENS: "{not json" } }, "TRESTLE_TOKENS"],
    [{ env: { TRESTLE_A2A_TASK_RETENTION_MS: "1000" } }, "at least 60000 ms"],
    [
      {
        file: {
          tokens: [{ name: "ops", token: "0123456789abcdef-ops", scopes: ["admin"] }],
          forwardHeaders: ["Authorization", "x-tenant"],
        },
      },
      "forwardHeaders: authorization carries the client's token",
    ],
  ])("refuses %j with a message naming the problem", (sources, mention) => {
    try {
      resolveConfig(sources);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TrestleError);
      expect((error as TrestleError).code).toBe(Code.InvalidArgument);
      expect((error as TrestleError).rawMessage).toContain(mention);
    }
  });

  it("lets authorization be forwarded only on a router without tokens", () => {
    expect(resolveConfig({ file: { forwardHeaders: ["authorization"] } }).forwardHeaders).toEqual([
      "authorization",
    ]);
  });

  it("limits every token's rate by default once tokens are configured, and none without tokens", () => {
    const tokens = [{ name: "ops", token: "0123456789abcdef-ops", scopes: ["admin"] }];
    expect(effectiveRateLimit(resolveConfig({}))).toBeUndefined();
    expect(effectiveRateLimit(resolveConfig({ file: { tokens } }))).toEqual(DEFAULT_TOKEN_RATE_LIMIT);
    expect(effectiveRateLimit(resolveConfig({ file: { tokens, rateLimit: false } }))).toBeUndefined();
    expect(
      effectiveRateLimit(resolveConfig({ file: { tokens }, env: { TRESTLE_RATE_LIMIT: "off" } })),
    ).toBeUndefined();
    expect(
      effectiveRateLimit(resolveConfig({ file: { tokens, rateLimit: { requestsPerSecond: 5, burst: 10 } } })),
    ).toEqual({ requestsPerSecond: 5, burst: 10 });
  });

  it("divides the rate limit among the workers, each of which counts its own requests", () => {
    const tokens = [{ name: "ops", token: "0123456789abcdef-ops", scopes: ["admin"] }];
    expect(
      effectiveRateLimit(
        resolveConfig({
          file: {
            tokens,
            workers: 4,
            databaseUrl: "postgres://x/y",
            rateLimit: { requestsPerSecond: 100, burst: 10 },
          },
        }),
      ),
    ).toEqual({ requestsPerSecond: 25, burst: 3 });
  });

  it("reads secret settings from the files their _FILE variables name", () => {
    const dir = mkdtempSync(join(tmpdir(), "trestle-config-"));
    try {
      const tokens = join(dir, "tokens.json");
      const secret = join(dir, "session");
      writeFileSync(
        tokens,
        JSON.stringify([{ name: "ops", token: "a-token-of-sixteen+", scopes: ["admin"] }]),
      );
      writeFileSync(secret, `${"s".repeat(40)}\n`);
      const config = resolveConfig({
        env: { TRESTLE_TOKENS_FILE: tokens, TRESTLE_SESSION_SECRET_FILE: secret },
      });
      expect(config.tokens.map((t) => t.name)).toEqual(["ops"]);
      expect(config.sessionSecret).toBe("s".repeat(40));
      expect(() => resolveConfig({ env: { TRESTLE_TOKENS_FILE: tokens, TRESTLE_TOKENS: "[]" } })).toThrow(
        "Set TRESTLE_TOKENS or TRESTLE_TOKENS_FILE, not both",
      );
      expect(() => resolveConfig({ env: { TRESTLE_DATABASE_URL_FILE: join(dir, "missing") } })).toThrow(
        /TRESTLE_DATABASE_URL_FILE: cannot read .*missing \(ENOENT\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("caps per-call forward processes at 8 unless told otherwise", () => {
    expect(resolveConfig({}).forwardMaxPerCallProcesses).toBe(8);
    expect(
      resolveConfig({ env: { TRESTLE_FORWARD_MAX_PER_CALL_PROCESSES: "2" } }).forwardMaxPerCallProcesses,
    ).toBe(2);
  });

  it("never echoes a token in a validation error", () => {
    const token = "short-canary";
    try {
      resolveConfig({ env: { TRESTLE_TOKENS: JSON.stringify([{ name: "x", token, scopes: ["mcp"] }]) } });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain(token);
    }
  });

  it("reads the secrets keys and the registration networks, and checks them together", () => {
    const key = "a-secrets-key-of-more-than-32-characters";
    const old = "an-older-secrets-key-of-32-characters!!";
    const config = resolveConfig({
      env: {
        TRESTLE_SECRETS_KEY: key,
        TRESTLE_PREVIOUS_SECRETS_KEYS: old,
        TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "10.0.0.0/8, fd00::/8",
        TRESTLE_TOKENS: JSON.stringify([
          { name: "weather-team", token: "weather-token-0123456789", scopes: ["register"] },
        ]),
        TRESTLE_SERVICES: JSON.stringify({
          weather: { principal: "weather-team", allowedNetworks: ["127.0.0.1"] },
        }),
      },
    });
    expect(config.secretsKey).toBe(key);
    expect(config.previousSecretsKeys).toEqual([old]);
    expect(config.registrationAllowedNetworks).toEqual(["10.0.0.0/8", "fd00::/8"]);
    expect(config.services.weather).toEqual({ principal: "weather-team", allowedNetworks: ["127.0.0.1"] });
    expect(resolveConfig({}).registrationAllowedNetworks).toEqual([]);
  });

  it.each([
    [{ env: { TRESTLE_SECRETS_KEY: "short-secrets-key-canary" } }, "at least 32 characters"],
    [
      { env: { TRESTLE_SECRETS_KEY: "x".repeat(32), TRESTLE_SECRETS_KEY_FILE: "/etc/trestle/key" } },
      "secretsKeyFile: give secretsKey or secretsKeyFile, not both",
    ],
    [
      { env: { TRESTLE_PREVIOUS_SECRETS_KEYS: "y".repeat(32) } },
      "previousSecretsKeys: previous secrets keys need",
    ],
    [
      { env: { TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "intranet" } },
      "registrationAllowedNetworks.0: must be an IP",
    ],
    [
      { file: { services: { weather: { allowedNetworks: ["10.0.0.0/40"] } } } },
      "services.weather.allowedNetworks.0",
    ],
    [
      { file: { services: { weather: { principal: "nobody-configured" } } } },
      "no token is named 'nobody-configured'",
    ],
  ])("refuses %j, naming the key", (sources, mention) => {
    try {
      resolveConfig(sources);
      expect.unreachable();
    } catch (error) {
      expect((error as TrestleError).code).toBe(Code.InvalidArgument);
      expect((error as TrestleError).rawMessage).toContain(mention);
      expect((error as TrestleError).rawMessage).not.toContain("short-secrets-key-canary");
    }
  });

  it("is documented in the server README exactly as the schema says (regenerate with `pnpm --filter @trestle/server docs`)", () => {
    const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
    const start = readme.indexOf("<!-- config-reference:start -->");
    const end = readme.indexOf("<!-- config-reference:end -->");
    expect(start).toBeGreaterThan(0);
    expect(readme.slice(start + "<!-- config-reference:start -->".length, end).trim()).toBe(
      renderConfigReference(),
    );
  });
});
