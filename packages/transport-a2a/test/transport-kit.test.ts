import type { AddressInfo } from "node:net";
import { type Message, Role, TaskState } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { type BridgeTransport, type JsonObject, type ServiceHandlers, TrestleError } from "@trestle/core";
import { describeTransportContract, type ServedCapability } from "@trestle/core/testing";
import express from "express";
import { a2aSkillUri, createA2aTransport } from "../src/index.js";
import { a2aMessage, taskStatus, textPart } from "../src/testing/index.js";

/**
 * The kit's reference capability as an A2A agent (v1.0, JSON-RPC, streaming) on a loopback port, written with
 * `@a2a-js/sdk`: a message's skill (its metadata `skillId`) is the kit's tool URI and its data part the call's
 * arguments. Each call is a task, published first so that the caller learns its id; the result's text blocks come
 * back as an artifact, a failure as a `FAILED` task with the service's message; `CancelTask` aborts the handler.
 */
async function serveOverA2a(handlers: ServiceHandlers): Promise<ServedCapability> {
  const running = new Map<string, AbortController>();
  const executor: AgentExecutor = {
    async execute(context, bus) {
      const { taskId, contextId, userMessage } = context;
      const controller = new AbortController();
      running.set(taskId, controller);
      const update = (state: TaskState, message?: Message) =>
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId,
            status: taskStatus(state, message),
            metadata: undefined,
          }),
        );
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: taskStatus(TaskState.TASK_STATE_WORKING),
          artifacts: [],
          history: [userMessage],
          metadata: undefined,
        }),
      );
      try {
        if (!handlers.callTool) throw new Error("this agent has no tools");
        const data = userMessage.parts.find((p) => p.content?.$case === "data")?.content;
        const result = await handlers.callTool(
          {
            tool: { name: "kit-tool", type: "kit", uri: String(userMessage.metadata?.skillId ?? "") },
            arguments: (data?.$case === "data" ? data.value : {}) as JsonObject,
          },
          { signal: controller.signal, requestId: "", metadata: {} },
        );
        const texts = result.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: {
              artifactId: "result",
              name: "result",
              description: "",
              parts: texts.map(textPart),
              metadata: undefined,
              extensions: [],
            },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
        update(result.isError ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_COMPLETED);
      } catch (error) {
        // Cancelled: `cancelTask` has said so. Otherwise the task fails with the service's own words.
        if (!controller.signal.aborted) {
          update(
            TaskState.TASK_STATE_FAILED,
            a2aMessage(Role.ROLE_AGENT, [textPart(TrestleError.from(error).rawMessage)], {
              taskId,
              contextId,
            }),
          );
        }
      } finally {
        running.delete(taskId);
        bus.finished();
      }
    },
    async cancelTask(taskId, bus) {
      running.get(taskId)?.abort(new Error("cancelled by the caller"));
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: "",
          status: taskStatus(TaskState.TASK_STATE_CANCELED),
          metadata: undefined,
        }),
      );
      bus.finished();
    },
  };

  const app = express();
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const card = {
    name: "Kit reference agent",
    description: "The transport kit's reference capability as an A2A agent",
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
    ],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.get("/.well-known/agent-card.json", (_req, res) => {
    res.json(card);
  });
  // The kit's large payload (about 1 MB of JSON) is past express's default body limit.
  app.use(
    "/a2a/jsonrpc",
    express.json({ limit: "8mb" }),
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  return {
    target: { id: `kit-${port}`, serviceName: "kit", host: "127.0.0.1", port, serviceType: "tool-invoker" },
    async close() {
      for (const controller of running.values()) controller.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A2A addresses a skill by an `a2a://<forward>/skills/<id>` URI and takes `{message?, data?, task?}`: the kit's
 * tool URI becomes the skill's id and its arguments the data part, nothing else.
 */
function addressingKitSkills(transport: BridgeTransport): BridgeTransport {
  return {
    ...transport,
    callTool: (call, target, options) =>
      transport.callTool(
        {
          ...call,
          tool: { ...call.tool, uri: a2aSkillUri("kit", call.tool.uri) },
          arguments: { data: call.arguments },
        },
        target,
        options,
      ),
  };
}

async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describeTransportContract({
  name: "a2a transport ↔ an A2A agent (@a2a-js/sdk, JSON-RPC, streaming)",
  // Without a directory a target means the agent at http://<host>:<port>.
  createTransport: () => addressingKitSkills(createA2aTransport()),
  serve: serveOverA2a,
  deadTarget: async () => ({
    id: "dead",
    serviceName: "dead",
    host: "127.0.0.1",
    port: await freePort(),
    serviceType: "tool-invoker",
  }),
  // An A2A message carries text and data parts, not a tool's configuration, secrets or call metadata; an agent
  // has no resources, code execution or provisioning; a failed task says why in words, with no code; the card
  // is read or not.
  expresses: {
    callFields: false,
    resources: false,
    resourceFields: false,
    serviceErrorCodes: false,
    allErrorCodes: false,
    healthStates: false,
    codeExecution: false,
    provisioning: false,
  },
});
