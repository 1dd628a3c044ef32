import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { deadTarget } from "./support/dead-target.js";

// No static import of the package or of grpc-js here: each test file runs in a fresh process (pool "forks"),
// so what is in the CommonJS module cache is what the imports below loaded. grpc-js is CommonJS: loaded by
// `import` or by `require`, its entry file lands in that cache.
const grpcJsEntry = createRequire(import.meta.url).resolve("@grpc/grpc-js");
const grpcJsLoaded = () => grpcJsEntry in createRequire(import.meta.url).cache;

describe("loading grpc-js", () => {
  it("happens with the first call on the grpc-js client, not when the package is imported or the lean client used", async () => {
    expect(grpcJsLoaded()).toBe(false);
    const { createGrpcTransport } = await import("../src/index.js");
    expect(grpcJsLoaded()).toBe(false);

    const target = await deadTarget();
    const lean = createGrpcTransport();
    expect((await lean.probeHealth(target)).state).toBe("down");
    await lean.close();
    expect(grpcJsLoaded()).toBe(false);

    const grpcJs = createGrpcTransport({ client: "grpc-js" });
    expect(grpcJsLoaded()).toBe(false);
    expect((await grpcJs.probeHealth(target)).state).toBe("down");
    await grpcJs.close();
    expect(grpcJsLoaded()).toBe(true);
  });
});
