import { describe, expect, it } from "vitest";
import { channelOptionsOf } from "./channel-options.js";

describe("channelOptionsOf", () => {
  it("has keepalive, message size and reconnect defaults", () => {
    expect(channelOptionsOf({})).toEqual({
      "grpc.keepalive_time_ms": 30_000,
      "grpc.keepalive_timeout_ms": 10_000,
      "grpc.keepalive_permit_without_calls": 0,
      "grpc.max_receive_message_length": 16 * 1024 * 1024,
      "grpc.max_reconnect_backoff_ms": 10_000,
    });
  });

  it("passes keepalive and size options through, and raw channel options over everything", () => {
    expect(
      channelOptionsOf({
        keepalive: { timeMs: 5_000, timeoutMs: 1_000, permitWithoutCalls: true },
        maxReceiveMessageBytes: 1_024,
        maxSendMessageBytes: 2_048,
        channelOptions: { "grpc.max_reconnect_backoff_ms": 500, "grpc.primary_user_agent": "trestle" },
      }),
    ).toEqual({
      "grpc.keepalive_time_ms": 5_000,
      "grpc.keepalive_timeout_ms": 1_000,
      "grpc.keepalive_permit_without_calls": 1,
      "grpc.max_receive_message_length": 1_024,
      "grpc.max_send_message_length": 2_048,
      "grpc.max_reconnect_backoff_ms": 500,
      "grpc.primary_user_agent": "trestle",
    });
  });
});
