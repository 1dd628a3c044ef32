import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";

const tokenExchange = {
  tokenEndpoint: "https://idp.example/token",
  clientId: "trestle",
  clientSecret: "client-secret-canary",
  audience: "payments",
};
const oauth = { issuers: [{ issuer: "https://idp.example" }] };

describe("services.<name>.upstreamAuth", () => {
  it("refuses a token exchange on a router without OAuth: no caller would have a token to exchange", () => {
    expect(() =>
      resolveConfig({ file: { services: { payments: { upstreamAuth: { tokenExchange } } } } }),
    ).toThrow(/services\.payments\.upstreamAuth\.tokenExchange: needs oauth/);
    const config = resolveConfig({
      file: {
        publicUrl: "https://mcp.example",
        oauth,
        services: { payments: { upstreamAuth: { tokenExchange } } },
      },
    });
    expect(config.services.payments?.upstreamAuth).toEqual({ tokenExchange });
  });

  it("reads a static credential from the services file, the header defaulting to authorization", () => {
    const dir = mkdtempSync(join(tmpdir(), "trestle-upstream-auth-"));
    try {
      const path = join(dir, "services.json");
      writeFileSync(
        path,
        JSON.stringify({ ledger: { upstreamAuth: { static: { value: "Bearer from-file" } } } }),
      );
      const config = resolveConfig({ env: { TRESTLE_SERVICES_FILE: path } });
      expect(config.services.ledger?.upstreamAuth).toEqual({
        static: { header: "authorization", value: "Bearer from-file" },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a token endpoint over plain http off loopback, and an unknown kind", () => {
    expect(() =>
      resolveConfig({
        file: {
          publicUrl: "https://mcp.example",
          oauth,
          services: {
            payments: {
              upstreamAuth: { tokenExchange: { ...tokenExchange, tokenEndpoint: "http://idp.example/t" } },
            },
          },
        },
      }),
    ).toThrow(/https URL/);
    expect(() => resolveConfig({ file: { services: { p: { upstreamAuth: { bearer: "x" } } } } })).toThrow(
      /upstreamAuth/,
    );
  });
});
