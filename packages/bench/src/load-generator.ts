/**
 * The load generator process: keeps `concurrency` calls in flight against one target for a warm-up and then a
 * measured window, and sends a {@link LoadResult} over IPC. The spec comes as JSON in argv[2]. Runs in its own
 * process so that its CPU is not the server's.
 */
import { Agent, request as httpRequest } from "node:http";
import { a2aAnswerText } from "./a2a-answer.js";
import type { LoadProgress, LoadResult, LoadSpec } from "./load-spec.js";
import { createMcpHttpClient } from "./mcp-http-client.js";

/** Makes one call carrying `text`; throws unless the target answered it correctly. */
type CallFn = (text: string) => Promise<void>;

interface Session {
  call: CallFn;
  close(): Promise<void>;
}

/** Throws unless `answer` is the echo of `text`. */
function checkEcho(text: string, answer: string): void {
  if (answer !== text) throw new Error(`echo mismatch: sent '${text}', got '${answer.slice(0, 80)}'`);
}

async function mcpSession(spec: LoadSpec & { target: { kind: "mcp" } }): Promise<Session> {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency });
  const stateless = spec.target.stateless === true;
  const client = createMcpHttpClient({
    url: spec.target.url,
    agent,
    stateless,
    ...(spec.target.authorization ? { authorization: spec.target.authorization } : {}),
  });
  // A 2026-07-28 client has no session to open: every call stands alone.
  if (!stateless) await client.initialize();
  const stream =
    spec.target.openStream && !stateless
      ? await client.openStream(() => undefined).catch(() => undefined)
      : undefined;
  const tool = spec.target.tool;
  const fixed = spec.target.fixed;
  return {
    async call(text) {
      const reply = await client.request("tools/call", {
        name: tool,
        arguments: fixed ? fixed.arguments : { text },
      });
      if (reply.error) throw new Error(`JSON-RPC error ${reply.error.code}: ${reply.error.message}`);
      const result = reply.result as { isError?: boolean; content?: { text?: string }[] };
      const answer = result.content?.[0]?.text ?? "";
      if (result.isError) throw new Error(`isError result: ${answer}`);
      if (!fixed) checkEcho(text, answer);
      else if (!answer.includes(fixed.expect))
        throw new Error(`expected '${fixed.expect}' in the answer, got '${answer.slice(0, 80)}'`);
    },
    async close() {
      stream?.close();
      if (!stateless) await client.terminate();
      agent.destroy();
    },
  };
}

async function grpcSession(spec: LoadSpec & { target: { kind: "grpc" } }): Promise<Session> {
  // Loaded only for gRPC runs: MCP runs start faster without grpc-js and protobuf.
  const [{ create }, { ToolInvokeRequestSchema }, { createGrpcWanakuTransport }] = await Promise.all([
    import("@bufbuild/protobuf"),
    import("@trestle/proto"),
    import("@trestle/transport-grpc"),
  ]);
  const transport = createGrpcWanakuTransport({});
  const target = {
    id: "bench",
    serviceName: "echo",
    host: spec.target.host,
    port: spec.target.port,
    serviceType: "tool-invoker" as const,
  };
  return {
    async call(text) {
      const reply = await transport.invokeTool(
        create(ToolInvokeRequestSchema, { uri: "echo://bench", arguments: { text } }),
        target,
      );
      checkEcho(text, reply.content[0] ?? "");
    },
    close: () => transport.close(),
  };
}

/** A2A v1.0 `SendMessage` over JSON-RPC on keep-alive connections, as an A2A client sends it. */
function a2aSession(spec: LoadSpec & { target: { kind: "a2a" } }): Session {
  const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency });
  const url = new URL(spec.target.url);
  const tool = spec.target.tool;
  let nextId = 0;
  const post = (body: string) =>
    new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "a2a-version": "1.0" },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            text += chunk;
          });
          res.on("end", () =>
            res.statusCode === 200
              ? resolve(text)
              : reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`)),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return {
    async call(text) {
      const id = ++nextId;
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "SendMessage",
        params: {
          message: {
            messageId: `m${id}`,
            role: "ROLE_USER",
            parts: [{ data: { tool, arguments: { text } } }],
          },
        },
      });
      checkEcho(text, a2aAnswerText(JSON.parse(await post(body))));
    },
    async close() {
      agent.destroy();
    },
  };
}

async function openSession(spec: LoadSpec): Promise<Session> {
  switch (spec.target.kind) {
    case "mcp":
      return mcpSession(spec as LoadSpec & { target: { kind: "mcp" } });
    case "grpc":
      return grpcSession(spec as LoadSpec & { target: { kind: "grpc" } });
    case "a2a":
      return a2aSession(spec as LoadSpec & { target: { kind: "a2a" } });
  }
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const cpuStart = process.cpuUsage();
  const session = await openSession(spec);
  const latencies: number[] = [];
  const errorSamples: string[] = [];
  let calls = 0;
  let errors = 0;
  let totalCalls = 0;
  let measuring = false;
  let stopped = false;
  const padding = "x".repeat(spec.payloadBytes ?? 0);

  const worker = async (index: number) => {
    let n = 0;
    while (!stopped) {
      const text = `w${index}-${n++}${padding}`;
      const start = performance.now();
      try {
        await session.call(text);
        totalCalls++;
        if (measuring) {
          calls++;
          latencies.push(performance.now() - start);
        }
      } catch (error) {
        if (measuring) {
          errors++;
          if (errorSamples.length < 5) errorSamples.push((error as Error).message);
        }
        // A failing target must not turn the loop into a busy spin.
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
  };

  const workers = Array.from({ length: spec.concurrency }, (_, i) => worker(i));
  await new Promise((resolve) => setTimeout(resolve, spec.warmupMs));
  measuring = true;
  const windowStart = performance.now();
  const reportProgress = () => {
    const progress: LoadProgress = {
      type: "progress",
      calls,
      errors,
      elapsedMs: performance.now() - windowStart,
    };
    process.send?.(progress);
  };
  const progressTimer =
    spec.progressIntervalMs === undefined ? undefined : setInterval(reportProgress, spec.progressIntervalMs);
  if (progressTimer) reportProgress();
  await new Promise((resolve) => setTimeout(resolve, spec.durationMs));
  measuring = false;
  const windowMs = performance.now() - windowStart;
  if (progressTimer) {
    clearInterval(progressTimer);
    reportProgress();
  }
  stopped = true;
  await Promise.race([Promise.all(workers), new Promise((resolve) => setTimeout(resolve, 10_000))]);
  // The harness reads the servers' CPU now, before the session ends: a gateway ends the stdio server of a
  // session on DELETE, and an orphaned process's CPU can no longer be read.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 30_000);
    process.once("message", () => {
      clearTimeout(timer);
      resolve();
    });
    process.send?.({ type: "measured" });
  });
  await session.close();
  const cpu = process.cpuUsage(cpuStart);
  return {
    type: "result",
    calls,
    errors,
    errorSamples,
    windowMs,
    latenciesMs: latencies,
    totalCalls,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
  };
}

const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec;
run(spec).then(
  (result) => process.send?.(result, () => process.exit(0)),
  (error: Error) => {
    process.send?.({ type: "failed", message: error.stack ?? error.message }, () => process.exit(1));
  },
);
