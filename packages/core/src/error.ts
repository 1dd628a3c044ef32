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

/** Options for {@link TrestleError}. */
export interface TrestleErrorOptions {
  /** The error that caused this one. Never shown to users; kept for logs after redaction. */
  cause?: unknown;
  /** Key-value details from the other side (e.g. trailers), already free of secrets. */
  metadata?: Record<string, string>;
}

/**
 * The one error type of Trestle. Every failure that crosses a package boundary is a `TrestleError` with a
 * {@link Code}; transports map their wire statuses to it and the server maps it to MCP and HTTP at its edge.
 *
 * `message` is `"[code] rawMessage"`; `rawMessage` is the text alone, for users.
 *
 * @example
 * ```ts
 * throw new TrestleError("Missing required parameter(s): city", Code.InvalidArgument);
 * ```
 */
/**
 * Metadata key of a `FailedPrecondition` failure a backend refused because the calling client lacks a capability
 * (MCP's -32021): the JSON object of what it requires, keyed like a client's capabilities (`{"sampling": {}}`).
 * The bridge does not turn such a refusal into an error result: the front answers its client in its own protocol.
 */
export const REQUIRED_CAPABILITIES_METADATA_KEY = "required-client-capabilities";

/** The capabilities a refusal says the client lacks (see {@link REQUIRED_CAPABILITIES_METADATA_KEY}), if it says. */
export function requiredClientCapabilities(error: unknown): Record<string, unknown> | undefined {
  if (!(error instanceof TrestleError) || error.code !== Code.FailedPrecondition) return undefined;
  const json = error.metadata[REQUIRED_CAPABILITIES_METADATA_KEY];
  if (json === undefined) return undefined;
  try {
    const value = JSON.parse(json) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export class TrestleError extends Error {
  /** The gRPC-aligned code. */
  readonly code: Code;
  /** The message without the code prefix. */
  readonly rawMessage: string;
  /** Details from the other side, free of secrets. */
  readonly metadata: Readonly<Record<string, string>>;

  constructor(message: string, code: Code = Code.Unknown, options: TrestleErrorOptions = {}) {
    super(
      `[${codeToString(code)}] ${message}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "TrestleError";
    this.code = code;
    this.rawMessage = message;
    this.metadata = options.metadata ?? {};
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
