import type { TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { parseTransportFlags } from "../src/config-transports.js";

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as TrestleError).rawMessage;
  }
  throw new Error("expected a refusal");
}

describe("transport plugin configuration", () => {
  it("has no plugins by default", () => {
    const config = resolveConfig({});
    expect(config.transports).toEqual({});
    expect(config.transportPluginDirectory).toBeUndefined();
  });

  it("reads transports from the file, TRESTLE_TRANSPORTS and TRESTLE_TRANSPORT_PLUGIN_DIR", () => {
    const fromFile = resolveConfig({
      file: { transports: { "http-json": { package: "@acme/http-json", options: { unaryTimeoutMs: 5 } } } },
    });
    expect(fromFile.transports["http-json"]).toEqual({
      package: "@acme/http-json",
      options: { unaryTimeoutMs: 5 },
    });
    const fromEnv = resolveConfig({
      env: {
        TRESTLE_TRANSPORTS: JSON.stringify({ soap: { package: "soap-transport" } }),
        TRESTLE_TRANSPORT_PLUGIN_DIR: "/opt/trestle-plugins",
      },
    });
    expect(fromEnv.transports).toEqual({ soap: { package: "soap-transport" } });
    expect(fromEnv.transportPluginDirectory).toBe("/opt/trestle-plugins");
  });

  it("lets --transport name a protocol's package and keeps the options configured for it", () => {
    const config = resolveConfig({
      file: { transports: { "http-json": { package: "old-package", options: { a: 1 } } } },
      flags: { transports: parseTransportFlags(["http-json=new-package", "soap=soap-transport"]) },
    });
    expect(config.transports).toEqual({
      "http-json": { package: "new-package", options: { a: 1 } },
      soap: { package: "soap-transport" },
    });
  });

  it("refuses a --transport value that is not protocol=package", () => {
    expect(() => parseTransportFlags(["http-json"])).toThrow(/--transport needs PROTOCOL=PACKAGE/);
    expect(() => parseTransportFlags(["=pkg"])).toThrow(/not '=pkg'/);
    expect(() => parseTransportFlags(["x="])).toThrow(/not 'x='/);
  });

  it.each(["grpc", "connect", "mcp", "a2a"])(
    "refuses the built-in protocol name %s with a sentence",
    (name) => {
      const message = refusal(() => resolveConfig({ file: { transports: { [name]: { package: "x" } } } }));
      expect(message).toContain(`transports.${name}: '${name}' is a protocol the router speaks itself`);
    },
  );

  it.each(["Http", "1abc", "with space", "a".repeat(33)])("refuses the protocol name %j", (name) => {
    const message = refusal(() => resolveConfig({ file: { transports: { [name]: { package: "x" } } } }));
    expect(message).toContain("is not a protocol name");
  });

  it.each(["./local", "/abs/path", "file:///x", "https://example.com/x.js", "Upper"])(
    "refuses %j as a package: only installed packages load",
    (name) => {
      const message = refusal(() => resolveConfig({ file: { transports: { x: { package: name } } } }));
      expect(message).toContain("transports.x.package: must be an npm package name");
    },
  );

  it("refuses unknown keys of a plugin entry", () => {
    expect(
      refusal(() => resolveConfig({ file: { transports: { x: { package: "p", option: {} } } } })),
    ).toMatch(/transports\.x/);
  });

  it("accepts a service whose protocol names a plugin", () => {
    const config = resolveConfig({
      file: {
        transports: { "http-json": { package: "p" } },
        services: { weather: { protocol: "http-json" } },
      },
    });
    expect(config.services.weather?.protocol).toBe("http-json");
  });
});
