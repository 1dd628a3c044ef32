import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createBuiltinLauncher, unshareArguments } from "../src/builtin-confinement.js";
import { forwardSandboxOptions } from "../src/root/forward-sandbox.js";
import { ROUTER_SECRET_VARIABLES, takeSecretVariables } from "../src/router-secrets.js";

describe("the router's secrets leave its environment", () => {
  it("takes every secret variable out of the environment and hands them back", () => {
    const env: NodeJS.ProcessEnv = {
      PATH: "/usr/bin",
      TRESTLE_TOKENS: "[]",
      TRESTLE_SESSION_SECRET: "s",
      TRESTLE_DATABASE_URL: "postgres://u:p@h/d",
      TRESTLE_SERVICES: "{}",
      TRESTLE_TOKENS_FILE: "/run/secrets/tokens",
      TRESTLE_TOKEN: "client",
      TRESTLE_PORT: "8080",
    };
    const taken = takeSecretVariables(env);
    expect(env).toEqual({ PATH: "/usr/bin", TRESTLE_PORT: "8080" });
    expect(Object.keys(taken).sort()).toEqual(
      [
        "TRESTLE_DATABASE_URL",
        "TRESTLE_SERVICES",
        "TRESTLE_SESSION_SECRET",
        "TRESTLE_TOKEN",
        "TRESTLE_TOKENS",
        "TRESTLE_TOKENS_FILE",
      ].sort(),
    );
    expect(ROUTER_SECRET_VARIABLES).toContain("TRESTLE_SESSION_SECRET_FILE");
  });
});

describe("the built-ins start in a PID namespace of their own", () => {
  it("maps a router that is not root to itself, and leaves root root", () => {
    expect(unshareArguments(true)).toEqual(["--pid", "--fork", "--mount-proc", "--kill-child"]);
    expect(unshareArguments(false)[0]).toBe("--map-current-user");
  });

  it("starts a program where the router's process is not visible", () => {
    const launcher = createBuiltinLauncher();
    expect(launcher.confined).toBe(true);
    const { file, args } = launcher.command("/bin/sh", ["-c", "ls /proc | grep -c '^[0-9]'"]);
    const seen = spawnSync(file, args, { encoding: "utf8" });
    // The shell and ls: this process, the router here, is not among them.
    expect(Number(seen.stdout.trim())).toBeLessThanOrEqual(3);
    const here = spawnSync(
      file,
      [...args.slice(0, -1), `test -e /proc/${process.pid}/environ && echo seen`],
      {
        encoding: "utf8",
      },
    );
    expect(here.stdout).toBe("");
  });

  it("says why it cannot, and starts programs as they are", () => {
    const launcher = createBuiltinLauncher({ unsharePath: "/nonexistent/unshare" });
    expect(launcher.confined).toBe(false);
    expect(launcher.reason).toBe("/nonexistent/unshare does not exist (Debian package util-linux)");
    expect(launcher.command("/bin/sh", ["-c", "true"])).toEqual({ file: "/bin/sh", args: ["-c", "true"] });
  });
});

describe("the forwards' sandbox", () => {
  const logger = pino({ level: "silent" });
  const base = {
    dataDir: ".trestle/data",
    memoryStore: false,
    forwardHomesDir: undefined,
    tlsCaFile: undefined,
    tlsCertFile: undefined,
    tlsKeyFile: "/etc/trestle/client.key",
  };

  it("keeps homes beside the data, hides the router's files, and keeps nothing for an in-memory router", () => {
    const options = forwardSandboxOptions(base, ["/etc/trestle/trestle.yaml"], logger);
    expect(options.homesDirectory).toBe(resolve(".trestle/forwards"));
    expect(options.hiddenPaths).toEqual([
      resolve(".trestle/data"),
      "/etc/trestle/client.key",
      "/etc/trestle/trestle.yaml",
    ]);
    expect(forwardSandboxOptions({ ...base, memoryStore: true }, [], logger).homesDirectory).toBeUndefined();
    expect(
      forwardSandboxOptions({ ...base, memoryStore: true, forwardHomesDir: "/var/lib/homes" }, [], logger)
        .homesDirectory,
    ).toBe("/var/lib/homes");
  });
});
