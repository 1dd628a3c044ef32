import { Code, TrestleError } from "@trestle/core";
import { afterEach, describe, expect, it } from "vitest";
import { serveToolChannel, type ToolChannelCall } from "../src/index.js";
import { lines, socketPair } from "./support/socket-pair.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function setup() {
  const pair = await socketPair();
  cleanups.push(pair.dispose);
  return {
    ...pair,
    answers: lines(pair.program),
    send: (m: unknown) => pair.program.write(`${JSON.stringify(m)}\n`),
  };
}

describe("serveToolChannel", () => {
  it("answers each call with the result rule, matching ids", async () => {
    const { router, send, answers } = await setup();
    const seen: Omit<ToolChannelCall, "signal">[] = [];
    serveToolChannel(router, async ({ name, arguments: args }) => {
      seen.push({ name, arguments: args });
      if (name === "structured")
        return { content: [{ type: "text", text: "{}" }], structuredContent: { t: 21 } };
      if (name === "failing") return { isError: true, content: [{ type: "text", text: "city not found" }] };
      if (name === "throwing") throw new TrestleError("no such tool 'throwing'", Code.NotFound);
      return { content: [{ type: "text", text: `hello ${String(args.who)}` }] };
    });
    send({ id: 1, name: "structured", arguments: {} });
    send({ id: 2, name: "text", arguments: { who: "Oslo" } });
    send({ id: 3, name: "failing" });
    send({ id: 4, name: "throwing" });
    const got = await answers.next(4);
    expect(got).toEqual(
      expect.arrayContaining([
        { id: 1, result: { t: 21 } },
        { id: 2, result: "hello Oslo" },
        { id: 3, error: { message: "city not found" } },
        { id: 4, error: { message: "no such tool 'throwing'" } },
      ]),
    );
    expect(seen[1]).toEqual({ name: "text", arguments: { who: "Oslo" } });
  });

  it("runs at most maxConcurrentCalls at once, and answers them all", async () => {
    const { router, send, answers } = await setup();
    let running = 0;
    let most = 0;
    serveToolChannel(
      router,
      async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
        return { content: [{ type: "text", text: "ok" }] };
      },
      { maxConcurrentCalls: 3 },
    );
    for (let id = 0; id < 12; id++) send({ id, name: "slow" });
    const got = (await answers.next(12)) as { id: number }[];
    expect(got.map((a) => a.id).sort((a, b) => a - b)).toEqual([...Array(12).keys()]);
    expect(most).toBe(3);
  });

  it("refuses calls past maxCalls and answers a bad request by its id", async () => {
    const { router, send, answers } = await setup();
    const channel = serveToolChannel(router, async () => ({ content: [{ type: "text", text: "ok" }] }), {
      maxCalls: 2,
    });
    send({ id: 1, name: "a" });
    send({ id: 2, name: "b", arguments: "not an object" });
    send({ id: 3, name: "c" });
    send({ id: 4, name: "d" });
    const got = await answers.next(4);
    expect(got).toEqual(
      expect.arrayContaining([
        { id: 1, result: "ok" },
        { id: 2, error: { message: "a tool call's 'arguments' must be an object" } },
        { id: 3, result: "ok" },
        { id: 4, error: { message: "this program made more than 2 tool calls" } },
      ]),
    );
    channel.close();
    expect(await channel.closed).toEqual({ calls: 2, refused: 2 });
  });

  it("closes the channel on a line that is not a request, or too long", async () => {
    const first = await setup();
    const broken = serveToolChannel(first.router, async () => ({ content: [] }));
    first.program.write("this is not json\n");
    expect((await broken.closed).protocolError).toBe("a line on the tool channel is not JSON");

    const second = await setup();
    const flooded = serveToolChannel(second.router, async () => ({ content: [] }), { maxRequestBytes: 1000 });
    second.program.write("x".repeat(5000));
    expect((await flooded.closed).protocolError).toBe("a line on the tool channel is longer than 1000 bytes");
  });

  it("aborts calls in flight when the program's end closes, and settles after them", async () => {
    const { router, program, send } = await setup();
    let aborted = false;
    let started: () => void = () => {};
    const startedCall = new Promise<void>((resolve) => {
      started = resolve;
    });
    const channel = serveToolChannel(router, ({ signal }) => {
      started();
      return new Promise((resolve) => {
        signal.addEventListener("abort", () => {
          aborted = true;
          setTimeout(() => resolve({ content: [] }), 10);
        });
      });
    });
    send({ id: 1, name: "forever" });
    await startedCall;
    program.end();
    expect(await channel.closed).toEqual({ calls: 1, refused: 0 });
    expect(aborted).toBe(true);
  });
});
