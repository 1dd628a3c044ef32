import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";

describe("limits in the configuration", () => {
  it("reads per-service concurrency limits, per-token and default rate limits, and circuit settings", () => {
    const config = resolveConfig({
      file: {
        services: { slow: { maxConcurrentCalls: 4, maxQueuedCalls: 10 } },
        tokens: [
          {
            name: "agent",
            token: "agent-token-0123456789",
            scopes: ["mcp"],
            rateLimit: { requestsPerSecond: 5, burst: 10 },
          },
        ],
      },
      env: {
        TRESTLE_RATE_LIMIT: '{"requestsPerSecond": 20}',
        TRESTLE_CIRCUIT_FAILURE_THRESHOLD: "5",
        TRESTLE_CIRCUIT_OPEN_MS: "5000",
      },
    });
    expect(config.services.slow).toEqual({ maxConcurrentCalls: 4, maxQueuedCalls: 10 });
    expect(config.tokens[0]?.rateLimit).toEqual({ requestsPerSecond: 5, burst: 10 });
    expect(config.rateLimit).toEqual({ requestsPerSecond: 20 });
    expect(config.circuitFailureThreshold).toBe(5);
    expect(config.circuitOpenMs).toBe(5000);
    const defaults = resolveConfig({});
    expect(defaults.circuitFailureThreshold).toBe(3);
    expect(defaults.circuitOpenMs).toBe(30_000);
    expect(defaults.rateLimit).toBeUndefined();
  });

  it.each([
    [{ services: { slow: { maxConcurrentCalls: 0 } } }, "services.slow.maxConcurrentCalls"],
    [{ services: { slow: { maxQueuedCalls: 5 } } }, "maxQueuedCalls needs maxConcurrentCalls"],
    [{ rateLimit: { requestsPerSecond: 0 } }, "rateLimit.requestsPerSecond"],
    [{ rateLimit: { requestsPerSecond: 1, per: "minute" } }, "rateLimit"],
    [{ circuitOpenMs: -1 }, "circuitOpenMs"],
  ])("refuses %j", (file, mention) => {
    expect(() => resolveConfig({ file })).toThrow(mention);
  });
});
