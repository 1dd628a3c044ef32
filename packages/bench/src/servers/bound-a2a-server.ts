#!/usr/bin/env node
/**
 * The A2A front's bound: a bare `@a2a-js/sdk` 1.3 agent (its JSON-RPC handler driven from `node:http`, as the
 * router drives it, tasks in the SDK's in-memory store) answering a `SendMessage` whose data part is
 * `{tool, arguments: {text}}` with a completed task whose artifact holds the text: what the router answers for the
 * echo tool, with the tool run in-process. Prints `{"listening":PORT}`.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type AgentCard, type Part, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
} from "@a2a-js/sdk/server";

const card: AgentCard = {
  name: "bound-a2a",
  description: "",
  supportedInterfaces: [{ url: "", protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
  provider: undefined,
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["application/json", "text/plain"],
  defaultOutputModes: ["application/json", "text/plain"],
  skills: [],
  signatures: [],
};

const textPart = (text: string): Part => ({
  content: { $case: "text", value: text },
  metadata: undefined,
  filename: "",
  mediaType: "text/plain",
});

/** Submitted, the echo as the `result` artifact, completed: the events the router's front publishes. */
const executor: AgentExecutor = {
  async execute(context, bus) {
    const { taskId, contextId, userMessage } = context;
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_SUBMITTED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        artifacts: [],
        history: [userMessage],
        metadata: undefined,
      }),
    );
    const data = userMessage.parts.find((p) => p.content?.$case === "data")?.content;
    const args =
      data?.$case === "data" ? (data.value as { arguments?: { text?: unknown } }).arguments : undefined;
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: "result",
          name: "result",
          description: "",
          parts: [textPart(String(args?.text ?? ""))],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_COMPLETED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    bus.finished();
  },
  async cancelTask() {},
};

const rpc = new JsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), executor));

const http = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const version = req.headers["a2a-version"];
    const context = new ServerCallContext({
      requestedVersion: typeof version === "string" ? version : "1.0",
    });
    rpc.handle(Buffer.concat(chunks).toString("utf8"), context).then(
      (answer) => {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
      },
      (error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      },
    );
  });
});

http.keepAliveTimeout = 65_000;
http.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ listening: (http.address() as AddressInfo).port })}\n`);
});

const stop = () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
