import { describe, expect, it } from "vitest";
import {
  type CodeModeTool,
  javascriptPrelude,
  pythonPrelude,
  type ToolChannel,
  type ToolChannelHandler,
} from "../src/index.js";
import { runProgram } from "./support/run-program.js";

const TOOLS: CodeModeTool[] = [
  {
    name: "get-weather",
    inputSchema: {
      type: "object",
      properties: { "city-name": { type: "string" }, from: { type: "string" }, units: { type: "string" } },
    },
  },
  { name: "2fa.reset" },
  { name: "failing" },
  { name: "echo" },
];

/** The fake router: answers each tool as a real one would, and records the calls. */
function router(calls: { name: string; arguments: Record<string, unknown> }[] = []): ToolChannelHandler {
  return async ({ name, arguments: args }) => {
    calls.push({ name, arguments: args });
    switch (name) {
      case "get-weather":
        return {
          content: [{ type: "text", text: "{...}" }],
          structuredContent: { city: args["city-name"] ?? args.city, temperature: 21 },
        };
      case "failing":
        return { isError: true, content: [{ type: "text", text: "the city was not found" }] };
      case "echo":
        await new Promise((resolve) => setTimeout(resolve, Number(args.delayMs ?? 0)));
        return { content: [{ type: "text", text: `echo ${JSON.stringify(args)}` }] };
      default:
        return { content: [{ type: "text", text: `${name} done` }] };
    }
  };
}

describe("the JavaScript prelude, in a real node process", () => {
  it("gives the program `tools`: a function per tool, call(), results by the rule, ToolError", async () => {
    const calls: { name: string; arguments: Record<string, unknown> }[] = [];
    const run = await runProgram({
      language: "javascript",
      tools: TOOLS,
      handler: router(calls),
      program: `
        const weather = await tools.get_weather({ "city-name": "Oslo" });
        console.log(JSON.stringify(weather));
        console.log(await tools._2fa_reset());
        console.log(await tools.call("2fa.reset", { user: "ann" }));
        try { await tools.failing({}); } catch (e) {
          console.log(e instanceof ToolError, e.name, e.tool, e.message);
        }
        const echoes = await Promise.all([30, 0, 10].map((delayMs) => tools.echo({ delayMs })));
        console.log(echoes.join("|"));
        console.log(Object.keys(tools).join(","), typeof tools.call, Object.isFrozen(tools));
        try { tools.get_weather = null; } catch (e) { console.log(e.constructor.name); }
        try { await tools.echo([1]); } catch (e) { console.log(e.constructor.name, e.message); }
      `,
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual([
      '{"city":"Oslo","temperature":21}',
      "2fa.reset done",
      "2fa.reset done",
      "true ToolError failing the city was not found",
      'echo {"delayMs":30}|echo {"delayMs":0}|echo {"delayMs":10}',
      "get_weather,_2fa_reset,failing,echo function true",
      "TypeError",
      'TypeError tools.echo takes one object of arguments, e.g. tools.echo({ city: "Oslo" })',
    ]);
    expect(calls[2]).toEqual({ name: "2fa.reset", arguments: { user: "ann" } });
    expect(run.summary.calls).toBe(7);
  });

  it("lets a program that calls no tool, and one that is done calling, exit on its own", async () => {
    const idle = await runProgram({
      language: "javascript",
      tools: TOOLS,
      handler: router(),
      program: "console.log(1);",
    });
    expect([idle.code, idle.stdout]).toEqual([0, "1\n"]);
    const done = await runProgram({
      language: "javascript",
      tools: TOOLS,
      handler: router(),
      program: "await tools.echo({}); setTimeout(() => console.log('later'), 50);",
      timeoutMs: 5000,
    });
    expect([done.code, done.stdout]).toEqual([0, "later\n"]);
  });

  it("fails the program with the tool's error text when a ToolError is not caught", async () => {
    const run = await runProgram({
      language: "javascript",
      tools: TOOLS,
      handler: router(),
      program: "await tools.failing();",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("ToolError: the city was not found");
  });

  it("works under Node's permission model, reading only its own directory", async () => {
    const run = await runProgram({
      language: "javascript",
      tools: TOOLS,
      handler: router(),
      // Node 20 knows the model as experimental; Node 24 knows only `--permission` (as the engine chooses).
      flags: [
        process.allowedNodeEnvironmentFlags.has("--permission")
          ? "--permission"
          : "--experimental-permission",
        "--allow-fs-read={dir}",
        "--disable-warning=ExperimentalWarning",
      ],
      program: "console.log(await tools.echo({ a: 1 }));",
    });
    expect([run.code, run.stdout, run.stderr]).toEqual([0, 'echo {"a":1}\n', ""]);
  });

  it("fails a pending call when the router closes the channel, and refuses later ones", async () => {
    let channel: ToolChannel | undefined;
    const run = await runProgram({
      language: "javascript",
      tools: TOOLS,
      onChannel: (c) => {
        channel = c;
      },
      handler: ({ signal }) => {
        channel?.close();
        return new Promise((resolve) => signal.addEventListener("abort", () => resolve({ content: [] })));
      },
      program: `
        try { await tools.echo({}); } catch (e) { console.log(e.constructor.name, e.message); }
        try { await tools.echo({}); } catch (e) { console.log(e.message); }
      `,
    });
    expect([run.code, run.stdout]).toEqual([
      0,
      "Error the tool channel is closed\nthe tool channel is closed\n",
    ]);
  });
});

describe("the Python prelude, in a real python3 process", () => {
  it("gives the program `tools`: keyword arguments mapped to argument names, call(), ToolError", async () => {
    const calls: { name: string; arguments: Record<string, unknown> }[] = [];
    const run = await runProgram({
      language: "python",
      tools: TOOLS,
      handler: router(calls),
      args: ["first", "second"],
      program: `
import json, sys, threading
import trestle_tools
print(sys.argv[1:], trestle_tools.tools is tools, trestle_tools.ToolError is ToolError)
print(json.dumps(tools.get_weather(city_name="Oslo", from_="here", units=None)))
print(tools._2fa_reset({"user": "ann"}))
print(tools.call("2fa.reset", {"user": "bob"}))
try:
    tools.failing()
except ToolError as e:
    print(type(e).__name__, e.tool, str(e))
try:
    tools.no_such_tool
except AttributeError as e:
    print("AttributeError", e)
try:
    tools.echo(1, 2)
except TypeError as e:
    print("TypeError", e)
results = []
threads = [threading.Thread(target=lambda i=i: results.append(tools.echo(i=i))) for i in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
print(sorted(results))
print(dir(tools))
`,
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual([
      "['first', 'second'] True True",
      '{"city": "Oslo", "temperature": 21}',
      "2fa.reset done",
      "2fa.reset done",
      "ToolError failing the city was not found",
      "AttributeError no tool is named 'no_such_tool' here; tools.call(name, args) takes a tool's original name",
      "TypeError tools.echo() takes keyword arguments, or one dict of arguments",
      `['echo {"i":0}', 'echo {"i":1}', 'echo {"i":2}', 'echo {"i":3}']`,
      "['_2fa_reset', 'call', 'echo', 'failing', 'get_weather']",
    ]);
    expect(calls[0]).toEqual({ name: "get-weather", arguments: { "city-name": "Oslo", from: "here" } });
    expect(calls[1]).toEqual({ name: "2fa.reset", arguments: { user: "ann" } });
  });

  it("fails the program with the tool's error text when a ToolError is not caught", async () => {
    const run = await runProgram({
      language: "python",
      tools: TOOLS,
      handler: router(),
      program: "tools.failing()\n",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("ToolError: the city was not found");
  });
});

describe("the preludes' configuration", () => {
  it("is written in as Base64, so no tool name can break out of the source", () => {
    const evil: CodeModeTool[] = [{ name: '"; process.exit(9); "' }, { name: "'''\nimport os\n'''" }];
    const js = javascriptPrelude(evil);
    const py = pythonPrelude(evil, { channel: { path: "/tmp/x.sock" } });
    expect(js).not.toContain("process.exit(9)");
    expect(py).not.toContain("import os\n'''");
    expect(js).not.toContain("__TRESTLE_TOOLS_CONFIG__");
    const config = (source: string, pattern: RegExp) =>
      JSON.parse(Buffer.from(pattern.exec(source)?.[1] ?? "", "base64").toString("utf8"));
    expect(config(js, /const CONFIG = "([A-Za-z0-9+/=]*)";/).tools[0].name).toBe('"; process.exit(9); "');
    expect(config(py, /_CONFIG = "([A-Za-z0-9+/=]*)"/).channel).toEqual({ path: "/tmp/x.sock" });
  });
});

describe("the Python prelude when the router closes the channel", () => {
  it("raises ConnectionError in the program", async () => {
    let channel: ToolChannel | undefined;
    const run = await runProgram({
      language: "python",
      tools: TOOLS,
      onChannel: (c) => {
        channel = c;
      },
      handler: ({ signal }) => {
        channel?.close();
        return new Promise((resolve) => signal.addEventListener("abort", () => resolve({ content: [] })));
      },
      program: "try:\n    tools.echo()\nexcept ConnectionError as e:\n    print(type(e).__name__, e)\n",
    });
    expect([run.code, run.stdout]).toEqual([0, "ConnectionError the tool channel is closed\n"]);
  });
});
