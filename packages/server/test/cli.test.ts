import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/cli/program.js";
import { withProgress } from "../src/cli/progress.js";
import { ManagementApiError, type ManagementClient } from "../src/client/management-client.js";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** Every client call, as `group.method` with its arguments. */
  calls: { call: string; args: unknown[] }[];
  /** The options each client was made with. */
  clients: { baseUrl: string; token?: string }[];
}

/** A client whose every method records its call and answers what `answers` holds for it. */
function fakeClient(calls: Run["calls"], answers: Record<string, unknown>): ManagementClient {
  return new Proxy({} as ManagementClient, {
    get: (_target, group: string) =>
      new Proxy(
        {},
        {
          get:
            (_t, method: string) =>
            async (...args: unknown[]) => {
              const call = `${group}.${method}`;
              calls.push({ call, args });
              const answer = answers[call];
              if (answer instanceof Error) throw answer;
              return answer;
            },
        },
      ),
  });
}

async function cli(
  argv: string[],
  answers: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<Run> {
  const run: Run = { code: -1, stdout: "", stderr: "", calls: [], clients: [] };
  run.code = await runCli(argv, {
    stdout: { write: (text: string) => (run.stdout += text) },
    stderr: { write: (text: string) => (run.stderr += text) },
    env,
    createClient: (options) => {
      run.clients.push({ baseUrl: options.baseUrl, ...(options.token ? { token: options.token } : {}) });
      return fakeClient(run.calls, answers);
    },
  });
  return run;
}

const tool = { name: "weather", type: "http", uri: "https://api.example/weather" };

describe("the trestle CLI", () => {
  it("generates help for the program and every command group, exit 0", async () => {
    const top = await cli(["--help"]);
    expect(top.code).toBe(0);
    for (const command of [
      "serve",
      "tools",
      "resources",
      "prompts",
      "namespaces",
      "forwards",
      "services",
      "events",
      "exec",
      "config",
      "completion",
    ]) {
      expect(top.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    }
    expect(top.stdout).toContain("TRESTLE_URL");
    expect((await cli([])).stdout).toContain("Usage: trestle");
    const tools = await cli(["tools", "--help"]);
    expect(tools.stdout).toMatch(/list[\s\S]*show[\s\S]*add[\s\S]*import[\s\S]*remove/);
    const serve = await cli(["serve", "--help"]);
    for (const flag of [
      "--insecure-open",
      "--builtins",
      "--root",
      "--builtin-arg",
      "--stdio",
      "--config",
      "--memory-store",
      "--tls-ca",
      "--transport",
      "--transport-plugin-dir",
    ]) {
      expect(serve.stdout).toContain(flag);
    }
    expect((await cli(["--version"])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("exits 2 on bad usage: unknown command, action or option, missing argument", async () => {
    for (const argv of [
      ["frobnicate"],
      ["tools", "frobnicate"],
      ["tools", "list", "--frob"],
      ["tools", "show"],
      ["completion", "fish"],
    ]) {
      const run = await cli(argv);
      expect(run.code, argv.join(" ")).toBe(2);
      expect(run.calls).toEqual([]);
    }
  });

  it("takes --url and --token before or after the command, else TRESTLE_URL and TRESTLE_TOKEN", async () => {
    const answers = { "tools.list": [tool] };
    const before = await cli(["--url", "http://r:1", "--token", "t1", "tools", "list"], answers);
    const after = await cli(["tools", "list", "--url", "http://r:1", "--token", "t1"], answers);
    const fromEnv = await cli(["tools", "list"], answers, { TRESTLE_URL: "http://r:1", TRESTLE_TOKEN: "t1" });
    for (const run of [before, after, fromEnv])
      expect(run.clients).toEqual([{ baseUrl: "http://r:1", token: "t1" }]);
    expect((await cli(["tools", "list"], answers)).clients).toEqual([{ baseUrl: "http://127.0.0.1:8080" }]);
  });

  it("prints tables, or JSON with --json, and passes namespace and label filter on", async () => {
    const answers = { "tools.list": [tool] };
    const table = await cli(["tools", "list", "-n", "ops", "--label-filter", "team=ops"], answers);
    expect(table.stdout).toMatch(/^NAME\s+TYPE\s+URI\nweather\s+http\s+https:\/\/api.example\/weather\n$/);
    expect(table.calls).toEqual([
      { call: "tools.list", args: [{ namespace: "ops", labelFilter: "team=ops" }] },
    ]);
    const json = await cli(["tools", "list", "--json"], answers);
    expect(JSON.parse(json.stdout)).toEqual([tool]);
    const namespaces = await cli(["namespaces", "list", "--json"], {
      "namespaces.list": [{ name: "" }, { name: "ops" }],
    });
    expect(JSON.parse(namespaces.stdout)).toEqual([{ name: "" }, { name: "ops" }]);
    const removed = await cli(["tools", "remove", "weather", "--json"], { "tools.remove": tool });
    expect(JSON.parse(removed.stdout)).toEqual({ removed: "weather" });
    const services = await cli(["services", "cleanup", "--json"], { "services.removeStale": [] });
    expect(JSON.parse(services.stdout)).toEqual([]);
  });

  it("adds a forward from its -- command line, env pairs and mode; refuses a bad combination with exit 2", async () => {
    const view = {
      name: "gh",
      namespace: "ops",
      service: "forward:ops/gh",
      upstream: { kind: "stdio", program: "node", argumentCount: 2, environment: ["KEY"], mode: "per-call" },
      status: {
        state: "ready",
        imported: { tools: 2, resources: 0, resourceTemplates: 0, prompts: 1 },
        skipped: [],
      },
    };
    const run = await cli(
      [
        "forwards",
        "add",
        "gh",
        "-n",
        "ops",
        "--env",
        "KEY=secret-value",
        "--mode",
        "per-call",
        "--",
        "node",
        "server.js",
        "--token=x",
      ],
      { "forwards.add": view },
    );
    expect(run.code).toBe(0);
    expect(run.calls[0]).toEqual({
      call: "forwards.add",
      args: [
        {
          name: "gh",
          namespace: "ops",
          upstream: {
            kind: "stdio",
            command: "node",
            args: ["server.js", "--token=x"],
            env: { KEY: "secret-value" },
            mode: "per-call",
          },
        },
      ],
    });
    expect(run.stdout).toBe("gh (ops): ready, 2 tools, 0 resources, 0 templates, 1 prompts\n");
    const json = await cli(["forwards", "add", "gh", "--http", "https://mcp.example/mcp", "--json"], {
      "forwards.add": view,
    });
    expect(JSON.parse(json.stdout)).toEqual(view);
    const both = await cli(["forwards", "add", "gh", "--http", "https://x/mcp", "--", "node"]);
    expect(both.code).toBe(2);
    const badEnv = await cli(["forwards", "add", "gh", "--env", "NOVALUE", "--", "node"]);
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain("--env takes NAME=VALUE");
    const unconfined = await cli(
      [
        "forwards",
        "add",
        "fs",
        "--no-sandbox",
        "--cwd",
        "/srv",
        "--writable",
        "/data/a",
        "--writable",
        "/data/b",
        "--",
        "node",
      ],
      { "forwards.add": view },
    );
    expect(unconfined.code).toBe(0);
    expect(unconfined.calls[0]?.args[0]).toMatchObject({
      upstream: {
        kind: "stdio",
        command: "node",
        cwd: "/srv",
        sandbox: false,
        writablePaths: ["/data/a", "/data/b"],
      },
    });
    const sandboxed = await cli(["forwards", "add", "fs", "--", "node"], { "forwards.add": view });
    expect(JSON.stringify(sandboxed.calls[0]?.args[0])).not.toContain("sandbox");
    const notStdio = await cli(["forwards", "add", "gh", "--no-sandbox", "--http", "https://x/mcp"]);
    expect(notStdio.code).toBe(2);
    expect(notStdio.stderr).toContain(
      "--cwd, --no-sandbox and --writable are for a server run with -- COMMAND",
    );
    const agent = await cli(
      [
        "forwards",
        "add",
        "travel",
        "--a2a",
        "https://agents.example/travel",
        "--header",
        "Authorization=Bearer t",
      ],
      { "forwards.add": view },
    );
    expect(agent.code).toBe(0);
    expect(agent.calls[0]).toEqual({
      call: "forwards.add",
      args: [
        {
          name: "travel",
          namespace: "",
          upstream: {
            kind: "a2a",
            url: "https://agents.example/travel",
            headers: { Authorization: "Bearer t" },
          },
        },
      ],
    });
    const two = await cli([
      "forwards",
      "add",
      "x",
      "--a2a",
      "https://a.example",
      "--http",
      "https://b.example/mcp",
    ]);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("exactly one of --http URL, --a2a BASE_URL or -- COMMAND");
  });

  it("exits 1 when the router refuses and 3 when it cannot be reached, with the router's message", async () => {
    const refused = await cli(["tools", "add", writeJson(tool)], {
      "tools.add": new ManagementApiError(
        "409: A tool named 'weather' already exists",
        Code.AlreadyExists,
        409,
      ),
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe("trestle: 409: A tool named 'weather' already exists\n");
    const unreachable = await cli(["tools", "list"], {
      "tools.list": new ManagementApiError("Cannot reach the router at http://127.0.0.1:1", Code.Unavailable),
    });
    expect(unreachable.code).toBe(3);
    expect((await cli(["tools", "add", "/nonexistent/tool.json"])).code).toBe(2);
  });

  it("prints client configurations with the token as a header", async () => {
    const run = await cli(["config", "cursor", "-n", "ops", "--url", "http://r:1", "--token", "t1"]);
    expect(JSON.parse(run.stdout)).toEqual({
      mcpServers: { trestle: { url: "http://r:1/ops/mcp", headers: { Authorization: "Bearer t1" } } },
    });
  });

  it("writes bash and zsh completion scripts generated from the commands, and the bash one completes", async () => {
    const bash = await cli(["completion", "bash"]);
    expect(bash.code).toBe(0);
    const zsh = await cli(["completion", "zsh"]);
    expect(zsh.stdout).toMatch(/^#compdef trestle\n/);
    expect(zsh.stdout).toContain("'list:List tools'");
    const script = join(mkdtempSync(join(tmpdir(), "trestle-completion-")), "trestle.bash");
    writeFileSync(script, bash.stdout);
    const complete = (line: string[]) =>
      execFileSync(
        "bash",
        [
          "-c",
          `source "$0"; COMP_WORDS=(${line.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${line.length - 1}; _trestle_completions; echo "\${COMPREPLY[*]}"`,
          script,
        ],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
      )
        .toString()
        .trim()
        .split(" ");
    expect(complete(["trestle", "to"])).toEqual(["tools"]);
    expect(complete(["trestle", "tools", "l"])).toEqual(["list"]);
    expect(complete(["trestle", "forwards", "add", "gh", "--h"])).toEqual(["--http", "--header", "--help"]);
    expect(complete(["trestle", "forwards", "add", "gh", "--a"])).toEqual(["--a2a"]);
    expect(complete(["trestle", "--url", "http://x", "serve", "--insecure"])).toEqual(["--insecure-open"]);
  });
});

describe("progress on long operations", () => {
  it("prints the time elapsed while work goes on, a line at a time off a terminal", async () => {
    let now = 0;
    const lines: string[] = [];
    const work = new Promise<string>((resolve) => setTimeout(() => resolve("done"), 120));
    const result = await withProgress({ write: (t: string) => lines.push(t) }, "starting forward gh", work, {
      lineEveryMs: 25,
      clock: () => (now += 1_000),
    });
    expect(result).toBe("done");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(/^starting forward gh… \ds\n$/);
  });

  it("redraws one line on a terminal and erases it at the end", async () => {
    const out: string[] = [];
    await withProgress(
      { write: (t: string) => out.push(t), isTTY: true },
      "importing",
      new Promise((r) => setTimeout(r, 60)),
      {
        tickMs: 10,
      },
    );
    expect(out[0]).toBe("\r\u001b[2Kimporting… 0s");
    expect(out.at(-1)).toBe("\r\x1b[2K");
  });
});

function writeJson(value: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), "trestle-cli-test-")), "entry.json");
  writeFileSync(file, JSON.stringify(value));
  return file;
}
