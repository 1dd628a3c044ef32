import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import { createCapabilityServer } from "@trestle/capability";
import type { ServiceTarget } from "@trestle/core";
import {
  type CodeExecutionReply,
  CodeExecutionRequestSchema,
  ExecutionStatus,
  OutputType,
} from "@trestle/proto";
import { createConnectWanakuTransport } from "@trestle/transport-connect";

/** A transport that speaks the Wanaku messages as they are: these tests check the service's own wire. */
type WanakuTransport = ReturnType<typeof createConnectWanakuTransport>;

import { createExecService, type ExecService, type ExecServiceOptions } from "../src/index.js";

/** A reply and when it reached the client. */
export interface ArrivedReply {
  reply: CodeExecutionReply;
  at: number;
}

/** What a run looked like from the client. */
export interface RunResult {
  replies: ArrivedReply[];
  stdout: string;
  stderr: string;
  final: CodeExecutionReply;
}

/** A code execution engine served by a real capability server, called through the Connect transport. */
export interface ServedEngine {
  languages: readonly string[];
  /** Which bound holds each run's memory on this host. */
  memoryBound: ExecService["memoryBound"];
  run(
    language: string,
    code: string,
    extra?: {
      arguments?: Record<string, string>;
      environment?: Record<string, string>;
      timeout?: bigint;
      signal?: AbortSignal;
      /** Request metadata (e.g. a router's tool channel and run token). */
      metadata?: Record<string, string>;
      onReply?: (reply: CodeExecutionReply) => void;
    },
  ): Promise<RunResult>;
  close(): Promise<void>;
}

/** Starts an engine on a free port. */
export async function serveEngine(options: ExecServiceOptions): Promise<ServedEngine> {
  const engine = createExecService(options);
  const { languages, memoryBound, engineName: _name, ...handlers } = engine;
  const server = createCapabilityServer(handlers);
  const address = await server.listen();
  const target: ServiceTarget = {
    id: "exec-test",
    serviceName: "trestle",
    serviceType: "code-execution-engine",
    serviceSubType: "trestle",
    ...address,
  };
  const transport: WanakuTransport = createConnectWanakuTransport({ streamTimeoutMs: 30_000 });
  return {
    languages,
    memoryBound,
    async run(language, code, extra = {}) {
      const request = create(CodeExecutionRequestSchema, {
        uri: `code-execution-engine://trestle/${language}`,
        code,
        arguments: extra.arguments ?? {},
        environment: extra.environment ?? {},
        ...(extra.timeout === undefined ? {} : { timeout: extra.timeout }),
      });
      const replies: ArrivedReply[] = [];
      for await (const reply of transport.executeCode(request, target, {
        ...(extra.signal ? { signal: extra.signal } : {}),
        ...(extra.metadata ? { metadata: extra.metadata } : {}),
      })) {
        replies.push({ reply, at: Date.now() });
        extra.onReply?.(reply);
      }
      const text = (type: OutputType) =>
        replies
          .filter((r) => r.reply.outputType === type)
          .flatMap((r) => r.reply.content)
          .join("");
      const final = replies.at(-1)?.reply;
      if (!final || final.outputType !== OutputType.COMPLETION) {
        throw new Error(
          `the stream ended without a completion reply: ${JSON.stringify(replies.map((r) => r.reply.status))}`,
        );
      }
      return { replies, stdout: text(OutputType.STDOUT), stderr: text(OutputType.STDERR), final };
    },
    async close() {
      await transport.close();
      await server.close();
    },
  };
}

/**
 * Process ids of processes still running (zombies left out) whose working directory is `dir` or below it, or
 * whose command line names it: a run's sandbox (bwrap names the work directory it binds), its program and
 * whatever the program started. Seen from the host, where a sandbox's own PID namespace does not hide them.
 */
export function liveProcessesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // A process that is exiting has no cwd any more; its command line still tells.
      }
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cwd === dir || cwd.startsWith(`${dir}/`) || cmdline.includes(dir)) found.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

/** Statuses in order, for assertions on the shape of a stream. */
export function statuses(result: RunResult): ExecutionStatus[] {
  return result.replies.map((r) => r.reply.status);
}

export { ExecutionStatus, OutputType };
