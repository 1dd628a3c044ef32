import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { openSseStream, type SseStream } from "../src/http/sse.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * A server whose one route opens an SSE stream with `maxBufferedBytes` and hands it to the test; `opened` sees the
 * response once its stream is open.
 */
async function sseServer(
  maxBufferedBytes: number,
  opened?: (res: ServerResponse) => void,
): Promise<{ port: number; stream: Promise<SseStream> }> {
  let resolve: (stream: SseStream) => void = () => undefined;
  const stream = new Promise<SseStream>((r) => {
    resolve = r;
  });
  const server = createServer((_req, res) => {
    const sse = openSseStream(res, { maxBufferedBytes });
    opened?.(res);
    resolve(sse);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, stream };
}

/** GETs the stream on `port` and resolves with what the client read, once `done` holds for it. */
function readUntil(port: number, done: (text: string) => boolean): Promise<string> {
  return new Promise<string>((resolve) => {
    let text = "";
    const socket = connect(port, "127.0.0.1", () => socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (done(text)) {
        socket.destroy();
        resolve(text);
      }
    });
  });
}

describe("SSE back-pressure", () => {
  it("drops a reader that stops reading once its backlog passes the bound, and closes its connection", async () => {
    const { port, stream } = await sseServer(64 * 1024);
    const socket = connect(port, "127.0.0.1", () => socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    socket.once("data", () => socket.pause());
    const sse = await stream;
    const frame = "z".repeat(8 * 1024);
    let sent = 0;
    let refusedAt = -1;
    // Far more than the kernel's buffers and the bound together; the writer never waits.
    for (let i = 0; i < 10_000; i++) {
      if (!sse.send(frame)) {
        refusedAt = i;
        break;
      }
      sent += frame.length;
      // Let the socket move what it can, as a stream of events would.
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(refusedAt).toBeGreaterThan(0);
    expect(sse.dropped).toBe(true);
    expect(sse.closed).toBe(true);
    expect(sent).toBeLessThan(10_000 * frame.length);
    await sse.done;
    // The reader, resuming, sees the connection end.
    const ended = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5_000);
      socket.on("data", () => undefined);
      socket.once("close", () => {
        clearTimeout(timer);
        resolve(true);
      });
      socket.on("error", () => undefined);
      socket.resume();
    });
    expect(ended).toBe(true);
  });

  it("serves a reader that keeps up, one frame larger than the bound included", async () => {
    const { port, stream } = await sseServer(16 * 1024);
    const received = readUntil(port, (text) => text.includes("data: end"));
    const sse = await stream;
    expect(sse.send("b".repeat(100 * 1024))).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 50; i++) {
      expect(sse.send(`event ${i}`)).toBe(true);
      await new Promise((r) => setImmediate(r));
    }
    expect(sse.send("end")).toBe(true);
    const text = await received;
    expect(text).toContain("b".repeat(100 * 1024));
    expect(text).toContain("data: event 49");
    expect(sse.dropped).toBe(false);
  });
});

describe("SSE writes", () => {
  it("writes the frames sent in one turn of the event loop together, in order, with one system call", async () => {
    let writes = 0;
    const { port, stream } = await sseServer(1024 * 1024, (res) => {
      // Counted from here, after the headers: each _write or _writev is one write to the socket.
      const socket = res.socket as unknown as Record<"_write" | "_writev", (...args: unknown[]) => void>;
      for (const method of ["_write", "_writev"] as const) {
        const original = socket[method].bind(socket);
        socket[method] = (...args: unknown[]) => {
          writes++;
          original(...args);
        };
      }
    });
    const received = readUntil(port, (text) => text.includes("data: 9\n"));
    const sse = await stream;
    await new Promise((r) => setTimeout(r, 20));
    // Ten events in one turn, as the events of calls ending together arrive; the first nine across microtasks.
    for (let i = 0; i < 9; i++) {
      await Promise.resolve();
      sse.send(`${i}`, { event: "completed", id: `e${i}` });
    }
    process.nextTick(() => sse.send("9", { event: "completed", id: "e9" }));
    const text = await received;
    expect(writes).toBe(1);
    const ids = [...text.matchAll(/id: e(\d)/g)].map((m) => Number(m[1]));
    expect(ids).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    sse.close();
  });
});

describe("SSE close", () => {
  it("delivers the frames of the turn it closes in, then ends the response", async () => {
    const { port, stream } = await sseServer(1024 * 1024);
    // Until the chunked body's terminating chunk: the response ended (the connection is kept alive).
    const received = readUntil(port, (text) => text.endsWith("0\r\n\r\n"));
    const sse = await stream;
    for (let i = 0; i < 3; i++) sse.send(`last ${i}`);
    sse.close();
    const text = await received;
    for (let i = 0; i < 3; i++) expect(text).toContain(`data: last ${i}\n\n`);
    expect(text.indexOf("last 0")).toBeLessThan(text.indexOf("last 2"));
  });
});

describe("SSE frames", () => {
  it("writes data holding line breaks as one data line each, and data without them as one", async () => {
    const { port, stream } = await sseServer(1024 * 1024);
    const received = readUntil(port, (text) => text.includes("data: end\n\n"));
    const sse = await stream;
    sse.send("first\nsecond\nthird", { event: "note", id: "n1" });
    sse.send('{"a":"x\\ny"}', { event: "json" });
    sse.send("end");
    const text = await received;
    expect(text).toContain("event: note\nid: n1\ndata: first\ndata: second\ndata: third\n\n");
    expect(text).toContain('event: json\ndata: {"a":"x\\ny"}\n\n');
    sse.close();
  });
});
