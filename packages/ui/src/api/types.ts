/*
 * What the admin UI reads from the management API, as the router's OpenAPI document (`/api/openapi.json`)
 * describes it: only the fields the UI shows. The UI is a client of the public API like any other, so these are
 * its own view of the answers, not the router's types.
 */

/** Labels on a catalog entry. */
export type Labels = Record<string, string>;

/** A namespace (`""` is the default one). */
export interface Namespace {
  name: string;
  description?: string;
  labels?: Labels;
}

/** A tool of the catalog. */
export interface Tool {
  name: string;
  type: string;
  uri: string;
  description?: string;
  title?: string;
  namespace?: string;
  inputSchema?: { type?: string; properties?: Record<string, unknown>; required?: string[] };
  labels?: Labels;
}

/** A resource of the catalog. */
export interface Resource {
  name: string;
  type: string;
  location: string;
  description?: string;
  mimeType?: string;
  namespace?: string;
  labels?: Labels;
}

/** A prompt of the catalog. */
export interface Prompt {
  name: string;
  description?: string;
  namespace?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  labels?: Labels;
}

/** A service's health as the router's prober sees it. */
export type HealthState = "healthy" | "pending" | "unhealthy" | "down";

/** One registered instance of a capability service. */
export interface RegisteredService {
  id: string;
  target: {
    id: string;
    serviceName: string;
    host: string;
    port: number;
    serviceType: string;
    serviceSubType?: string;
    languageName?: string;
    protocol?: string;
  };
  health: HealthState;
  healthMessage?: string;
  healthChangedAt: number;
  registeredAt: number;
  lastSeenAt: number;
  registeredBy?: string;
}

/** The state of an instance's circuit on the router that answered. */
export type CircuitState = "closed" | "open" | "half-open";

/** An instance's circuit and the calls in flight to it, on the router that answered. */
export interface ServiceCircuit {
  id: string;
  state: CircuitState;
  inFlight: number;
}

/** A forward (an MCP server or A2A agent behind the router) with its import status. */
export interface Forward {
  name: string;
  namespace: string;
  description?: string;
  prefix?: string;
  service: string;
  upstream:
    | { kind: "stdio"; program: string; argumentCount: number; mode: string; sandbox: boolean }
    | { kind: "http"; server: string }
    | { kind: "a2a"; server: string };
  status: {
    state: "connecting" | "ready" | "reconnecting" | "failed";
    server?: { name: string; version: string };
    imported: { tools: number; resources: number; resourceTemplates: number; prompts: number };
    skipped: { kind: string; upstreamName: string; reason: string }[];
    importedAt?: string;
    error?: string;
  };
}

/** A tool-call event, redacted at its source by the router. */
export type ToolCallEvent =
  | (ToolCallEventBase & { type: "started"; arguments?: Record<string, string>; serviceAddress?: string })
  | (ToolCallEventBase & { type: "completed"; isError: false; duration: number; content?: string[] })
  | (ToolCallEventBase & {
      type: "failed";
      isError: true;
      duration: number;
      errorCategory: string;
      errorMessage: string;
    });

interface ToolCallEventBase {
  eventId: string;
  timestamp: number;
  toolName: string;
  toolType: string;
  kind: "tool" | "code-execution";
  namespace?: string;
  requestId?: string;
  principal?: string;
}

/** A started code execution: the task whose output streams. */
export interface CodeExecutionTask {
  taskId: string;
  streamUrl: string;
}

/** One event of a code execution's output stream. */
export type CodeExecutionEvent =
  | {
      event: "reply";
      data: {
        outputType: "stdout" | "stderr" | "status" | "completion" | "unspecified";
        status: string;
        content: string | string[];
        exitCode?: number;
      };
    }
  | { event: "error"; data: { code: number; message: string } }
  | { event: "dropped"; data: { dropped: number } }
  | { event: "end"; data: { taskId: string } };
