import { createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Code, isTrestleError, TrestleError } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rejectionOf, type ServedHttpService, serveHttpService } from "./service-fixture.js";
import { startTestHttpServer, type TestHttpServer } from "./test-http-server.js";

let upstream: TestHttpServer;
let service: ServedHttpService;

beforeAll(async () => {
  upstream = await startTestHttpServer();
  service = await serveHttpService({ allowPrivate: true, maxResponseBytes: 64 * 1024, timeoutMs: 2_000 });
});

afterAll(async () => {
  await service?.close();
  await upstream?.close();
});

function lastSeen() {
  const seen = upstream.seen.at(-1);
  if (!seen) throw new Error("the upstream saw no request");
  return seen;
}

describe("a tool call becomes an HTTP request", () => {
  it("fills the URL template and takes method, headers, query and body from config, secrets and the call", async () => {
    const provisioned = await service.transport.provision(
      "items",
      "method=put\nheader.X-Config=from-config\nheader.X-Overridden=config\nquery.limit=10\nquery.fixed=1\n",
      "header.Authorization=Bearer s3cret\nquery.key=k-secret\n",
      service.target,
    );
    expect(provisioned.configurationUri).toMatch(/^file:\/\//);

    const content = await service.invoke({
      uri: `${upstream.origin}/items/{id}?q={q}`,
      arguments: { id: "a b/c", q: "x&y=z", limit: "5", unused: "never sent" },
      headers: { "X-Request": "from-call", "X-Overridden": "call", Host: "evil.example" },
      body: '{"hello":"world"}',
      configurationUri: provisioned.configurationUri,
      secretsUri: provisioned.secretsUri,
    });

    const seen = lastSeen();
    expect(seen.method).toBe("PUT");
    const url = new URL(seen.url, upstream.origin);
    expect(url.pathname).toBe("/items/a%20b%2Fc");
    expect(url.searchParams.get("q")).toBe("x&y=z");
    expect(url.searchParams.get("limit")).toBe("5");
    expect(url.searchParams.get("fixed")).toBe("1");
    expect(url.searchParams.get("key")).toBe("k-secret");
    expect(url.searchParams.has("unused")).toBe(false);
    expect(seen.headers).toMatchObject({
      "x-config": "from-config",
      "x-request": "from-call",
      "x-overridden": "call",
      authorization: "Bearer s3cret",
      "content-type": "application/json",
      host: `127.0.0.1:${upstream.port}`,
    });
    expect(seen.body).toBe('{"hello":"world"}');
    // The answer is the upstream's JSON, pretty-printed.
    expect(content).toHaveLength(1);
    expect(content[0]).toContain('\n  "method": "PUT"');
    expect(JSON.parse(content[0] ?? "")).toMatchObject({ body: '{"hello":"world"}' });
  });

  it("uses GET without a body and POST with one when the configuration names no method", async () => {
    await service.invoke({ uri: `${upstream.origin}/plain` });
    expect(lastSeen().method).toBe("GET");
    await service.invoke({ uri: `${upstream.origin}/plain`, body: "just text" });
    expect(lastSeen()).toMatchObject({ method: "POST", body: "just text" });
    expect(lastSeen().headers["content-type"]).toBe("text/plain; charset=utf-8");
  });

  it("refuses a template whose placeholder has no argument", async () => {
    const error = await rejectionOf(service.invoke({ uri: `${upstream.origin}/items/{id}` }));
    expect(isTrestleError(error, Code.InvalidArgument)).toBe(true);
    expect((error as TrestleError).rawMessage).toContain("id");
  });

  it("calls only http and https URLs", async () => {
    const error = await rejectionOf(service.invoke({ uri: "file:///etc/passwd" }));
    expect(isTrestleError(error, Code.InvalidArgument)).toBe(true);
    expect((error as TrestleError).rawMessage).toContain("file:");
  });

  it("follows a redirect", async () => {
    const content = await service.invoke({ uri: `${upstream.origin}/redirect?to=/landed` });
    expect(JSON.parse(content[0] ?? "")).toMatchObject({ url: "/landed" });
  });
});

describe("answers and failures", () => {
  it.each([
    [404, Code.NotFound],
    [403, Code.PermissionDenied],
    [422, Code.InvalidArgument],
    [503, Code.Internal],
    [500, Code.Internal],
  ])("maps HTTP %i to a TrestleError with the status and an excerpt", async (status, code) => {
    const error = await rejectionOf(
      service.invoke({ uri: `${upstream.origin}/status/${status}`, secretsUri: "" }),
    );
    expect(error).toBeInstanceOf(TrestleError);
    expect((error as TrestleError).code).toBe(code);
    const message = (error as TrestleError).rawMessage;
    expect(message).toContain(`HTTP ${status}`);
    expect(message).toContain("upstream says no");
    expect(message.length).toBeLessThan(400);
  });

  it("never quotes provisioned secrets in an error", async () => {
    const provisioned = await service.transport.provision(
      "secretive",
      "",
      "query.api_key=hush-hush-42\nheader.X-Key=hush-hush-43\n",
      service.target,
    );
    const error = await rejectionOf(
      service.invoke({ uri: `${upstream.origin}/status/404`, secretsUri: provisioned.secretsUri }),
    );
    expect(lastSeen().url).toContain("api_key=hush-hush-42");
    expect(String((error as Error).message)).not.toContain("hush-hush");
  });

  it("cuts a response longer than the cap, with a note", async () => {
    const [text] = await service.invoke({ uri: `${upstream.origin}/big/200000` });
    expect(text?.startsWith("x".repeat(64 * 1024))).toBe(true);
    expect(text).toContain("[response cut: it is longer than the 65536-byte limit of this tool]");
    expect(text?.length).toBeLessThan(64 * 1024 + 200);
  });

  it("gives up at its deadline", async () => {
    const started = Date.now();
    const error = await rejectionOf(service.invoke({ uri: `${upstream.origin}/hang` }));
    expect(isTrestleError(error, Code.Internal)).toBe(true);
    expect((error as TrestleError).rawMessage).toContain("did not answer in time");
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("connections to an upstream", () => {
  /**
   * A server that counts its connections. With `dropReused`, a request arriving on a connection that already served
   * one is not answered: the connection is destroyed, as a server closing an idle connection just as it is reused.
   */
  async function countingServer(dropReused: boolean) {
    const server = createServer((request, response) => {
      const socket = request.socket as Socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      if (dropReused && socket.served > 1) {
        socket.destroy();
        return;
      }
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(`answer ${socket.served}`);
    });
    let connections = 0;
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      origin: `http://127.0.0.1:${port}`,
      connections: () => connections,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it("are kept open between calls: five calls in turn to one origin use one connection", async () => {
    const counting = await countingServer(false);
    try {
      for (let i = 1; i <= 5; i++)
        expect(await service.invoke({ uri: `${counting.origin}/n` })).toEqual([`answer ${i}`]);
      expect(counting.connections()).toBe(1);
    } finally {
      await counting.close();
    }
  });

  it("are opened again when the server closes one as it is reused: the call goes again and is answered", async () => {
    const counting = await countingServer(true);
    try {
      for (let i = 0; i < 3; i++)
        expect(await service.invoke({ uri: `${counting.origin}/n` })).toEqual(["answer 1"]);
      expect(counting.connections()).toBe(3);
    } finally {
      await counting.close();
    }
  });
});
