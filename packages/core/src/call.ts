import type { Cancellation } from "./cancellation.js";
import type { PromptReference, ResourceReference, ToolReference } from "./catalog.js";
import type { ContentBlock, JsonObject, JsonValue, ResourceContents } from "./content.js";
import type { ContextValues } from "./context-values.js";
import type { ServiceTarget } from "./service-target.js";

/** Metadata sent to the backend with a call (headers on HTTP, metadata on gRPC). Keys are lower-cased on the wire. */
export type CallMetadata = Record<string, string>;

/** A tool call: the catalog's tool and the client's JSON arguments, as the client sent them. */
export interface ToolCall {
  tool: ToolReference;
  arguments: JsonObject;
  /** Metadata that belongs to the call itself rather than to its transport (sent besides `CallOptions.metadata`). */
  metadata?: CallMetadata;
  /** The client's answers when this call repeats one that ended in {@link ToolResult.inputRequired}. */
  input?: InputAnswers;
}

/** A tool's result, in MCP's shape. */
export interface ToolResult {
  content: ContentBlock[];
  structuredContent?: JsonObject;
  /** True when the tool itself reports a failure (the call reached it and it answered). */
  isError?: boolean;
  /**
   * Set when the backend cannot finish without input from the client (MCP 2026-07-28 `input_required`, A2A
   * `INPUT_REQUIRED`): `content` is then empty, and the caller repeats the call with {@link ToolCall.input}.
   */
  inputRequired?: InputRequired;
  _meta?: JsonObject;
}

/**
 * How a transport sends a tool call, said before it sends it (see {@link BridgeTransport.describeToolCall}): which
 * values of what it sends are credentials, and the request as a call's event records it. A transport whose wire
 * turns arguments into something else (Wanaku's headers and body) describes its calls; one that sends the
 * arguments as they are needs not, and the router then applies core's name rules to the arguments.
 */
export interface ToolCallDescription {
  /**
   * Every value the call sends that is a credential (a credential header, a secret field of a body, a secret
   * argument): the router scrubs each from the result, the error messages and the events of the call.
   */
  readonly secretValues: readonly string[];
  /**
   * About how many bytes {@link record} stands for, when the transport knows it cheaply: a call's events may then
   * be kept unbuilt until read.
   */
  readonly estimatedBytes?: number;
  /**
   * The request as a call's STARTED event records it, every value already redacted (names by core's rules, values
   * among {@link secretValues} scrubbed afterwards by the router). Called only when an event is built: perhaps
   * never, perhaps after the call ended; it must not depend on the call's progress.
   */
  record(): {
    /** The arguments sent as arguments, redacted, as text. */
    arguments: Record<string, string>;
    /** The headers the call sends beside its arguments, redacted. */
    headers: Record<string, string>;
    /** The body it sends, redacted; "" for none. */
    body: string;
  };
}

/** A resource read: the catalog's resource and the concrete URI asked for. */
export interface ResourceRead {
  resource: ResourceReference;
  /** The URI the client asked for (the resource's location, or a URI its template matches). */
  uri: string;
  /** Parameters sent with the read (the resource's own, then a template's variables). */
  params?: Record<string, string>;
  metadata?: CallMetadata;
}

/** What a resource read returns. */
export interface ResourceResult {
  contents: ResourceContents[];
  _meta?: JsonObject;
}

/** A prompt get: the catalog's prompt and its arguments. */
export interface PromptGet {
  prompt: PromptReference;
  arguments: Record<string, string>;
  metadata?: CallMetadata;
  /** The client's answers when this get repeats one that ended in {@link PromptResult.inputRequired}. */
  input?: InputAnswers;
}

/** One message of a prompt's result. */
export interface PromptResultMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

/** What a prompt get returns. */
export interface PromptResult {
  description?: string;
  messages: PromptResultMessage[];
  /** Set when the backend needs input first (see {@link ToolResult.inputRequired}); `messages` is then empty. */
  inputRequired?: InputRequired;
  _meta?: JsonObject;
}

/** A code execution: what to run, on which engine and language. */
export interface CodeRun {
  engineType: string;
  language: string;
  /** The code, Base64-encoded or as raw text (a transport that needs one form decodes it). */
  code: string;
  /** Arguments: a list (the engine sees `arg0`, `arg1`, … where its wire has a map) or a map. */
  arguments?: string[] | Record<string, string>;
  /** Environment variables for the run. */
  environment?: Record<string, string>;
  /** How long the engine may run the code, in milliseconds. Not the call's deadline: see `CallOptions`. */
  timeoutMs?: number;
  /** A request body, where the engine's wire has one. */
  body?: string;
  configurationUri?: string;
  secretsUri?: string;
  metadata?: CallMetadata;
}

/** One item of a code execution stream. */
export type CodeOutput =
  | { type: "output"; stream: "stdout" | "stderr"; text: string }
  | { type: "status"; status: "pending" | "running"; text?: string }
  | {
      type: "exit";
      status: "completed" | "failed" | "cancelled" | "timeout";
      exitCode?: number;
      text?: string;
    };

/** Configuration and secrets to store on a service for a tool or resource named `name`. */
export interface Provisioning {
  name: string;
  configurationData: string;
  secretsData: string;
}

/** A property a capability declares for a provisioned tool or resource. */
export interface ProvisionedProperty {
  type: string;
  description: string;
  required: boolean;
}

/** What a capability returns from provisioning: where it stored configuration and secrets, and what it needs. */
export interface ProvisioningReference {
  /** URI of the stored configuration, to send as `configuration_uri` on later calls. */
  configurationUri: string;
  /** URI of the stored secrets, to send as `secrets_uri` on later calls. */
  secretsUri: string;
  /** Properties the capability declares, by name. */
  properties: Record<string, ProvisionedProperty>;
}

/**
 * Health of a service as seen by one probe.
 * - `healthy`: it answered and said it runs (or answered `UNIMPLEMENTED`: it has no probe but is up);
 * - `pending`: it is starting (`FAILED_PRECONDITION` or a status of STARTING);
 * - `unhealthy`: it answered with any other status (stopping, stopped);
 * - `down`: it could not be reached.
 */
export type HealthState = "healthy" | "pending" | "unhealthy" | "down";

/** The result of {@link BridgeTransport.probeHealth}. */
export interface HealthStatus {
  state: HealthState;
  /** Why, when not healthy (or when the service has no probe). */
  message?: string;
}

/** A progress report from the backend (MCP `notifications/progress`). */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** A log message from the backend (MCP `notifications/message`). */
export interface LogMessage {
  level: "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
  logger?: string;
  data: JsonValue;
}

/** A request for input the backend makes while a call runs (MCP server-to-client requests). */
export type InputRequest =
  | { kind: "elicitation"; params: JsonObject }
  | { kind: "sampling"; params: JsonObject }
  | { kind: "roots"; params: JsonObject };

/**
 * A backend's answer that it needs input before it can finish, without holding the call open (MCP 2026-07-28
 * multi round-trip requests, A2A's `INPUT_REQUIRED`). The caller asks its client and repeats the call with
 * {@link InputAnswers}; nothing waits in between, so the repeat may reach any replica.
 */
export interface InputRequired {
  /** What the backend asks for, keyed by the backend's own names (the keys of the answers). */
  requests: Record<string, InputRequest>;
  /** Opaque state the backend wants back with the answers; the router never reads it, only seals it. */
  state?: string;
}

/** The client's answers to an {@link InputRequired}, carried on the repeated call. */
export interface InputAnswers {
  /** One answer per key of {@link InputRequired.requests}, in the shape of the request's method result. */
  responses: Record<string, JsonObject>;
  /** The {@link InputRequired.state} given with the requests, unchanged. */
  state?: string;
}

/** The caller's answer to an {@link InputRequest}. */
export interface InputResponse {
  action: "accept" | "decline" | "cancel";
  result?: JsonObject;
}

/**
 * Per-call options every {@link BridgeTransport} method accepts. The listeners belong to this call only: a
 * transport calls them while the call runs and never after it ends.
 */
export interface CallOptions {
  /** Cancels the call, including a running code execution stream. */
  signal?: AbortSignal;
  /**
   * The call's cancellation without an `AbortSignal` per call, for callers on a hot path; given with
   * `setCancellation`, which makes `signal` from it when something reads `signal`. Transports and interceptors read
   * either through `cancellationOf`.
   */
  cancellation?: Cancellation;
  /** Deadline for the call, in milliseconds. Transports default to 10 s (unary) and 20 s (streaming). */
  timeoutMs?: number;
  /** The caller's request id (the MCP request id); a transport sends it where its wire has a place for it. */
  requestId?: string;
  /** Extra metadata sent with the call (e.g. `traceparent`). Keys are lower-cased on the wire. */
  metadata?: CallMetadata;
  /** Progress the backend reports while the call runs. */
  onProgress?(progress: Progress): void;
  /** Log messages the backend sends while the call runs. */
  onLog?(message: LogMessage): void;
  /**
   * Answers the backend's requests for input (elicitation, sampling, roots). Absent: the caller cannot
   * answer, and a transport must not tell its backend that it can.
   */
  onInputRequest?(request: InputRequest): Promise<InputResponse>;
  /**
   * What input the calling client can give, as MCP client capability objects by name (`elicitation`,
   * `sampling`, `roots`). A transport tells its backend no more than this: a backend then asks only for what the
   * client can answer, or refuses the call naming what it lacks.
   */
  inputCapabilities?: Readonly<Record<string, JsonObject>>;
  /** Typed values for interceptors, a fresh bag per call (connect-es style). */
  contextValues?: ContextValues;
}

/**
 * How the router reaches a backend. One implementation per wire protocol (gRPC, Connect, MCP, …), each
 * mapping these protocol-neutral calls to its own wire inside its own package; the bridge and the server know
 * only this interface, so a transport can be swapped per service.
 *
 * Every method rejects with a {@link TrestleError}: `Unavailable` when the service cannot be reached,
 * `DeadlineExceeded` when `timeoutMs` passes, `Canceled` when `signal` aborts, `Unimplemented` naming the
 * method when the protocol has no such call, and the service's own code otherwise. Implementations prove
 * their behaviour with the kit in `@trestle/core/testing`.
 *
 * A transport reports the leg it speaks (`{ protocol, version?, method }`) on each `callTool` and `executeCode`
 * to the call's `TranslationRecorder` (under `translationRecorderKey` in `options.contextValues`, when there is
 * one), with what its translation dropped or rewrote: the call's event records both.
 */
export interface BridgeTransport {
  /** Calls a tool. A tool that reports its own failure resolves with `isError: true`. */
  callTool(call: ToolCall, target: ServiceTarget, options?: CallOptions): Promise<ToolResult>;
  /**
   * Says how `callTool(call, target)` would send the call, without sending it: the credentials among what it sends
   * and the request as the call's event records it. Optional, synchronous and cheap (the router asks before every
   * tool call it records); absent, or `undefined` for a call: the arguments go as they are, and the router applies
   * core's name rules to them.
   *
   * @throws TrestleError `InvalidArgument` when the call cannot be sent (an argument the wire cannot carry).
   */
  describeToolCall?(call: ToolCall, target: ServiceTarget): ToolCallDescription | undefined;
  /** Reads a resource. */
  readResource(read: ResourceRead, target: ServiceTarget, options?: CallOptions): Promise<ResourceResult>;
  /** Gets a prompt, where the protocol has prompts. Optional. */
  getPrompt?(get: PromptGet, target: ServiceTarget, options?: CallOptions): Promise<PromptResult>;
  /**
   * Runs code and yields each output as the engine produces it. Breaking out of the iteration (or aborting
   * `signal`) cancels the execution on the engine.
   */
  executeCode(run: CodeRun, target: ServiceTarget, options?: CallOptions): AsyncIterable<CodeOutput>;
  /** Stores configuration and secrets for a tool or resource on the service. */
  provision(
    provisioning: Provisioning,
    target: ServiceTarget,
    options?: CallOptions,
  ): Promise<ProvisioningReference>;
  /** Asks the service whether it runs. Never rejects for the service's state: that is the answer. */
  probeHealth(target: ServiceTarget, options?: CallOptions): Promise<HealthStatus>;
  /** Lets go of any connection kept for `target` (it was deregistered). Optional. */
  release?(target: ServiceTarget): void;
  /** Closes every connection. Calls made afterwards reject with `Unavailable`. Idempotent. */
  close(): Promise<void>;
}
