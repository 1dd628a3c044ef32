import { describe, expect, it } from "vitest";
import { readServerSentEvents } from "./event-stream";

/** A body that delivers `chunks` one read at a time. */
function bodyOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe("reading Server-Sent Events from a fetch body", () => {
  it("yields each event whole, however the bytes are split", async () => {
    const events = [];
    for await (const event of readServerSentEvents(
      bodyOf([
        "id: 1\nevent: rep",
        'ly\ndata: {"a":',
        "1}\n\n: keep-alive\n\nevent: end\r\ndata: {}\r\n\r\n",
      ]),
    )) {
      events.push(event);
    }
    expect(events).toEqual([
      { event: "reply", id: "1", data: '{"a":1}' },
      { event: "end", id: undefined, data: "{}" },
    ]);
  });

  it("names an unnamed event `message` and joins multi-line data", async () => {
    const events = [];
    for await (const event of readServerSentEvents(bodyOf(["data: one\ndata: two\n\n"]))) events.push(event);
    expect(events).toEqual([{ event: "message", id: undefined, data: "one\ntwo" }]);
  });

  it("cancels the body when the reader stops early", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode("data: x\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const _ of readServerSentEvents(body)) break;
    expect(cancelled).toBe(true);
  });
});
