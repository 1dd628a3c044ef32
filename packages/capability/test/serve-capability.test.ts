import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ToolInvoker } from "@trestle/proto";
import {
  buildIfStale,
  type FakeRouter,
  type ServiceProcess,
  startFakeRouter,
  startServiceProcess,
} from "@trestle/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServiceCommandLine, serviceUsage } from "../src/index.js";

const GREETER = resolve("test/support/greeter-service.mjs");
const TOKEN = "serve-capability-router-token";
const SECRET = "serve-capability-call-secret";
const DISCOVERY = "/api/v1/management/discovery";

let home: string;
let router: FakeRouter;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  for (const dependency of ["../proto", "../core", "."]) await buildIfStale(dependency);
  home = mkdtempSync(join(tmpdir(), "trestle-serve-capability-"));
  router = await startFakeRouter(TOKEN);
}, 120_000);

afterAll(async () => {
  await service?.stop(1_000);
  await router?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** Runs the greeter to its end (for the command lines that never start it). */
function runGreeter(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [GREETER, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
    timeout: 15_000,
  });
}

describe("serveCapability, as a program", () => {
  it("prints its ready line, registers each registration with the token, heartbeats, and on SIGTERM deregisters and exits 0", async () => {
    service = await startServiceProcess(GREETER, ["--greeting", "Howdy", "--home", home], {
      TRESTLE_ROUTER_URL: router.url,
      TRESTLE_ROUTER_TOKEN: TOKEN,
      TRESTLE_CAPABILITY_SECRET: SECRET,
    });
    expect(service.ready).toEqual({
      event: "ready",
      service: "greeter",
      host: "127.0.0.1",
      port: service.ready.port,
      languages: ["en", "fr"],
    });
    expect(service.ready.port).toBeGreaterThan(0);

    for (const language of ["en", "fr"]) {
      const registration = await router.waitFor(
        (r) => r.method === "POST" && r.path === DISCOVERY && JSON.parse(r.body).languageName === language,
      );
      expect(registration.authorization).toBe(`Bearer ${TOKEN}`);
      expect(JSON.parse(registration.body)).toMatchObject({
        id: null,
        serviceName: "greeter",
        serviceType: "tool-invoker",
        host: "127.0.0.1",
        port: service.ready.port,
      });
    }
    const ids = [...router.services.keys()];
    expect(ids).toHaveLength(2);
    // The two registrations race: which id the router gave to which language is only known from the router.
    const englishId = [...router.services].find(([, target]) => target.languageName === "en")?.[0];
    for (const id of ids) {
      await router.waitFor((r) => r.path === `${DISCOVERY}/heartbeats` && r.body === id, 5_000);
    }

    // Each registration keeps its own id in its own file under the home (written before
    // the first heartbeat).
    expect(readFileSync(join(home, "service-en.id"), "utf8").trim()).toMatch(/^svc-\d$/);
    expect(existsSync(join(home, "service-fr.id"))).toBe(true);
    // The flags reached the handlers, and the call secret from the environment guards every call.
    const client = createClient(
      ToolInvoker,
      createConnectTransport({ baseUrl: `http://127.0.0.1:${service.ready.port}`, httpVersion: "1.1" }),
    );
    const withSecret = { headers: { "x-trestle-capability-secret": SECRET } };
    expect((await client.invokeTool({ arguments: { name: "Ada" } }, withSecret)).content).toEqual([
      "Howdy, Ada!",
    ]);
    const refused = await client.invokeTool({ arguments: { name: "Ada" } }).catch((e: unknown) => e);
    expect(ConnectError.from(refused).code).toBe(Code.Unauthenticated);

    expect(await service.stop()).toBe(0);
    for (const id of ids) {
      const deregistration = await router.waitFor(
        (r) => r.method === "DELETE" && JSON.parse(r.body).id === id,
      );
      expect(deregistration.authorization).toBe(`Bearer ${TOKEN}`);
    }
    expect(router.services.size).toBe(0);

    // One JSON line per registration event on stderr, naming the registration's own fields, never a credential.
    const lines = service
      .stderr()
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual({
      event: "registration",
      service: "greeter",
      language: "en",
      type: "registered",
      id: englishId,
      again: false,
    });
    expect(
      lines
        .filter((line) => line.type === "deregistered")
        .map((line) => line.language)
        .sort(),
    ).toEqual(["en", "fr"]);
    expect(service.stderr()).not.toContain(TOKEN);
    expect(service.stderr()).not.toContain(SECRET);
  });

  it("refuses a bad command line with its message and usage on stderr, exit 2", () => {
    const run = runGreeter(["--no-such-flag"]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^greeter: .*--no-such-flag/);
    expect(run.stderr).toContain("Usage: greeter [options]");

    const malformed = runGreeter(["--port", "eighty"]);
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toContain("--port must be an integer of at least 0");
  });

  it("prints its usage on stdout for --help, exit 0, the service's own flags with the standard ones", () => {
    const run = runGreeter(["--help"]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("Usage: greeter [options]");
    expect(run.stdout).toMatch(/--router URL +register with this router/);
    expect(run.stdout).toMatch(/--greeting TEXT +what to say, default Hello/);
    expect(run.stdout).toContain("TRESTLE_CAPABILITY_SECRET only");
  });

  it("says it could not start, exit 1, when its handlers refuse, and prints no ready line", () => {
    const run = runGreeter(["--refuse-to-start", "--home", home]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`greeter: could not start: refusing to start in ${home}\n`);
  });
});

describe("parseServiceCommandLine", () => {
  const commandLine = {
    program: "demo",
    defaultHome: "./.trestle/services/demo",
    flags: {
      tag: { type: "string", multiple: true, placeholder: "TAG", description: "tags" },
      limit: { type: "integer", min: 1, placeholder: "N", description: "limit" },
      quiet: { type: "boolean", description: "quiet" },
    },
  } as const;

  it("reads the standard options, flags over the environment, and credentials from the environment only", () => {
    const parsed = parseServiceCommandLine(commandLine, ["--port", "7000", "--router", "http://flag"], {
      TRESTLE_ROUTER_URL: "http://env",
      TRESTLE_SERVICE_HOST: "0.0.0.0",
      TRESTLE_SERVICE_PORT: "9000",
      TRESTLE_ROUTER_TOKEN: TOKEN,
      TRESTLE_CAPABILITY_SECRET: SECRET,
    });
    expect(parsed).toEqual({
      standard: {
        host: "0.0.0.0",
        port: 7000,
        routerUrl: "http://flag",
        routerToken: TOKEN,
        callSecret: SECRET,
      },
      flags: { tag: undefined, limit: undefined, quiet: undefined },
    });
    expect(parseServiceCommandLine(commandLine, [], {})).toEqual({
      standard: { host: "127.0.0.1", port: 0 },
      flags: { tag: undefined, limit: undefined, quiet: undefined },
    });
    expect(() => parseServiceCommandLine(commandLine, ["--router-token", TOKEN], {})).toThrow();
    expect(() => parseServiceCommandLine(commandLine, ["--call-secret", SECRET], {})).toThrow();
  });

  it("reads the service's own flags by their type", () => {
    const parsed = parseServiceCommandLine(
      commandLine,
      ["--tag", "a", "--tag", "b", "--limit", "3", "--quiet", "--home", "/h", "--advertise-host", "svc"],
      {},
    );
    expect(parsed).toMatchObject({
      standard: { home: "/h", advertiseHost: "svc" },
      flags: { tag: ["a", "b"], limit: 3, quiet: true },
    });
    expect(() => parseServiceCommandLine(commandLine, ["--limit", "0"], {})).toThrow(
      "--limit must be an integer of at least 1",
    );
    expect(() => parseServiceCommandLine(commandLine, ["positional"], {})).toThrow();
    expect(parseServiceCommandLine(commandLine, ["-h"], {})).toBe("help");
    expect(serviceUsage(commandLine)).toMatch(/--tag TAG +tags/);
  });
});
