import type * as grpc from "@grpc/grpc-js";
import { DEFAULT_MAX_RECEIVE_MESSAGE_BYTES, type GrpcTransportOptions } from "./grpc-transport-options.js";

/** Default ceiling of grpc-js's reconnect backoff here (grpc-js's own is 2 min). */
export const DEFAULT_MAX_RECONNECT_BACKOFF_MS = 10_000;

/**
 * The grpc-js options of every channel the transport opens: keepalive (30 s interval, 10 s timeout, no pings
 * without calls), a 16 MiB reply limit, an optional request limit, a reconnect backoff capped at 10 s so a
 * restarted service is reached again soon, and then `options.channelOptions` over all of them.
 *
 * grpc-js's retries stay on: without a retry policy in a service config they only re-send a call that never
 * reached the service's code (a transparent retry), so they never duplicate the router's failover; and
 * `"grpc.enable_retries": 0` saved no measurable CPU per call (the retry layer is in every call's path either way).
 */
export function channelOptionsOf(options: GrpcTransportOptions): grpc.ChannelOptions {
  const keepalive = options.keepalive ?? {};
  const channelOptions: grpc.ChannelOptions = {
    "grpc.keepalive_time_ms": keepalive.timeMs ?? 30_000,
    "grpc.keepalive_timeout_ms": keepalive.timeoutMs ?? 10_000,
    "grpc.keepalive_permit_without_calls": keepalive.permitWithoutCalls ? 1 : 0,
    "grpc.max_receive_message_length": options.maxReceiveMessageBytes ?? DEFAULT_MAX_RECEIVE_MESSAGE_BYTES,
    "grpc.max_reconnect_backoff_ms": DEFAULT_MAX_RECONNECT_BACKOFF_MS,
  };
  if (options.maxSendMessageBytes !== undefined) {
    channelOptions["grpc.max_send_message_length"] = options.maxSendMessageBytes;
  }
  return { ...channelOptions, ...options.channelOptions };
}
