export type { CallOptions } from "./call.js";

/** Default deadline of a unary call, as in Wanaku. */
export const DEFAULT_UNARY_TIMEOUT_MS = 10_000;

/** Default deadline of a code execution stream, as in Wanaku. */
export const DEFAULT_STREAM_TIMEOUT_MS = 20_000;
