import { execFileSync } from "node:child_process";
import { create } from "@bufbuild/protobuf";
import { createCapabilityServer } from "@trestle/capability";
import type { BridgeTransport, ServiceTarget } from "@trestle/core";
import {
  type CodeExecutionReply,
  CodeExecutionRequestSchema,
  ExecutionStatus,
  OutputType,
} from "@trestle/proto";
import { createConnectTransport } from "@trestle/transport-connect";
import { createExecService, type ExecServiceOptions } from "../src/index.js";

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
  run(
    language: string,
    code: string,
    extra?: {
      arguments?: Record<string, string>;
      environment?: Record<string, string>;
      timeout?: bigint;
      signal?: AbortSignal;
      onReply?: (reply: CodeExecutionReply) => void;
    },
  ): Promise<RunResult>;
  close(): Promise<void>;
}

/** Starts an engine on a free port. */
export async function serveEngine(options: ExecServiceOptions): Promise<ServedEngine> {
  const engine = createExecService(options);
  const { languages, engineName: _name, ...handlers } = engine;
  const server = createCapabilityServer(handlers);
  const address = await server.listen();
  const target: ServiceTarget = {
    id: "exec-test",
    serviceName: "trestle",
    serviceType: "code-execution-engine",
    serviceSubType: "trestle",
    ...address,
  };
  const transport: BridgeTransport = createConnectTransport({ streamTimeoutMs: 30_000 });
  return {
    languages,
    async run(language, code, extra = {}) {
      const request = create(CodeExecutionRequestSchema, {
        uri: `code-execution-engine://trestle/${language}`,
        code,
        arguments: extra.arguments ?? {},
        environment: extra.environment ?? {},
        ...(extra.timeout === undefined ? {} : { timeout: extra.timeout }),
      });
      const replies: ArrivedReply[] = [];
      for await (const reply of transport.executeCode(
        request,
        target,
        extra.signal ? { signal: extra.signal } : {},
      )) {
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
 * Process ids in a process group that are still running, as `ps` sees them. Zombies (killed, not yet reaped
 * by init, which here reaps only every second or two) run nothing and are left out.
 */
export function liveProcessesInGroup(pgid: number): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,pgid=,stat="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, group, stat]) => Number(group) === pgid && !stat?.startsWith("Z"))
    .map(([pid]) => Number(pid));
}

/** Statuses in order, for assertions on the shape of a stream. */
export function statuses(result: RunResult): ExecutionStatus[] {
  return result.replies.map((r) => r.reply.status);
}

export { ExecutionStatus, OutputType };
