import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  eventually,
  type RouterProcess,
  repoRoot,
  startNode,
  startRouter,
  stopAll,
  trestleCli,
} from "../support/processes.js";
import { type MetadataRecorder, startMetadataRecorder } from "./support/capability-ports-wire.js";

/**
 * Red team, the store and registration (security issue 47, findings 5, 8, 9 and 10): what another local user can
 * read of the embedded store, whether forward secrets are in it in clear, and what a `register` token can claim
 * and where it can point the router. Two real principals (`team-a`, `team-b`) against a real router over HTTP;
 * each attack worked before the store was made private, its forward secrets encrypted, service names kept by
 * their owner and registration addresses checked.
 */

const ADMIN = "red-store-admin-0123456789abcdef";
const REGISTER_A = "red-store-register-a-0123456789ab";
const REGISTER_B = "red-store-register-b-0123456789ab";
const CALL_SECRET = "red-store-call-secret-5d2e8a";
const ARGV_CANARY = "red-store-argv-canary-71c4";
const ENV_CANARY = "red-store-env-canary-0e9b";
const FIXTURE_SERVER = join(repoRoot, "packages", "transport-mcp", "test", "fixtures", "fixture-server.mjs");
/** Probes run every second on these routers (startRouter's setting): three rounds, to be sure none came. */
const THREE_PROBE_ROUNDS_MS = 3_500;

const TOKENS = JSON.stringify([
  { name: "operator", token: ADMIN, scopes: ["admin"] },
  { name: "team-a", token: REGISTER_A, scopes: ["register"] },
  { name: "team-b", token: REGISTER_B, scopes: ["register"] },
]);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const admin = bearer(ADMIN);

function register(router: RouterProcess, token: string, host: string, port: number, serviceName = "weather") {
  return fetch(`${router.url}/api/v1/management/discovery`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(token) },
    body: JSON.stringify({ serviceName, serviceType: "tool-invoker", host, port }),
  });
}

/** Runs a command as the unprivileged user `nobody`: another local user of the machine. */
function asNobody(command: string, args: readonly string[]) {
  const run = spawnSync("runuser", ["-u", "nobody", "--", command, ...args], { encoding: "utf8" });
  return { status: run.status, stdout: run.stdout.trim(), stderr: run.stderr.trim() };
}

/** Every file under `root` that holds `text`. */
function filesHolding(root: string, text: string): string[] {
  return readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => readFileSync(path).includes(text));
}

/** A TCP listener that only counts the connections made to it: what a probe of its address would open. */
async function countingListener(): Promise<{
  port: number;
  connections: () => number;
  close(): Promise<void>;
}> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the listener has no port");
  return {
    port: address.port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const secretSeenBy = (recorder: MetadataRecorder) =>
  recorder.requests.some((r) => r.headers["x-trestle-capability-secret"] === CALL_SECRET);

afterAll(async () => {
  await stopAll();
});

describe("red team: the embedded store's files", () => {
  let root: string;
  let dataDir: string;
  let router: RouterProcess;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "trestle-red-store-"));
    // Open to every user, as a home or a project directory often is: the store must protect itself.
    chmodSync(root, 0o755);
    dataDir = join(root, "data");
    router = await startRouter(["--data-dir", dataDir], { TRESTLE_TOKENS: TOKENS });
  }, 120_000);

  afterAll(async () => {
    await stopAll();
    rmSync(root, { recursive: true, force: true });
  });

  it("another local user can neither list the data directory nor read any file in it while the router runs, nor the key beside it", () => {
    expect(existsAsNobody(root)).toBe(true);
    const readable = asNobody("find", [dataDir, "-readable"]);
    expect(readable.stdout).toBe("");
    expect(asNobody("ls", [dataDir]).status).not.toBe(0);
    expect(asNobody("cat", [join(dataDir, "global", "pg_control")]).status).not.toBe(0);
    expect(asNobody("cat", [join(root, "data.key")]).status).not.toBe(0);
    // Checked from inside too: every directory 0700, every file 0600, PostgreSQL's own as well as PGlite's.
    const open = readdirSync(dataDir, { withFileTypes: true, recursive: true })
      .map((entry) => ({ path: join(entry.parentPath, entry.name), directory: entry.isDirectory() }))
      .filter(({ path, directory }) => (statSync(path).mode & 0o777) !== (directory ? 0o700 : 0o600));
    expect(open).toEqual([]);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });

  it("a forward's arguments and environment are nowhere in clear in the data directory's files", async () => {
    const response = await fetch(`${router.url}/api/v1/forwards`, {
      method: "POST",
      headers: { "content-type": "application/json", ...admin },
      body: JSON.stringify({
        name: "vault",
        upstream: {
          kind: "stdio",
          command: process.execPath,
          args: [FIXTURE_SERVER, `--token=${ARGV_CANARY}`],
          env: { FIXTURE_SECRET: ENV_CANARY },
          // The fixture loads the MCP SDK from the repository: its directory is visible (read-only) in the sandbox.
          cwd: repoRoot,
        },
      }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    // Stopped, so that everything it wrote is on disk (WAL, tables, checkpoints).
    expect(await router.stop()).toBe(0);
    expect(filesHolding(dataDir, ARGV_CANARY)).toEqual([]);
    expect(filesHolding(dataDir, ENV_CANARY)).toEqual([]);
  }, 60_000);

  it("a data directory opened to other users stops the router with the fix in one sentence; made private again, the forward comes back", async () => {
    chmodSync(dataDir, 0o755);
    const refused = startNode(trestleCli, ["serve", "--port", "0", "--data-dir", dataDir], {
      TRESTLE_TOKENS: TOKENS,
    });
    const code = await new Promise<number | null>((resolve) => {
      if (refused.child.exitCode !== null) resolve(refused.child.exitCode);
      refused.child.once("exit", (c) => resolve(c));
      setTimeout(() => resolve(-1), 60_000);
    });
    const output = refused.lines.join("\n");
    await refused.stop(1_000);
    expect(code, output).toBe(2);
    expect(output).toContain(`The data directory ${dataDir} is open to other users (mode 0755)`);
    expect(output).toContain(`chmod -R go-rwx ${dataDir}`);
    expect(output).not.toContain('"router listening"');

    chmodSync(dataDir, 0o700);
    const again = await startRouter(["--data-dir", dataDir], { TRESTLE_TOKENS: TOKENS });
    const forward = await eventually(
      async () => {
        const views = await api<{ name: string; status: { state: string } }[]>(
          again.url,
          "GET",
          "/api/v1/forwards",
          undefined,
          admin,
        );
        return views.find((v) => v.name === "vault" && v.status.state === "ready");
      },
      30_000,
      "the encrypted forward ready after the restart",
    );
    expect(JSON.stringify(forward)).not.toContain(ENV_CANARY);
  }, 120_000);
});

/** True when `nobody` can enter the directory: the attack in these tests needs the parent open. */
function existsAsNobody(directory: string): boolean {
  return asNobody("test", ["-x", directory]).status === 0;
}

describe("red team: registration by another principal", () => {
  const recorders: MetadataRecorder[] = [];
  afterEach(async () => {
    await stopAll();
    await Promise.all(recorders.splice(0).map((r) => r.close()));
  });

  async function recorder(): Promise<MetadataRecorder> {
    const started = await startMetadataRecorder();
    recorders.push(started);
    return started;
  }

  it("team-b cannot claim a name the configuration gives team-a, even before team-a registers, and never gets its call secret", async () => {
    const router = await startRouter([], {
      TRESTLE_TOKENS: TOKENS,
      TRESTLE_SERVICES: JSON.stringify({ weather: { principal: "team-a", callSecret: CALL_SECRET } }),
      TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "127.0.0.0/8",
    });
    const b = await recorder();
    expect((await register(router, REGISTER_B, "127.0.0.1", b.port)).status).toBe(403);
    const a = await recorder();
    expect((await register(router, REGISTER_A, "127.0.0.1", a.port)).status).toBe(200);
    await eventually(() => secretSeenBy(a), 15_000, "team-a's instance probed with its call secret");
    await new Promise((r) => setTimeout(r, THREE_PROBE_ROUNDS_MS));
    expect(b.requests).toEqual([]);
  });

  it("team-b cannot take over a name team-a held once its instances went stale or were deregistered, and never gets team-a's call secret", async () => {
    const router = await startRouter([], {
      TRESTLE_TOKENS: TOKENS,
      TRESTLE_SERVICES: JSON.stringify({ weather: { callSecret: CALL_SECRET } }),
      TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "127.0.0.0/8",
    });
    const a = await recorder();
    const registered = await register(router, REGISTER_A, "127.0.0.1", a.port);
    expect(registered.status).toBe(200);
    const { id } = ((await registered.json()) as { data: { id: string } }).data;
    await eventually(() => secretSeenBy(a), 15_000, "team-a's instance probed with its call secret");

    // team-a's capability is gone; the operator's stale cleanup removes its instance.
    await a.close();
    recorders.splice(recorders.indexOf(a), 1);
    const removed = await api<{ id: string }[]>(
      router.url,
      "DELETE",
      "/api/v1/capabilities/stale?olderThanMs=0",
      undefined,
      admin,
    );
    expect(removed.map((s) => s.id)).toContain(id);

    const b = await recorder();
    expect((await register(router, REGISTER_B, "127.0.0.1", b.port)).status).toBe(403);

    // The same after a deregistration: team-a comes back, leaves, and team-b still cannot step in.
    const a2 = await recorder();
    const back = await register(router, REGISTER_A, "127.0.0.1", a2.port);
    expect(back.status).toBe(200);
    const backId = ((await back.json()) as { data: { id: string } }).data.id;
    const gone = await fetch(`${router.url}/api/v1/management/discovery`, {
      method: "DELETE",
      headers: { "content-type": "application/json", ...bearer(REGISTER_A) },
      body: JSON.stringify({ id: backId }),
    });
    expect(gone.status).toBe(200);
    expect((await register(router, REGISTER_B, "127.0.0.1", b.port)).status).toBe(403);

    await new Promise((r) => setTimeout(r, THREE_PROBE_ROUNDS_MS));
    expect(secretSeenBy(b)).toBe(false);
    expect(b.requests).toEqual([]);
  });

  it("a register token cannot point the router at metadata, loopback or private addresses, and nothing there is probed", async () => {
    const router = await startRouter([], { TRESTLE_TOKENS: TOKENS });
    const listener = await countingListener();
    try {
      for (const host of ["169.254.169.254", "127.0.0.1", "10.255.255.1", "localhost", "::ffff:127.0.0.1"]) {
        const response = await register(
          router,
          REGISTER_B,
          host,
          listener.port,
          `probe-${host.replace(/[.:]/g, "-")}`,
        );
        const body = await response.text();
        expect(response.status, `${host}: ${body}`).toBe(403);
        expect(body, host).toMatch(/address, which registrations by 'team-b' may not use/);
      }
      await new Promise((r) => setTimeout(r, THREE_PROBE_ROUNDS_MS));
      expect(listener.connections()).toBe(0);
      const listed = await api<{ target: { serviceName: string } }[]>(
        router.url,
        "GET",
        "/api/v1/capabilities",
        undefined,
        admin,
      );
      expect(listed).toEqual([]);

      // The listener does count probes: an operator's registration of the same address is probed.
      expect((await register(router, ADMIN, "127.0.0.1", listener.port, "operators-own")).status).toBe(200);
      await eventually(() => listener.connections() > 0, 15_000, "the operator's service probed");
    } finally {
      await listener.close();
    }
  });

  it("an instance registered at loopback while the operator allowed it is no longer probed once that is withdrawn", async () => {
    const root = mkdtempSync(join(tmpdir(), "trestle-red-registration-"));
    const listener = await countingListener();
    try {
      const dataDir = join(root, "data");
      const allowing = await startRouter(["--data-dir", dataDir], {
        TRESTLE_TOKENS: TOKENS,
        TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "127.0.0.0/8",
      });
      expect((await register(allowing, REGISTER_B, "127.0.0.1", listener.port)).status).toBe(200);
      await eventually(() => listener.connections() > 0, 15_000, "the allowed instance probed");
      expect(await allowing.stop()).toBe(0);

      const strict = await startRouter(["--data-dir", dataDir], { TRESTLE_TOKENS: TOKENS });
      const before = listener.connections();
      const refused = await eventually(
        async () => {
          const listed = await api<{ health: string; healthMessage?: string }[]>(
            strict.url,
            "GET",
            "/api/v1/capabilities",
            undefined,
            admin,
          );
          return listed.find((s) => s.health === "unhealthy" && s.healthMessage?.startsWith("Not probed"));
        },
        15_000,
        "the instance refused by the prober",
      );
      expect(refused.healthMessage).toMatch(/127\.0\.0\.1 is a loopback address/);
      await new Promise((r) => setTimeout(r, THREE_PROBE_ROUNDS_MS));
      expect(listener.connections()).toBe(before);
    } finally {
      await listener.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
