import { create, toBinary } from "@bufbuild/protobuf";
import { Code, TrestleError } from "@trestle/core";
import { ToolInvokeReplySchema, ToolInvokeRequestSchema } from "@trestle/proto";
import { compileMessageCodec } from "@trestle/protobuf-codec";
import { describe, expect, it } from "vitest";
import { FRAME_HEADER_BYTES, frameMessage, takeReplyMessages, unaryReplyMessage } from "../src/index.js";

function thrown(run: () => unknown): TrestleError {
  try {
    run();
  } catch (error) {
    if (error instanceof TrestleError) return error;
    throw error;
  }
  throw new Error("nothing was thrown");
}

/** Collects what takeReplyMessages hands out, as text. */
function take(pending: Buffer, max = 1_000): { messages: string[]; rest: Buffer } {
  const messages: string[] = [];
  const rest = takeReplyMessages(pending, max, (message) => messages.push(message.toString()));
  return { messages, rest };
}

describe("length-prefixed messages", () => {
  it("frames a message behind a flag byte 0 and its length, big-endian", () => {
    const frame = frameMessage(new Uint8Array([7, 8, 9]));
    expect([...frame]).toEqual([0, 0, 0, 0, 3, 7, 8, 9]);
    expect(FRAME_HEADER_BYTES).toBe(5);
    expect([...frameMessage(new Uint8Array(0))]).toEqual([0, 0, 0, 0, 0]);
  });

  it("writes the same bytes as the compiled codec's encodeFramed (which frames in place, on the hot path)", () => {
    const codec = compileMessageCodec(ToolInvokeRequestSchema);
    for (const init of [{}, { uri: "tool://x", body: "b".repeat(300), requestId: "42" }]) {
      const message = create(ToolInvokeRequestSchema, init);
      expect(
        codec.encodeFramed(message).equals(frameMessage(toBinary(ToolInvokeRequestSchema, message))),
      ).toBe(true);
    }
  });

  it("reads the one message of a unary reply as a view of the body", () => {
    const reply = create(ToolInvokeReplySchema, { content: ["hi"] });
    const body = frameMessage(toBinary(ToolInvokeReplySchema, reply));
    const message = unaryReplyMessage(body);
    expect(message.buffer).toBe(body.buffer);
    expect(compileMessageCodec(ToolInvokeReplySchema).decode(message).content).toEqual(["hi"]);
  });

  it.each([
    ["no whole header", Buffer.from([0, 0, 0]), "The service sent no reply"],
    [
      "a compressed message",
      Buffer.from([1, 0, 0, 0, 1, 9]),
      "The service sent a compressed reply, which was not asked for",
    ],
    ["less than the header announces", Buffer.from([0, 0, 0, 0, 4, 9]), "The service's reply was cut short"],
  ])("refuses a unary reply with %s, as Internal", (_what, body, message) => {
    const error = thrown(() => unaryReplyMessage(body));
    expect([error.code, error.rawMessage]).toEqual([Code.Internal, message]);
  });

  it("reads a stream's messages however its bytes arrive, and keeps the start of the next", () => {
    const stream = Buffer.concat([
      frameMessage(Buffer.from("one")),
      frameMessage(Buffer.from("two")),
      frameMessage(Buffer.from("")),
    ]);
    expect(take(stream)).toEqual({ messages: ["one", "two", ""], rest: Buffer.alloc(0) });
    for (let cut = 0; cut <= stream.length; cut++) {
      const first = take(stream.subarray(0, cut));
      const second = take(Buffer.concat([first.rest, stream.subarray(cut)]));
      expect([...first.messages, ...second.messages]).toEqual(["one", "two", ""]);
      expect(second.rest.length).toBe(0);
    }
  });

  it("refuses a stream's compressed message (Internal) and one announced over the limit before it arrives (ResourceExhausted)", () => {
    const compressed = thrown(() => take(Buffer.from([1, 0, 0, 0, 1, 9])));
    expect([compressed.code, compressed.rawMessage]).toEqual([
      Code.Internal,
      "The service sent a compressed reply, which was not asked for",
    ]);
    const header = Buffer.from([0, 0, 0, 0, 0]);
    header.writeUInt32BE(2_000, 1);
    const tooLarge = thrown(() => take(header, 1_000));
    expect([tooLarge.code, tooLarge.rawMessage]).toEqual([
      Code.ResourceExhausted,
      "Received message larger than max (2000 vs. 1000)",
    ]);
    expect(take(frameMessage(Buffer.alloc(1_000)), 1_000).messages).toHaveLength(1);
  });

  it("stops at what onMessage throws, with the messages before it handed out", () => {
    const seen: string[] = [];
    const failing = () =>
      takeReplyMessages(
        Buffer.concat([frameMessage(Buffer.from("a")), frameMessage(Buffer.from("b"))]),
        10,
        (m) => {
          seen.push(m.toString());
          if (seen.length === 2) throw new TrestleError("undecodable", Code.Internal);
        },
      );
    expect(thrown(failing).rawMessage).toBe("undecodable");
    expect(seen).toEqual(["a", "b"]);
  });
});
