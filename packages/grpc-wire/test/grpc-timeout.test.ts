import { Code, TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { formatGrpcTimeout, parseGrpcTimeout, requestTimeoutMs } from "../src/index.js";

describe("grpc-timeout", () => {
  it.each([
    ["1H", 3_600_000],
    ["2M", 120_000],
    ["3S", 3_000],
    ["4m", 4],
    ["5000u", 5],
    ["6000000n", 6],
    ["12345678m", 12_345_678],
  ])("reads %s as %d ms", (value, ms) => {
    expect(parseGrpcTimeout(value)).toBeCloseTo(ms, 6);
  });

  it.each(["", "1", "S", "123456789m", "1s", "1 S", "-1S", "1.5S"])("refuses %j", (value) => {
    expect(parseGrpcTimeout(value)).toBeUndefined();
  });

  it.each([
    [0, "0m"],
    [-5, "0m"],
    [1.2, "2m"],
    [10_000, "10000m"],
    [99_999_999, "99999999m"],
    [100_000_000, "100000S"],
    [99_999_999_000, "99999999S"],
    [99_999_999_001, "27778H"],
    [Number.MAX_SAFE_INTEGER, "99999999H"],
  ])("writes %d ms as %s", (ms, value) => {
    expect(formatGrpcTimeout(ms)).toBe(value);
  });

  it("reads back what it writes, never less than the deadline and at most one unit more", () => {
    for (const ms of [0, 1, 999, 1_000, 60_000, 99_999_999, 100_000_000, 123_456_789_012, 1e15]) {
      const read = parseGrpcTimeout(formatGrpcTimeout(ms)) as number;
      expect(read).toBeGreaterThanOrEqual(Math.min(ms, 99_999_999 * 3_600_000));
      const unit = ms < 100_000_000 ? 1 : ms < 99_999_999_001 ? 1_000 : 3_600_000;
      expect(read - ms).toBeLessThan(unit);
    }
  });

  it("gives a request's deadline from its headers, none without the header", () => {
    expect(requestTimeoutMs({ "grpc-timeout": "250m" })).toBe(250);
    expect(requestTimeoutMs({ "grpc-timeout": "2S" })).toBe(2_000);
    expect(requestTimeoutMs({ "content-type": "application/grpc" })).toBeUndefined();
  });

  it.each([
    ["soon", 'Invalid grpc-timeout value "soon"'],
    ["", 'Invalid grpc-timeout value ""'],
  ])("refuses a request whose grpc-timeout is %j with Internal, as grpc-js does", (value, message) => {
    const refusal = (() => {
      try {
        requestTimeoutMs({ "grpc-timeout": value });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(TrestleError);
    expect((refusal as TrestleError).code).toBe(Code.Internal);
    expect((refusal as TrestleError).rawMessage).toBe(message);
  });
});
