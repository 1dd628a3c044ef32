import type { IncomingHttpHeaders } from "node:http2";
import { Code, TrestleError } from "@trestle/core";

/**
 * A deadline as `grpc-timeout` carries it: the milliseconds left, rounded up, in at most 8 digits and the finest
 * unit that fits (`m`, then `S`, then `H`, capped at 99,999,999 hours).
 *
 * @example `formatGrpcTimeout(1500)` is `"1500m"`, `formatGrpcTimeout(2e8)` is `"200000S"`.
 */
export function formatGrpcTimeout(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  if (whole < 100_000_000) return `${whole}m`;
  const seconds = Math.ceil(whole / 1000);
  if (seconds < 100_000_000) return `${seconds}S`;
  return `${Math.min(Math.ceil(seconds / 3600), 99_999_999)}H`;
}

const TIMEOUT = /^(\d{1,8})([HMSmun])$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1_000,
  m: 1,
  u: 0.001,
  n: 0.000_001,
};

/**
 * The milliseconds a `grpc-timeout` value grants (1 to 8 digits and a unit: hours, minutes, seconds, milli-,
 * micro- or nanoseconds), or undefined when the value is not one.
 */
export function parseGrpcTimeout(value: string): number | undefined {
  const match = TIMEOUT.exec(value);
  if (!match) return undefined;
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/**
 * The deadline a request's `grpc-timeout` header grants, in milliseconds; undefined when it has none.
 * @throws TrestleError `Internal` (what grpc-js answers) when the header is not a valid timeout.
 */
export function requestTimeoutMs(headers: IncomingHttpHeaders): number | undefined {
  const timeout = headers["grpc-timeout"];
  if (timeout === undefined) return undefined;
  const timeoutMs = typeof timeout === "string" ? parseGrpcTimeout(timeout) : undefined;
  if (timeoutMs === undefined) {
    throw new TrestleError(`Invalid grpc-timeout value "${String(timeout)}"`, Code.Internal);
  }
  return timeoutMs;
}
