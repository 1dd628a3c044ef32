/**
 * An A2A agent written with `@a2a-js/sdk` (v1.0, JSON-RPC binding, on express): one skill, `plan_trip`, that asks
 * where to go when the message does not say (the task waits in `INPUT_REQUIRED`), then streams a plan, one day per
 * artifact chunk. Nothing in it knows about Trestle or MCP.
 */
import type { Server } from "node:http";
import { AgentCard, type Message, Role, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express from "express";

const DESTINATIONS = ["Lisbon", "Porto", "Oslo", "Kyoto"];

function say(text: string, taskId: string, contextId: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [
      { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

const planner: AgentExecutor = {
  async execute(context: RequestContext, bus: ExecutionEventBus) {
    const { taskId, contextId, userMessage } = context;
    const text = userMessage.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join(" ");
    const destination = DESTINATIONS.find((d) => text.toLowerCase().includes(d.toLowerCase()));
    const status = (state: TaskState, message?: Message) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
    bus.publish(
      AgentEvent.task(
        context.task ?? {
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
        },
      ),
    );
    if (!destination) {
      status(
        TaskState.TASK_STATE_INPUT_REQUIRED,
        say(`Where to? I know ${DESTINATIONS.join(", ")}.`, taskId, contextId),
      );
      bus.finished();
      return;
    }
    status(TaskState.TASK_STATE_WORKING);
    const days = [`Day 1: arrive in ${destination}.`, " Day 2: walk the old town.", " Day 3: fly home."];
    for (const [i, day] of days.entries()) {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: "plan",
            name: "plan",
            description: "",
            parts: [
              {
                content: { $case: "text", value: day },
                metadata: undefined,
                filename: "",
                mediaType: "text/plain",
              },
            ],
            metadata: undefined,
            extensions: [],
          },
          append: i > 0,
          lastChunk: i === days.length - 1,
          metadata: undefined,
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    status(TaskState.TASK_STATE_COMPLETED);
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: "",
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    bus.finished();
  },
};

/** A running trip agent: its base URL (its card at `/.well-known/agent-card.json`). */
export interface TripAgent {
  url: string;
  close(): Promise<void>;
}

/** Starts the agent on `port` (0: any free port) of 127.0.0.1. */
export async function startTripAgent(port = 0): Promise<TripAgent> {
  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(port, "127.0.0.1", () => resolve(s));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : port}`;
  const card: AgentCard = {
    name: "Trip planner",
    description: "Plans short trips",
    supportedInterfaces: [
      { url: `${url}/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
    ],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "plan_trip",
        name: "Plan a trip",
        description: "Plans a three-day trip; asks where to when you do not say",
        tags: ["travel"],
        examples: ["Plan me three days in Lisbon"],
        inputModes: ["text/plain"],
        outputModes: ["text/plain"],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), planner);
  app.get("/.well-known/agent-card.json", (_req, res) => {
    res.json(AgentCard.toJSON(card));
  });
  app.use(
    "/a2a",
    express.json(),
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
