import { z } from "zod";
import { registryEventSchema, toolCallEventSchema } from "./api-schemas.js";
import { jsonAnswer, operationGroup } from "./operation-group.js";

// Events
const eventOperation = operationGroup({ tags: ["events"], scope: "admin" });
const toolCallNotifications = eventOperation({
  id: "toolCallNotifications",
  method: "GET",
  path: "/api/v2/tool-calls/notifications",
  summary: "Stream tool-call events as they happen",
  description:
    "Server-sent events named `started`, `completed` or `failed`; the SSE id is `<eventId>:<type>`, and a client that reconnects with `Last-Event-ID` gets the events it missed first. Events are redacted at their source.",
  query: z.object({
    toolName: z.string().optional().describe("Only this tool's events"),
    lastEventId: z
      .string()
      .optional()
      .describe("Resume after this SSE id (for clients that cannot send the `Last-Event-ID` header)"),
  }),
  response: { kind: "sse", description: "Tool-call events.", events: toolCallEventSchema },
  errors: [],
});
const toolCallHistory = eventOperation({
  id: "toolCallHistory",
  method: "GET",
  path: "/api/v2/tool-calls/history",
  summary: "The latest tool-call events",
  query: z.object({
    limit: z.string().optional().describe("How many events at most (a positive integer; default 100)"),
    toolName: z.string().optional().describe("Only this tool's events"),
    type: z.string().optional().describe("Only events of this type: `started`, `completed` or `failed`"),
    namespace: z.string().optional().describe("Only events of calls made in this namespace"),
  }),
  response: jsonAnswer("The events, oldest first", z.array(toolCallEventSchema)),
  errors: [],
});
const registryEvents = eventOperation({
  id: "registryEvents",
  method: "GET",
  path: "/api/v1/management/events",
  summary: "Stream registry events: registrations, deregistrations, updates and health changes",
  description: "Server-sent events named after the event's type.",
  response: { kind: "sse", description: "Registry events.", events: registryEventSchema },
  errors: [],
});

/** The event operations: the live tool-call notifications, the tool-call history and the registry's change feed. By `operationId`, as `managementApi` lists them. */
export const eventOperations = {
  toolCallNotifications,
  toolCallHistory,
  registryEvents,
} as const;
