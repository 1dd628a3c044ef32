import { describe, expect, it, vi } from "vitest";
import { Code, TrestleError } from "./error.js";
import { createInMemoryNetwork, createInMemoryTransport } from "./in-memory-transport.js";
import type { ServiceTarget } from "./service-target.js";
import { createTransportSelector } from "./transport-selector.js";

const network = createInMemoryNetwork();
const target = (over: Partial<ServiceTarget> = {}): ServiceTarget => ({
  id: "1",
  serviceName: "weather",
  host: "h",
  port: 1,
  serviceType: "tool-invoker",
  ...over,
});

describe("createTransportSelector", () => {
  const grpc = createInMemoryTransport({ network });
  const connect = createInMemoryTransport({ network });
  const special = createInMemoryTransport({ network });

  it("uses the grpc transport for a target that names no protocol (every Wanaku capability)", () => {
    const selector = createTransportSelector({ byProtocol: { grpc, connect } });
    expect(selector.transportFor(target())).toBe(grpc);
    expect(selector.transportFor(target({ protocol: "connect" }))).toBe(connect);
  });

  it("lets a per-service override win over the protocol", () => {
    const selector = createTransportSelector({
      byProtocol: { grpc, connect },
      byServiceName: { weather: special },
    });
    expect(selector.transportFor(target({ protocol: "connect" }))).toBe(special);
    expect(selector.transportFor(target({ serviceName: "other" }))).toBe(grpc);
  });

  it("refuses a protocol with no transport, naming it and what is configured", () => {
    const selector = createTransportSelector({ byProtocol: { grpc } });
    try {
      selector.transportFor(target({ protocol: "carrier-pigeon" }));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TrestleError);
      expect((error as TrestleError).code).toBe(Code.FailedPrecondition);
      expect((error as TrestleError).rawMessage).toContain("carrier-pigeon");
      expect((error as TrestleError).rawMessage).toContain("grpc");
    }
  });

  it("closes each distinct transport once and forwards release", async () => {
    const a = {
      ...createInMemoryTransport({ network }),
      close: vi.fn(async () => undefined),
      release: vi.fn(),
    };
    const selector = createTransportSelector({
      byProtocol: { grpc: a, connect: a },
      byServiceName: { x: a },
    });
    selector.release(target());
    expect(a.release).toHaveBeenCalledTimes(1);
    await selector.close();
    expect(a.close).toHaveBeenCalledTimes(1);
  });
});
