/**
 * A capability service process for the benchmark: an echo `ToolInvoker` (answers the `text` argument as its
 * content) and a fake `CodeExecutor` whose output chunks carry the monotonic time they left the engine. Started
 * by the harness with an IPC channel: it sends `{ type: "ready", host, port }`, answers `{ type: "stats" }`
 * with `{ type: "stats", connections }`, and registers with a router when asked
 * (`{ type: "register", routerUrl, target }` → `{ type: "registered", id }`).
 */

import {
  createCapabilityServer,
  createRegistrationClient,
  type RegistrationClient,
} from "@trestle/capability";
import { ExecutionStatus, OutputType, RuntimeStatus } from "@trestle/proto";
import type { CodeExecutionReplyInit } from "@trestle/wanaku";
import type { CapabilityCommand, CapabilityEvent } from "./capability-protocol.js";

function send(event: CapabilityEvent): void {
  process.send?.(event);
}

/** The engine's program: how many chunks to print, and how far apart. */
function parseProgram(code: string): { chunks: number; intervalMs: number } {
  try {
    const parsed = JSON.parse(code) as { chunks?: unknown; intervalMs?: unknown };
    return {
      chunks: typeof parsed.chunks === "number" ? Math.min(parsed.chunks, 10_000) : 10,
      intervalMs: typeof parsed.intervalMs === "number" ? parsed.intervalMs : 5,
    };
  } catch {
    return { chunks: 10, intervalMs: 5 };
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

const server = createCapabilityServer({
  toolInvoker(request) {
    return { content: [request.arguments.text ?? ""] };
  },
  healthProbe: () => ({ status: RuntimeStatus.STARTED }),
  async *codeExecutor(request, context): AsyncGenerator<CodeExecutionReplyInit> {
    const { chunks, intervalMs } = parseProgram(request.code);
    for (let i = 0; i < chunks && !context.signal.aborted; i++) {
      await sleep(intervalMs, context.signal);
      // process.hrtime is CLOCK_MONOTONIC: the same clock in every process of the machine.
      yield {
        outputType: OutputType.STDOUT,
        status: ExecutionStatus.RUNNING,
        content: [`${process.hrtime.bigint()}\n`],
      };
    }
    yield { outputType: OutputType.STATUS, status: ExecutionStatus.COMPLETED, exitCode: 0 };
  },
});

const registrations: RegistrationClient[] = [];

process.on("message", (message: CapabilityCommand) => {
  if (message.type === "stats") {
    send({ type: "stats", connections: server.connectionCount() });
  } else if (message.type === "register") {
    const address = server.address();
    if (!address) return;
    const registration = createRegistrationClient({
      routerUrl: message.routerUrl,
      target: { ...message.target, host: address.host, port: address.port },
      heartbeatIntervalMs: 5_000,
      ...(message.token ? { token: message.token } : {}),
    });
    registrations.push(registration);
    registration.start();
    void registration.ready().then((target) => send({ type: "registered", id: target.id, tag: message.tag }));
  }
});

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await Promise.allSettled(registrations.map((r) => r.stop()));
  await server.close();
  process.exit(0);
};
process.once("SIGTERM", () => void stop());
process.once("SIGINT", () => void stop());
process.once("disconnect", () => void stop());

const { host, port } = await server.listen();
send({ type: "ready", host, port });
