import { Code, TrestleError } from "@trestle/core";

const EXCERPT_CHARS = 200;

/**
 * The {@link Code} for a non-2xx HTTP status: 401/403 PermissionDenied, 404/410 NotFound, any other 4xx
 * InvalidArgument; any 5xx Internal. An upstream's outage is the tool's failure, not this service's: codes the
 * router counts against a service's health (Unavailable, DeadlineExceeded) would take every HTTP tool out of
 * routing because one API behind one tool is down.
 */
export function codeForHttpStatus(status: number): Code {
  if (status === 401 || status === 403) return Code.PermissionDenied;
  if (status === 404 || status === 410) return Code.NotFound;
  if (status >= 400 && status < 500) return Code.InvalidArgument;
  return Code.Internal;
}

/** The error for a non-2xx answer: the status, what was called, and the start of the body on one line. */
export function httpStatusError(
  status: number,
  statusText: string,
  target: string,
  body: Buffer,
): TrestleError {
  const flat = body.toString("utf8").replace(/\s+/g, " ").trim();
  const excerpt = flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
  const head = `HTTP ${status}${statusText ? ` ${statusText}` : ""} from ${target}`;
  return new TrestleError(excerpt ? `${head}: ${excerpt}` : head, codeForHttpStatus(status));
}
