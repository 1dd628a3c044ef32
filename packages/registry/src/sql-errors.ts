/** The SQLSTATE and constraint of a database error, when it is one. */
export function databaseErrorOf(error: unknown): { code: string; constraint?: string } | undefined {
  if (typeof error !== "object" || error === null || !("code" in error) || typeof error.code !== "string") {
    return undefined;
  }
  const constraint =
    "constraint" in error && typeof error.constraint === "string" ? error.constraint : undefined;
  return constraint === undefined ? { code: error.code } : { code: error.code, constraint };
}

/** SQLSTATE of a unique constraint violation. */
export const UNIQUE_VIOLATION = "23505";
/** SQLSTATE of a foreign key violation. */
export const FOREIGN_KEY_VIOLATION = "23503";

/** Node socket error codes that mean the database could not be reached or the connection broke. */
const CONNECTION_ERROR_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of a server that is going away or refuses connections: class 08 (connection exception), 57P01
 * (admin shutdown), 57P02 (crash shutdown), 57P03 (cannot connect now), 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** What node-postgres and its pool say, without a code, when a connection ends or cannot be had in time. */
const CONNECTION_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection (is )?closed/i,
  /client has encountered a connection error/i,
];

/**
 * Why the database could not be used, as a short code safe to show (`ECONNREFUSED`, `SQLSTATE 57P01`,
 * `connection lost`), when `error` is a connection-level failure rather than an error of the statement;
 * `undefined` otherwise. Looks through `cause` and the members of an `AggregateError` (Node reports a failed
 * connection to every address of a name that way).
 */
export function connectionFailureOf(error: unknown, depth = 0): string | undefined {
  if (typeof error !== "object" || error === null || depth > 4) return undefined;
  const code = "code" in error && typeof error.code === "string" ? error.code : undefined;
  if (code !== undefined && CONNECTION_ERROR_CODES.has(code)) return code;
  if (code !== undefined && UNAVAILABLE_SQLSTATE.test(code)) return `SQLSTATE ${code}`;
  if (
    code === undefined &&
    error instanceof Error &&
    CONNECTION_MESSAGES.some((m) => m.test(error.message))
  ) {
    return "connection lost";
  }
  if ("errors" in error && Array.isArray(error.errors)) {
    for (const member of error.errors) {
      const found = connectionFailureOf(member, depth + 1);
      if (found) return found;
    }
  }
  return "cause" in error ? connectionFailureOf(error.cause, depth + 1) : undefined;
}
