import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouterProcess, startNode, startRouter, stopAll, trestleCli } from "./support/processes.js";

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("the first hour", () => {
  let router: RouterProcess;
  const scratch = mkdtempSync(join(tmpdir(), "trestle-first-hour-"));

  beforeAll(async () => {
    router = await startRouter();
  }, 90_000);

  afterAll(async () => {
    await stopAll();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("a second router on a taken port says so in one sentence naming the port and --port, before it opens any data", async () => {
    const port = await freePort();
    const first = await startRouter(["--port", String(port)]).catch(async () => {
      // startRouter adds --port 0 first; the later --port wins. Nothing else to do here.
      throw new Error("the first router did not start");
    });
    const dataDir = join(scratch, "second-data");
    const second = startNode(trestleCli, ["serve", "--port", String(port), "--data-dir", dataDir]);
    const code = await new Promise<number | null>((resolve) => second.child.once("exit", resolve));
    expect(code).toBe(1);
    const output = second.lines.join("\n");
    expect(second.lines).toEqual([
      `trestle: port ${port} on 127.0.0.1 is taken by another program: start with --port <n> (or TRESTLE_PORT) to use another, or stop the other program`,
    ]);
    expect(output).not.toMatch(/\n\s+at /);
    expect(existsSync(dataDir)).toBe(false);
    await first.stop();
  }, 90_000);

  it("logs lines a person reads on a terminal, and JSON lines otherwise", async () => {
    // `script` gives the router a pseudo-terminal as its standard error, as a shell would.
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(trestleCli)} serve --port 0 --memory-store`;
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
      // What a shell gives a program, no more: the router reads nothing else here.
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? tmpdir(), TERM: "xterm" },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 60_000;
    while (!output.includes("is serving MCP") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    try {
      process.kill(-(child.pid as number), "SIGTERM");
    } catch {
      // already gone
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour codes are what is removed
    const plain = output.replace(/\u001b\[[0-9;]*m/g, "");
    expect(plain).toMatch(/\[\d\d:\d\d:\d\d\.\d{3}\] INFO: router listening/);
    expect(plain).not.toContain('"level":30');
    // Not a terminal (the test's pipes): JSON lines, as collectors want them.
    expect(
      router.lines.some((line) => line.startsWith("{") && line.includes('"msg":"router listening"')),
    ).toBe(true);
  }, 90_000);

  it("refuses a field it does not know, naming it, and stores nothing", async () => {
    const response = await fetch(`${router.url}/api/v1/namespaces`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "team-typo", descripton: "misspelt" }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain("descripton");
    const list = (await (await fetch(`${router.url}/api/v1/namespaces`)).json()) as {
      data: { name: string }[];
    };
    expect(list.data.map((n) => n.name)).not.toContain("team-typo");
  });

  it("warns in its answer, and the CLI on stderr, when a tool's service is not registered", async () => {
    const response = await fetch(`${router.url}/api/v1/tools`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "weather", uri: "https://example.com/weather", type: "htpp" }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { name: string }; warnings?: string[] };
    expect(body.data.name).toBe("weather");
    expect(body.warnings).toEqual([
      "No capability service named 'htpp' is registered, so tool 'weather' cannot be served until one registers",
    ]);
    const file = join(scratch, "tool.json");
    writeFileSync(
      file,
      JSON.stringify({ name: "forecast", uri: "https://example.com/forecast", type: "htpp" }),
    );
    const cli = spawnSync(process.execPath, [trestleCli, "tools", "add", file, "--url", router.url], {
      encoding: "utf8",
    });
    expect(cli.status).toBe(0);
    expect(cli.stdout.trim()).toBe("added forecast");
    expect(cli.stderr).toContain("trestle: warning: No capability service named 'htpp' is registered");
  });
});
