import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import { ToolInvokeReplySchema, ToolInvokeRequestSchema, ToolInvoker } from "@trestle/proto";
import { startFakeRouter } from "@trestle/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { createLazyRequestListener, type RequestListener } from "../src/lazy-request-listener.js";

const register = fileURLToPath(new URL("./support/module-trace-register.mjs", import.meta.url));
const service = fileURLToPath(new URL("./support/echo-capability.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "capability-module-trace-"));
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Module URLs of the two protocol stacks, by a part of their path in pnpm's store. */
const GRPC_JS = "/@grpc+grpc-js@";
const CONNECT_NODE = "/@connectrpc+connect-node@";

/**
 * Starts a capability process with `args` (its script last) and only `env` besides `PATH`: nothing of the test
 * runner's environment is the service's business. Resolves the port it prints once listening.
 */
async function startCapabilityProcess(args: string[], env: Record<string, string> = {}): Promise<number> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) return (JSON.parse(line) as { port: number }).port;
  throw new Error("the capability process ended before it listened");
}

/** Starts the echo capability (from the build) with the module trace; resolves its port. */
function startTraced(trace: string): Promise<number> {
  return startCapabilityProcess(["--import", register, service], { TRESTLE_MODULE_TRACE: trace });
}

/** A grpc-js unary `InvokeTool` with `metadata`: the reply's content, or the call's gRPC status code. */
function grpcJsCall(
  client: grpc.Client,
  body: string,
  metadata = new grpc.Metadata(),
): Promise<string[] | number> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      "/ai.wanaku.tool.v1.ToolInvoker/InvokeTool",
      (value: Uint8Array) => Buffer.from(value),
      (bytes: Buffer) => fromBinary(ToolInvokeReplySchema, bytes),
      toBinary(ToolInvokeRequestSchema, create(ToolInvokeRequestSchema, { body })),
      metadata,
      (error, reply) => resolve(error ? (error.code as number) : (reply?.content ?? [])),
    );
  });
}

describe("what a capability server process loads", () => {
  it("serves gRPC without grpc-js or connect-node, and loads connect-node with the first Connect request", async () => {
    const trace = join(dir, "modules.txt");
    const port = await startTraced(trace);
    const loaded = () => readFileSync(trace, "utf8");
    // The trace works: the server's own modules are in it.
    expect(loaded()).toContain("/capability/dist/grpc-server.js");

    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      expect(await grpcJsCall(client, "grpc")).toEqual(["hello grpc"]);
    } finally {
      client.close();
    }
    expect(loaded()).not.toContain(GRPC_JS);
    expect(loaded()).not.toContain(CONNECT_NODE);
    expect(loaded()).not.toContain("/capability/dist/connect-adapter.js");

    // Connect unary in protobuf over HTTP/2 (what the router sends over Connect) is served on the streams too.
    const baseUrl = `http://127.0.0.1:${port}`;
    const binary = createClient(ToolInvoker, createConnectTransport({ baseUrl, httpVersion: "2" }));
    expect((await binary.invokeTool({ body: "binary" })).content).toEqual(["hello binary"]);
    expect(loaded()).not.toContain(CONNECT_NODE);
    expect(loaded()).not.toContain("/capability/dist/connect-adapter.js");

    // The first requests connect-node serves arrive together, over HTTP/1.1 and HTTP/2, while it loads: all are served.
    const http1 = createClient(ToolInvoker, createConnectTransport({ baseUrl, httpVersion: "1.1" }));
    const http2 = createClient(
      ToolInvoker,
      createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: false }),
    );
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? http1 : http2).invokeTool({ body: `connect ${i}` })),
    );
    expect(replies.map((reply) => reply.content[0])).toEqual(
      Array.from({ length: 6 }, (_, i) => `hello connect ${i}`),
    );
    expect(loaded()).toContain(CONNECT_NODE);
    expect(loaded()).not.toContain(GRPC_JS);
  });
});

describe("what a capability server process loads while it serves gRPC", () => {
  it("answers, fails, refuses and aborts its handlers' signals without loading undici (~6 MiB resident)", async () => {
    const script = fileURLToPath(new URL("./support/signal-reading-capability.mjs", import.meta.url));
    const port = await startCapabilityProcess([script]);
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const withSecret = new grpc.Metadata();
    withSecret.set("x-trestle-capability-secret", "s3cret");
    try {
      // A call answered (its handler's signal then aborts: the call is over), one that fails, one refused.
      expect(await grpcJsCall(client, "there", withSecret)).toEqual(["hello there"]);
      expect(await grpcJsCall(client, "fail", withSecret)).toBe(grpc.status.NOT_FOUND);
      expect(await grpcJsCall(client, "there", new grpc.Metadata())).toBe(grpc.status.UNAUTHENTICATED);
      const report = await grpcJsCall(client, "report", withSecret);
      const { atStart, now } = JSON.parse((report as string[])[0] as string) as {
        atStart: string[];
        now: string[];
      };
      if (process.versions.node.startsWith("20.")) expect(atStart).toEqual([]);
      expect(now).toEqual(atStart);
    } finally {
      client.close();
    }
  });
});

describe("what a registering capability process loads", () => {
  it("registers, heartbeats and deregisters without loading undici (the global fetch, ~6 MiB resident) beyond what node:http loads", async () => {
    const router = await startFakeRouter("t0k3n");
    try {
      const script = fileURLToPath(new URL("./support/registering-service.mjs", import.meta.url));
      const child = spawn(process.execPath, [script, router.url, "t0k3n"], {
        env: { PATH: process.env.PATH ?? "" },
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.push(child);
      let printed = "";
      for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
        printed = line;
      }
      const paths = router.requests.map((r) => `${r.method} ${r.path}`);
      expect(paths[0]).toBe("POST /api/v1/management/discovery");
      expect(paths).toContain("POST /api/v1/management/discovery/heartbeats");
      expect(paths.at(-1)).toBe("DELETE /api/v1/management/discovery");
      const { withHttp, atEnd } = JSON.parse(printed) as { withHttp: string[]; atEnd: string[] };
      // On Node 20 importing node:http loads none of it; on 22 and 24 it does, and then there is nothing to save.
      if (process.versions.node.startsWith("20.")) expect(withHttp).toEqual([]);
      expect(atEnd).toEqual(withHttp);
    } finally {
      await router.close();
    }
  });
});

describe("createLazyRequestListener", () => {
  async function serve(listener: RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
    const server = http.createServer(listener as http.RequestListener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    return {
      url: `http://127.0.0.1:${port}`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  it("holds requests while loading and serves them all with what loaded, loading once", async () => {
    let loads = 0;
    let release: (() => void) | undefined;
    const lazy = createLazyRequestListener("the echo", async () => {
      loads++;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return (request, response) => {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => response.end(`echo ${Buffer.concat(chunks).toString()}`));
      };
    });
    const server = await serve(lazy);
    try {
      const answers = Array.from({ length: 3 }, (_, i) =>
        fetch(server.url, { method: "POST", body: `body ${i}` }).then((r) => r.text()),
      );
      const waitFor = Date.now() + 10_000;
      while (!release && Date.now() < waitFor) await new Promise((resolve) => setTimeout(resolve, 5));
      release?.();
      expect(await Promise.all(answers)).toEqual(["echo body 0", "echo body 1", "echo body 2"]);
      expect(await (await fetch(server.url, { method: "POST", body: "later" })).text()).toBe("echo later");
      expect(loads).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("answers 503 saying what failed when loading fails, and tries again on the next request", async () => {
    let loads = 0;
    const lazy = createLazyRequestListener("its Connect protocol support", async () => {
      loads++;
      if (loads === 1) throw new Error("Cannot find package '@connectrpc/connect-node'");
      return (_request, response) => response.end("loaded");
    });
    const server = await serve(lazy);
    try {
      const failed = await fetch(server.url, { method: "POST", body: "x" });
      expect(failed.status).toBe(503);
      expect(await failed.text()).toBe(
        "The capability server could not load its Connect protocol support: Cannot find package '@connectrpc/connect-node'",
      );
      const retried = await fetch(server.url, { method: "POST", body: "x" });
      expect(await retried.text()).toBe("loaded");
      expect(loads).toBe(2);
    } finally {
      await server.close();
    }
  });
});
