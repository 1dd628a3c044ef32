import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_TOKEN_METADATA, TOOL_CHANNEL_URL_METADATA, TOOL_LIMITS_METADATA } from "../src/tool-access.js";
import { ExecutionStatus, type ServedEngine, serveEngine } from "./engine-fixture.js";

/** A stand-in for the router's code-mode endpoint: two tools, one run token, every request recorded. */
const TOKEN = "run-token-7f3a9c1e5b2d4f6a8c0e1b3d5f7a9c1e";
const requests: { path: string; authorization: string | undefined; body: unknown }[] = [];
let router: Server;
let routerUrl: string;
let engine: ServedEngine;
let inFlight = 0;
let mostInFlight = 0;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    req.on("end", () => resolve(text));
  });
}

beforeAll(async () => {
  router = createServer(async (req, res) => {
    const body = JSON.parse((await readBody(req)) || "{}");
    requests.push({ path: req.url ?? "", authorization: req.headers.authorization, body });
    res.setHeader("content-type", "application/json");
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401).end(JSON.stringify({ error: { message: "unknown run" } }));
      return;
    }
    if (req.url === "/cm/tools") {
      res.end(
        JSON.stringify({
          tools: [
            {
              name: "get-weather",
              inputSchema: { type: "object", properties: { city: { type: "string" } } },
            },
            { name: "add", inputSchema: { type: "object" } },
          ],
        }),
      );
      return;
    }
    const { name, arguments: args } = body as { name: string; arguments: Record<string, number | string> };
    if (name === "slow") {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 100));
      inFlight--;
      res.end(JSON.stringify({ content: [{ type: "text", text: "done" }] }));
    } else if (name === "get-weather") {
      res.end(JSON.stringify({ content: [{ type: "text", text: `sunny in ${args.city}` }] }));
    } else if (name === "add") {
      res.end(
        JSON.stringify({
          content: [],
          structuredContent: { sum: Number(args.a) + Number(args.b) },
        }),
      );
    } else {
      res.end(JSON.stringify({ isError: true, content: [{ type: "text", text: `Unknown tool '${name}'` }] }));
    }
  });
  await new Promise<void>((resolve) => router.listen(0, "127.0.0.1", resolve));
  routerUrl = `http://127.0.0.1:${(router.address() as AddressInfo).port}/cm`;
  engine = await serveEngine({ killGraceMs: 300 });
});

afterAll(async () => {
  await engine?.close();
  await new Promise((resolve) => router?.close(resolve));
});

const metadata = () => ({ [TOOL_CHANNEL_URL_METADATA]: routerUrl, [RUN_TOKEN_METADATA]: TOKEN });

describe("a run with a tool channel", () => {
  it("gives a JavaScript program its tools, relayed to the router with the run token", async () => {
    const code = `(async () => {
      const weather = await tools.get_weather({ city: "Oslo" });
      const { sum } = await tools.add({ a: 2, b: 3 });
      let refused = "";
      try { await tools.call("nope", {}); } catch (e) { refused = (e instanceof ToolError) + ":" + e.message; }
      console.log(JSON.stringify({ weather, sum, refused }));
    })();`;
    const result = await engine.run("javascript", code, { metadata: metadata() });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({
      weather: "sunny in Oslo",
      sum: 5,
      refused: "true:Unknown tool 'nope'",
    });
    expect(requests.filter((r) => r.path === "/cm/call").map((r) => r.authorization)).toContain(
      `Bearer ${TOKEN}`,
    );
  });

  it("lets a JavaScript program await its tools at the top level, CommonJS's require and __filename at hand", async () => {
    const code = [
      'const { basename } = require("node:path");',
      'const weather = await tools.get_weather({ city: "Oslo" });',
      "const { sum } = await tools.add({ a: 2, b: 3 });",
      "console.log(JSON.stringify({ weather, sum, file: basename(__filename), dir: __dirname === require('node:path').dirname(__filename) }));",
    ].join("\n");
    const result = await engine.run("javascript", code, { metadata: metadata() });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual({
      weather: "sunny in Oslo",
      sum: 5,
      file: "main.mjs",
      dir: true,
    });
  });

  it("gives a Python program its tools", async ({ skip }) => {
    if (!engine.languages.includes("python")) skip("no python in the sandbox here");
    const code = [
      "w = tools.get_weather(city='Bergen')",
      "s = tools.add({'a': 4, 'b': 5})['sum']",
      "try:",
      "    tools.call('nope', {})",
      "except ToolError as e:",
      "    print(w, s, e)",
    ].join("\n");
    const result = await engine.run("python", code, { metadata: metadata() });
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("sunny in Bergen 9 Unknown tool 'nope'");
  });

  it("keeps the run token out of the program: not in its environment, files, or any process it can see", async () => {
    const code = `(async () => {
      const fs = require("node:fs");
      let seen = JSON.stringify(process.env) + process.argv.join(" ");
      for (const file of fs.readdirSync(".")) seen += fs.readFileSync(file, "utf8");
      // The token is assembled here, so the program's own text does not hold it.
      const token = ${JSON.stringify(TOKEN.slice(0, 10))} + ${JSON.stringify(TOKEN.slice(10))};
      console.log(seen.includes(token) ? "LEAK" : "clean", typeof tools.add);
    })();`;
    const result = await engine.run("javascript", code, { metadata: metadata() });
    expect(result.stdout.trim()).toBe("clean function");
    const python = engine.languages.includes("python")
      ? await engine.run(
          "python",
          [
            "import os",
            "seen = ''",
            "for pid in os.listdir('/proc'):",
            "    if pid.isdigit():",
            "        for part in ('environ', 'cmdline'):",
            "            try: seen += open(f'/proc/{pid}/{part}', 'rb').read().decode('utf8', 'replace')",
            "            except OSError: pass",
            `token = ${JSON.stringify(TOKEN.slice(0, 10))} + ${JSON.stringify(TOKEN.slice(10))}`,
            "print('LEAK' if token in seen else 'clean')",
          ].join("\n"),
          { metadata: metadata() },
        )
      : undefined;
    if (python) expect(python.stdout.trim()).toBe("clean");
  });

  it("holds a program's calls within the limits the router sends: past the concurrency they wait", async () => {
    const code = `(async () => {
      const results = await Promise.all(Array.from({ length: 6 }, () => tools.call("slow", {})));
      console.log(results.join(","));
    })();`;
    const result = await engine.run("javascript", code, {
      metadata: { ...metadata(), [TOOL_LIMITS_METADATA]: "concurrent=2" },
    });
    expect(result.stdout.trim()).toBe("done,done,done,done,done,done");
    expect(mostInFlight).toBe(2);
  });

  it("runs a program without tools when the router sends no tool channel", async () => {
    const result = await engine.run("javascript", "console.log(typeof globalThis.tools)");
    expect(result.stdout.trim()).toBe("undefined");
    expect(result.final.status).toBe(ExecutionStatus.COMPLETED);
  });
});
