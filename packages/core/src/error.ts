import type { JsonObject, JsonValue } from "./content.js";

/**
 * Error codes, aligned number for number with gRPC status codes (as Connect's `Code` is), so that a
 * gRPC status maps to a Trestle code without a table.
 */
export enum Code {
  /** The caller cancelled the operation. */
  Canceled = 1,
  /** An error with no better code. */
  Unknown = 2,
  /** The request was malformed: missing or wrong arguments. */
  InvalidArgument = 3,
  /** The deadline passed before the operation finished. */
  DeadlineExceeded = 4,
  /** The tool, resource, service or entry does not exist. */
  NotFound = 5,
  /** An entry with that name already exists. */
  AlreadyExists = 6,
  /** The caller is known but not allowed. */
  PermissionDenied = 7,
  /** A limit was reached (concurrency, rate, size). */
  ResourceExhausted = 8,
  /** The system is not in a state to run the operation (e.g. a service still starting). */
  FailedPrecondition = 9,
  /** The operation was aborted by a conflict. */
  Aborted = 10,
  /** A value was outside its valid range. */
  OutOfRange = 11,
  /** The operation is not implemented by the other side. */
  Unimplemented = 12,
  /** An invariant broke on the other side. */
  Internal = 13,
  /** The service could not be reached. */
  Unavailable = 14,
  /** Data was lost or corrupted. */
  DataLoss = 15,
  /** The caller did not prove who it is. */
  Unauthenticated = 16,
}

const codeNames: Readonly<Record<Code, string>> = {
  [Code.Canceled]: "canceled",
  [Code.Unknown]: "unknown",
  [Code.InvalidArgument]: "invalid_argument",
  [Code.DeadlineExceeded]: "deadline_exceeded",
  [Code.NotFound]: "not_found",
  [Code.AlreadyExists]: "already_exists",
  [Code.PermissionDenied]: "permission_denied",
  [Code.ResourceExhausted]: "resource_exhausted",
  [Code.FailedPrecondition]: "failed_precondition",
  [Code.Aborted]: "aborted",
  [Code.OutOfRange]: "out_of_range",
  [Code.Unimplemented]: "unimplemented",
  [Code.Internal]: "internal",
  [Code.Unavailable]: "unavailable",
  [Code.DataLoss]: "data_loss",
  [Code.Unauthenticated]: "unauthenticated",
};

/** The snake_case name of a code, as it appears in messages and logs (`"unavailable"`). */
export function codeToString(code: Code): string {
  return codeNames[code] ?? `code_${code}`;
}

/** Parses a snake_case code name back to its {@link Code}; `undefined` for an unknown name. */
export function codeFromString(name: string): Code | undefined {
  for (const [code, codeName] of Object.entries(codeNames)) {
    if (codeName === name) return Number(code) as Code;
  }
  return undefined;
}

/**
 * The {@link Code} of a gRPC (or Connect) status number: the code of the same number, or {@link Code.Unknown} for
 * a number no code has (a status out of range, not an integer, or 0, which is OK and no failure).
 */
export function codeFromNumber(status: number): Code {
  return Number.isInteger(status) && status >= Code.Canceled && status <= Code.Unauthenticated
    ? (status as Code)
    : Code.Unknown;
}

/**
 * A typed detail of a failure, for the layers of the router that act on it (connect-es's `details`, typed for what
 * Trestle reads): the upstream's own JSON-RPC error, or the client capabilities a backend said the call needs.
 * Read one with {@link TrestleError.findDetail}; the discriminant is `type`.
 */
export type ErrorDetail = JsonRpcErrorDetail | RequiredCapabilitiesDetail;

/**
 * The JSON-RPC error an upstream answered with (an MCP server, an A2A agent): its code, and its `data` where a front
 * may pass it on (already scrubbed of the upstream's secrets and bounded in size).
 */
export interface JsonRpcErrorDetail {
  type: "json-rpc";
  /** Whose JSON-RPC the code is in: `mcp`, `a2a`. A front passes on only a code of its own protocol. */
  protocol: string;
  /** The upstream's error code, e.g. -32602. */
  code: number;
  /** The error's `data`, where it is one a front answers with (MCP 2026-07-28's -32020, -32021, -32022). */
  data?: JsonValue;
}

/**
 * A backend refused the call because the calling client lacks a capability (MCP's -32021): what it requires,
 * keyed like a client's capabilities (`{ sampling: {} }`). The bridge does not turn such a refusal into an error
 * result: the front answers its client in its own protocol.
 */
export interface RequiredCapabilitiesDetail {
  type: "required-client-capabilities";
  capabilities: JsonObject;
}

/** Options for {@link TrestleError}. */
export interface TrestleErrorOptions {
  /** The error that caused this one. Never shown to users; kept for logs after redaction. */
  cause?: unknown;
  /** Wire metadata from the other side (e.g. trailers), already free of secrets. */
  metadata?: Record<string, string>;
  /** Typed details (see {@link ErrorDetail}), already free of secrets. */
  details?: readonly ErrorDetail[];
}

/**
 * The brand every {@link TrestleError} carries on its prototype, in the global symbol registry: `instanceof`
 * answers by it, so an error made by another copy of this module (two versions installed side by side, a bundle
 * with its own copy) is still a `TrestleError` to this one.
 */
const TRESTLE_ERROR_BRAND = Symbol.for("@trestle/core.TrestleError");

/**
 * The one error type of Trestle. Every failure that crosses a package boundary is a `TrestleError` with a
 * {@link Code}; transports map their wire statuses to it and the server maps it to MCP and HTTP at its edge.
 *
 * `message` is `"[code] rawMessage"`; `rawMessage` is the text alone, for users. `metadata` is what the wire
 * carried (trailers, headers); `details` are typed facts a layer above acts on, read with {@link findDetail}.
 *
 * `instanceof TrestleError` is true for an error of any copy of this module (see `Symbol.hasInstance` below).
 *
 * @example
 * ```ts
 * throw new TrestleError("Missing required parameter(s): city", Code.InvalidArgument);
 * throw new TrestleError("The server answered with error -32602", Code.InvalidArgument, {
 *   details: [{ type: "json-rpc", protocol: "mcp", code: -32602 }],
 * });
 * ```
 */
export class TrestleError extends Error {
  /** The gRPC-aligned code. */
  readonly code: Code;
  /** The message without the code prefix. */
  readonly rawMessage: string;
  /** Wire metadata from the other side, free of secrets. */
  readonly metadata: Readonly<Record<string, string>>;
  /** Typed details, free of secrets (see {@link ErrorDetail}). */
  readonly details: readonly ErrorDetail[];

  constructor(message: string, code: Code = Code.Unknown, options: TrestleErrorOptions = {}) {
    super(
      `[${codeToString(code)}] ${message}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "TrestleError";
    this.code = code;
    this.rawMessage = message;
    this.metadata = options.metadata ?? {};
    this.details = options.details ?? [];
  }

  /**
   * True for a `TrestleError` of any copy of this module (by its brand), and for subclasses as `instanceof`
   * always answers for them: `error instanceof TrestleError` holds across duplicated installs, as connect-es's
   * `ConnectError` and `@a2a-js/sdk`'s `A2AError` do.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // `this` is the class `instanceof` asks about: a subclass keeps the ordinary prototype check.
    // biome-ignore lint/complexity/noThisInStatic: the class asked about, which may be a subclass, not TrestleError
    if (this !== TrestleError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && TRESTLE_ERROR_BRAND in value;
  }

  /** The first detail of `type`, typed; `undefined` when the error carries none. */
  findDetail<T extends ErrorDetail["type"]>(type: T): Extract<ErrorDetail, { type: T }> | undefined {
    for (const detail of this.details) {
      if (detail.type === type) return detail as Extract<ErrorDetail, { type: T }>;
    }
    return undefined;
  }

  /**
   * Turns anything thrown into a `TrestleError`. A `TrestleError` is returned as is; an `AbortError` becomes
   * {@link Code.Canceled} (or {@link Code.DeadlineExceeded} for a `TimeoutError`); anything else keeps its
   * message under `fallbackCode`.
   */
  static from(reason: unknown, fallbackCode: Code = Code.Unknown): TrestleError {
    if (reason instanceof TrestleError) return reason;
    if (reason instanceof Error) {
      if (reason.name === "AbortError")
        return new TrestleError("The operation was cancelled", Code.Canceled, { cause: reason });
      if (reason.name === "TimeoutError") {
        return new TrestleError("The deadline passed before the operation finished", Code.DeadlineExceeded, {
          cause: reason,
        });
      }
      return new TrestleError(reason.message, fallbackCode, { cause: reason });
    }
    return new TrestleError(typeof reason === "string" ? reason : String(reason), fallbackCode, {
      cause: reason,
    });
  }
}

Object.defineProperty(TrestleError.prototype, TRESTLE_ERROR_BRAND, { value: true });

/** True when `value` is a {@link TrestleError}, optionally with the given code. */
export function isTrestleError(value: unknown, code?: Code): value is TrestleError {
  return value instanceof TrestleError && (code === undefined || value.code === code);
}

const transientCodes: ReadonlySet<Code> = new Set<Code>([
  Code.Unavailable,
  Code.DeadlineExceeded,
  Code.FailedPrecondition,
  Code.ResourceExhausted,
  Code.Aborted,
]);

/**
 * True for failures that may pass if tried again later or elsewhere (service down or starting, deadline,
 * limits); false for permanent ones (bad arguments, unknown tool, internal errors of the service).
 */
export function isTransient(error: unknown): boolean {
  return error instanceof TrestleError && transientCodes.has(error.code);
}

/**
 * True for failures that say the service itself could not serve the call (unreachable, deadline, starting),
 * as opposed to the service answering with an error. These count against a service's health.
 */
export function isServiceFailure(error: unknown): boolean {
  return (
    error instanceof TrestleError &&
    (error.code === Code.Unavailable ||
      error.code === Code.DeadlineExceeded ||
      error.code === Code.FailedPrecondition)
  );
}
