import { z } from "zod";
import {
  codeExecutionEventSchema,
  codeExecutionRequestSchema,
  codeExecutionTaskSchema,
} from "./api-schemas.js";
import { jsonAnswer, operationGroup } from "./operation-group.js";

// Code execution
const codeExecutionOperation = operationGroup({ tags: ["code execution"], scope: "admin" });
const startCodeExecution = codeExecutionOperation({
  id: "startCodeExecution",
  method: "POST",
  path: "/api/v2/code-execution-engine/{engine}/{language}",
  summary: "Start running code on an engine",
  description: "Answers at once with a task id; read the output from the task's stream.",
  params: z.object({
    engine: z.string().min(1).describe("The engine type"),
    language: z.string().min(1).describe("The language"),
  }),
  body: {
    kind: "json",
    schema: codeExecutionRequestSchema,
    what: "code execution request",
    description: "The code and how to run it",
  },
  response: jsonAnswer("The task", codeExecutionTaskSchema, 202),
  errors: [400],
});
const codeExecutionStream = codeExecutionOperation({
  id: "codeExecutionStream",
  method: "GET",
  path: "/api/v2/code-execution-engine/tasks/{id}/stream",
  summary: "Stream a code execution task's output",
  description:
    "Server-sent events: `reply` (an output), `error` (the run failed), `dropped` (replies lost before the stream was opened), then `end`. A task's stream can be read once.",
  params: z.object({ id: z.string().min(1).describe("The task id") }),
  response: { kind: "sse", description: "The task's output.", events: codeExecutionEventSchema },
  errors: [404, 409],
});

/** The code execution operations: start a run, and follow its output as a stream of events. By `operationId`, as `managementApi` lists them. */
export const codeExecutionOperations = {
  startCodeExecution,
  codeExecutionStream,
} as const;
