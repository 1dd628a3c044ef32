import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Code } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEventStream, type ServerSentEvent } from "../src/client/event-stream.js";
import { createManagementClient } from "../src/client/management-client.js";

async function collect(stream: AsyncIterable<ServerSentEvent>, count: number): Promise<ServerSentEvent[]> {
  const out: ServerSentEvent[] = [];
  for await (const event of stream) {
    out.push(event);
    if (out.length === count) break;
  }
  return out;
}

describe("reading Server-Sent Events", () => {
  let server: Server;
  let base: string;
  /** The Last-Event-ID each connection arrived with. */
  const resumedFrom: (string | undefined)[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (req.url === "/crlf") {
        // CRLF line ends, a two-line data field, a comment, an id: the frames a hand-written parser got wrong.
        res.end(": hello\r\nevent: first\r\nid: 1\r\ndata: a\r\ndata: b\r\n\r\nid: 2\r\ndata: c\r\n\r\n");
        return;
      }
      const last = req.headers["last-event-id"] as string | undefined;
      resumedFrom.push(last);
      const start = last === undefined ? 1 : Number(last) + 1;
      // Two events per connection, then the connection drops (the socket is destroyed, not ended cleanly).
      res.write(
        `retry: 10\nid: ${start}\ndata: event ${start}\n\nid: ${start + 1}\ndata: event ${start + 1}\n\n`,
      );
      setTimeout(() => res.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const failure = async (response: Response) => new Error(`refused ${response.status}`);

  it("parses CRLF line ends, multi-line data, ids and event names", async () => {
    const events = await collect(
      readEventStream(({ signal }) => fetch(`${base}/crlf`, { signal }), { failure }),
      2,
    );
    expect(events).toEqual([
      { event: "first", id: "1", data: "a\nb" },
      { event: "message", id: "2", data: "c" },
    ]);
  });

  it("reconnects after a dropped connection with Last-Event-ID, losing and repeating nothing", async () => {
    resumedFrom.length = 0;
    const reconnects: (string | undefined)[] = [];
    const events = await collect(
      readEventStream(
        ({ lastEventId, signal }) =>
          fetch(`${base}/drops`, { signal, headers: lastEventId ? { "last-event-id": lastEventId } : {} }),
        { failure, reconnect: { delayMs: 10 }, onReconnect: (info) => reconnects.push(info.lastEventId) },
      ),
      6,
    );
    expect(events.map((e) => e.data)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `event ${n}`));
    expect(resumedFrom).toEqual([undefined, "2", "4"]);
    expect(reconnects).toEqual(["2", "4"]);
  });

  it("does not reconnect when the server refuses the stream", async () => {
    const refusing = createServer((_req, res) => {
      res.writeHead(401).end('{"error":{"message":"no token"},"data":null}');
    });
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    let opened = 0;
    const client = createManagementClient({
      baseUrl: url,
      fetch: (input, init) => {
        opened++;
        return fetch(input, init);
      },
    });
    await expect(
      collect(client.events.toolCalls({ reconnect: { delayMs: 10 } }) as never, 1),
    ).rejects.toMatchObject({ status: 401, rawMessage: "401: no token" });
    expect(opened).toBe(1);
    await new Promise<void>((resolve) => refusing.close(() => resolve()));
  });

  it("gives up at once when the router cannot be reached for the first connection", async () => {
    const reconnects: unknown[] = [];
    const client = createManagementClient({ baseUrl: "http://127.0.0.1:1" });
    const stream = client.events.toolCalls({
      reconnect: { delayMs: 10 },
      onReconnect: (i) => reconnects.push(i),
    });
    await expect(collect(stream as never, 1)).rejects.toMatchObject({
      status: undefined,
      code: Code.Unavailable,
    });
    expect(reconnects).toEqual([]);
  });
});
