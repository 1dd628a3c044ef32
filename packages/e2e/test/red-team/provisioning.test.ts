import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMcpSession, resultText } from "../reliability/support/mcp-session.js";
import { eventually } from "../support/processes.js";
import {
  adminCall,
  RED_MCP,
  startRouterIn,
  type WorkingDirectoryRouter,
} from "./support/provisioning-router.js";

/**
 * Red team, provisioning: a router started as a new user would (`trestle serve --builtins` in a project
 * directory, no `--root`, the default data directory), with an admin and an mcp token. Each test is an attack
 * that worked before provisioning was keyed by identity, checked before it wrote, and confined to the
 * provisioning root, and before the file service refused the router's own state.
 */

const ORIGINAL = "ORIGINAL-SECRET-6c1f0e";
const EVIL = "ATTACKER-SECRET-93ad21";
const OUTSIDE = "OUTSIDE-CANARY-57be04";
const VAULT = "VAULT-SECRET-0d77a9";

/** Every regular file under `dir` (recursively) whose text contains `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (readFileSync(path, "utf8").includes(needle)) found.push(path);
  }
  return found;
}

describe("red team: provisioning writes nothing before it is accepted and stays in its root", () => {
  const project = mkdtempSync(join(tmpdir(), "trestle-red-prov-"));
  const outside = mkdtempSync(join(tmpdir(), "trestle-red-outside-"));
  const httpHome = join(project, ".trestle", "services", "http");
  const fileHome = join(project, ".trestle", "services", "file");
  let router: WorkingDirectoryRouter;
  let upstream: Server;
  let upstreamUrl: string;
  const upstreamSaw: string[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      upstreamSaw.push(`${req.url} ${JSON.stringify(req.headers)}`);
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    writeFileSync(join(project, "notes.txt"), "project notes\n");
    writeFileSync(join(outside, "leak.properties"), `query.stolen=${OUTSIDE}\n`);

    router = await startRouterIn(project, ["--builtins", "--builtin-arg", "http=--allow-private"]);
    await eventually(
      async () => {
        const { data } = await adminCall<{ health: string; target: { serviceName: string } }[]>(
          router.url,
          "GET",
          "/api/v1/capabilities",
        );
        const healthy = new Set(data.filter((s) => s.health === "healthy").map((s) => s.target.serviceName));
        return healthy.has("http") && healthy.has("file") ? true : undefined;
      },
      60_000,
      "built-ins healthy",
    );
  }, 120_000);

  afterAll(async () => {
    await router?.stop();
    await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
    rmSync(project, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it("a refused resource payload does not overwrite the secret file of the resource it collides with", async () => {
    const resource = {
      name: "ledger",
      type: "file",
      location: pathToFileURL(join(project, "notes.txt")).href,
    };
    const created = await adminCall(router.url, "POST", "/api/v1/resources/payloads", {
      payload: resource,
      secretsData: `password=${ORIGINAL}`,
    });
    expect(created.status).toBe(200);
    const originalFiles = filesContaining(fileHome, ORIGINAL);
    expect(originalFiles).toHaveLength(1);

    // Same name and location: the catalog refuses it, but it must be refused before anything is written.
    const refused = await adminCall(router.url, "POST", "/api/v1/resources/payloads", {
      payload: resource,
      secretsData: `password=${EVIL}`,
    });
    expect(refused.status).toBe(409);
    expect(readFileSync(originalFiles[0] as string, "utf8")).toBe(`password=${ORIGINAL}`);
    expect(filesContaining(fileHome, EVIL)).toEqual([]);
  });

  it("a tool payload refused for an unknown namespace does not overwrite the secret file of the tool of that name", async () => {
    const tool = { name: "weather", type: "http", uri: `${upstreamUrl}/weather` };
    const created = await adminCall(router.url, "POST", "/api/v1/tools/payloads", {
      payload: tool,
      secretsData: `query.key=${ORIGINAL}`,
    });
    expect(created.status).toBe(200);
    const originalFiles = filesContaining(httpHome, ORIGINAL);
    expect(originalFiles).toHaveLength(1);

    const refused = await adminCall(router.url, "POST", "/api/v1/tools/payloads", {
      payload: { ...tool, namespace: "nowhere" },
      secretsData: `query.key=${EVIL}`,
    });
    expect(refused.status).toBe(404);
    expect(readFileSync(originalFiles[0] as string, "utf8")).toBe(`query.key=${ORIGINAL}`);
    expect(filesContaining(httpHome, EVIL)).toEqual([]);
  });

  it("a tool whose secretsURI names a file outside the provisioning root (directly, through '..' or a link) cannot read it", async () => {
    mkdirSync(httpHome, { recursive: true });
    symlinkSync(join(outside, "leak.properties"), join(httpHome, "innocent.secrets.properties"));
    const uris = [
      pathToFileURL(join(outside, "leak.properties")).href,
      `file://${httpHome}/../../../..${join(outside, "leak.properties")}`,
      pathToFileURL(join(httpHome, "innocent.secrets.properties")).href,
    ];
    const session = await openMcpSession(`${router.url}/mcp`, { authorization: `Bearer ${RED_MCP}` });
    for (const [index, secretsURI] of uris.entries()) {
      const name = `leak-${index}`;
      const added = await adminCall(router.url, "POST", "/api/v1/tools", {
        name,
        type: "http",
        uri: `${upstreamUrl}/${name}`,
        secretsURI,
      });
      expect(added.status).toBe(200);
      const call = await session.callTool(name, {});
      expect(call.answer?.result?.isError, resultText(call)).toBe(true);
      expect(resultText(call)).not.toContain(OUTSIDE);
    }
    expect(upstreamSaw.filter((line) => line.includes(OUTSIDE))).toEqual([]);
  });

  it("with --builtins and no --root, an MCP client cannot read the data directory or provisioned secrets", async () => {
    const provisioned = await adminCall(router.url, "POST", "/api/v1/tools/payloads", {
      payload: { name: "vault", type: "http", uri: `${upstreamUrl}/vault` },
      secretsData: `query.key=${VAULT}`,
    });
    expect(provisioned.status).toBe(200);
    // The secret provisioned for 'vault', and a file of the embedded store.
    const secretFile = filesContaining(httpHome, VAULT)[0] as string;
    expect(secretFile).toBeDefined();
    const dataDir = join(project, ".trestle", "data");
    const storeFile = readdirSync(dataDir, { withFileTypes: true, recursive: true }).find((e) => e.isFile());
    expect(storeFile).toBeDefined();
    symlinkSync(join(project, ".trestle"), join(project, "state-link"));
    const targets = [
      pathToFileURL(secretFile).href,
      `file://${project}/notes/../${secretFile.slice(project.length + 1)}`,
      pathToFileURL(join(project, "state-link", secretFile.slice(join(project, ".trestle").length + 1))).href,
      pathToFileURL(join(storeFile?.parentPath ?? "", storeFile?.name ?? "")).href,
    ];
    const session = await openMcpSession(`${router.url}/mcp`, { authorization: `Bearer ${RED_MCP}` });
    for (const [index, location] of targets.entries()) {
      const added = await adminCall(router.url, "POST", "/api/v1/resources", {
        name: `state-${index}`,
        type: "file",
        location,
      });
      expect(added.status).toBe(200);
      const read = await session.request("resources/read", { uri: location });
      const contents = (read.answer?.result?.contents ?? []) as { text?: string; blob?: string }[];
      expect(read.answer?.error, `${location} was served`).toBeDefined();
      expect(JSON.stringify(contents)).not.toContain(VAULT);
    }
    // The project's own files are still served.
    const notes = pathToFileURL(join(project, "notes.txt")).href;
    const read = await session.request("resources/read", { uri: notes });
    expect(JSON.stringify(read.answer?.result)).toContain("project notes");
  });
});

describe("red team: a data directory of the operator's choosing is not served either", () => {
  const project = mkdtempSync(join(tmpdir(), "trestle-red-datadir-"));
  let router: WorkingDirectoryRouter | undefined;

  afterAll(async () => {
    await router?.stop();
    rmSync(project, { recursive: true, force: true });
  });

  it("with --builtins, no --root and --data-dir inside the project, the store's files and its secrets key are refused", async () => {
    router = await startRouterIn(project, ["--builtins", "--data-dir", "db"]);
    const url = router.url;
    await eventually(
      async () => {
        const { data } = await adminCall<{ health: string; target: { serviceName: string } }[]>(
          url,
          "GET",
          "/api/v1/capabilities",
        );
        return data.some((s) => s.target.serviceName === "file" && s.health === "healthy") ? true : undefined;
      },
      60_000,
      "file built-in healthy",
    );
    const storeFile = readdirSync(join(project, "db"), { withFileTypes: true, recursive: true }).find((e) =>
      e.isFile(),
    );
    expect(storeFile).toBeDefined();
    // The key that decrypts the store's forward secrets sits beside the data directory, in the project too.
    expect(existsSync(join(project, "db.key"))).toBe(true);
    const session = await openMcpSession(`${url}/mcp`, { authorization: `Bearer ${RED_MCP}` });
    const locations = [join(storeFile?.parentPath ?? "", storeFile?.name ?? ""), join(project, "db.key")];
    for (const [index, path] of locations.entries()) {
      const location = pathToFileURL(path).href;
      const added = await adminCall(url, "POST", "/api/v1/resources", {
        name: `store-${index}`,
        type: "file",
        location,
      });
      expect(added.status).toBe(200);
      const read = await session.request("resources/read", { uri: location });
      expect(read.answer?.error, `${location} was served`).toBeDefined();
    }
  });
});
