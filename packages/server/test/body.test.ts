import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readBody, utf8Bytes, writeJson } from "../src/http/body.js";
import { createJsonApi, defineOperation } from "../src/http/json-api.js";

const LIMIT = 64 * 1024;

/**
 * A server that reads bodies as the router does: the management API through `createJsonApi`, and a
 * `/raw` endpoint that answers an oversized body the way the MCP endpoint does (413, `Connection: close`).
 */
describe("an oversized body", () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const api = createJsonApi({ maxBodyBytes: LIMIT });
    api.route(
      defineOperation({
        id: "echo",
        method: "POST",
        path: "/api/echo",
        summary: "Answers with its body",
        tags: ["test"],
        scope: "admin",
        body: { kind: "json", schema: z.looseObject({}), what: "body", description: "Anything" },
        response: { kind: "json", status: 200, description: "The body", data: z.looseObject({}) },
        errors: [],
      }),
      ({ body }) => ({ data: body }),
    );
    server = createServer((req, res) => {
      if (req.url === "/raw") {
        void readBody(req, LIMIT).then((body) => {
          const text = JSON.stringify({ tooLarge: body.tooLarge, length: body.text.length });
          res.writeHead(body.tooLarge ? 413 : 200, {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(text),
            ...(body.tooLarge ? { connection: "close" } : {}),
          });
          res.end(text);
        });
        return;
      }
      void api.handle(req, res, new URL(req.url ?? "/", "http://x"));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /**
   * Sends a body of 3× the limit the way a client on a slow link does (a pause after the limit is crossed, then
   * the rest), and reads the answer only once it sent everything, as most HTTP clients do. A server that closes
   * while the client still sends makes the client's next write fail with EPIPE or ECONNRESET: such a client never
   * reads the 413.
   */
  function send(path: string, chunked: boolean): Promise<string> {
    const body = Buffer.from(JSON.stringify({ pad: "x".repeat(LIMIT * 3) }));
    const head = [
      `POST ${path} HTTP/1.1`,
      `Host: ${new URL(url).host}`,
      "Content-Type: application/json",
      chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${body.length}`,
      "",
      "",
    ].join("\r\n");
    const framed = (part: Buffer) =>
      chunked
        ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n")])
        : part;
    const split = LIMIT + 4096;
    return new Promise((resolve) => {
      let answer = "";
      // Half-open, as a client that keeps sending after the server's FIN (Node's default would give up on FIN).
      const socket = connect(
        { port: Number(new URL(url).port), host: "127.0.0.1", allowHalfOpen: true },
        () => {
          socket.write(head);
          socket.write(framed(body.subarray(0, split)));
          setTimeout(() => {
            socket.write(framed(body.subarray(split)));
            socket.end(chunked ? "0\r\n\r\n" : "");
          }, 25);
        },
      );
      socket.on("data", (chunk: Buffer) => {
        answer += chunk.toString("latin1");
      });
      socket.on("error", (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`));
      socket.on("close", () => resolve(answer.split("\r\n")[0] ?? ""));
    });
  }

  it("is always answered 413 to a client that sends all of it before it reads, with or without Content-Length, 20 times over", async () => {
    const answers: string[] = [];
    for (let i = 0; i < 20; i++) {
      answers.push(await send("/raw", false), await send("/raw", true));
      answers.push(await send("/api/echo", false), await send("/api/echo", true));
    }
    expect(answers.filter((a) => !a.startsWith("HTTP/1.1 413"))).toEqual([]);
  });

  it("is still served up to the limit", async () => {
    const response = await fetch(`${url}/api/echo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pad: "x".repeat(LIMIT - 20) }),
    });
    expect(response.status).toBe(200);
  });
});

describe("utf8Bytes", () => {
  it.each([
    ["ASCII", '{"tools":[{"name":"echo","description":"Says it back"}]}'],
    ["Latin-1 beyond ASCII", '{"city":"Zürich","note":"café"}'],
    ["beyond Latin-1", '{"dash":"—","emoji":"🙂","cjk":"東京"}'],
    ["empty", ""],
  ])("gives the UTF-8 bytes of %s text", (_, text) => {
    const bytes = utf8Bytes(text);
    expect(bytes.equals(Buffer.from(text, "utf8"))).toBe(true);
    expect(bytes.toString("utf8")).toBe(text);
    expect(bytes.length).toBe(Buffer.byteLength(text));
  });
});

describe("writeJson", () => {
  let server: Server;
  let url: string;
  const texts = new Map<string, string>([
    ["small", JSON.stringify({ city: "Zürich — 東京" })],
    [
      "large ASCII",
      JSON.stringify({ tools: Array.from({ length: 2000 }, (_, i) => ({ name: `tool_${i}` })) }),
    ],
    ["large beyond Latin-1", JSON.stringify({ notes: "—🙂".repeat(10_000) })],
  ]);
  beforeAll(async () => {
    server = createServer((req, res) => {
      writeJson(res, 201, texts.get(decodeURIComponent(req.url?.slice(1) ?? "")) ?? "{}", {
        "x-extra": "yes",
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([...texts.keys()])("answers the %s text whole, with its byte length", async (name) => {
    const text = texts.get(name) as string;
    expect(name === "small" ? text.length < 16 * 1024 : text.length >= 16 * 1024).toBe(true);
    const response = await fetch(`${url}/${encodeURIComponent(name)}`);
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("x-extra")).toBe("yes");
    expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    expect(await response.text()).toBe(text);
  });
});
