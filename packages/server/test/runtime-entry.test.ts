import { AsyncResource } from "node:async_hooks";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const packageJson = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as {
  exports: Record<string, Record<string, string>>;
  publishConfig: { exports: Record<string, Record<string, string>> };
};
const isNodesOwnBind = () =>
  Function.prototype.toString.call(AsyncResource.prototype.bind).includes("deprecate(");

/** Process-wide tuning is opt-in: `@trestle/server/runtime` has it, the library's root entry neither has nor does it. */
describe("@trestle/server/runtime", () => {
  it("is an entry of its own, from source in the workspace and from dist when published", () => {
    expect(packageJson.exports["./runtime"]).toEqual({
      "@trestle/source": "./src/runtime/index.ts",
      types: "./dist/runtime/index.d.ts",
      default: "./dist/runtime/index.js",
    });
    expect(packageJson.publishConfig.exports["./runtime"]).toEqual({
      types: "./dist/runtime/index.d.ts",
      default: "./dist/runtime/index.js",
    });
  });

  it("is not part of the root entry, and a router run as a library leaves Node's internals alone", async () => {
    expect(isNodesOwnBind()).toBe(true);
    const library = await import("../src/index.js");
    for (const name of ["tuneProcessForRouter", "installLeanAsyncResourceBind", "pinTickObjectShape"]) {
      expect(Object.keys(library)).not.toContain(name);
    }
    const router = await library.createRouter(
      library.resolveConfig({
        env: {},
        flags: { host: "127.0.0.1", port: "0", memoryStore: true, logLevel: "silent" },
      }),
    );
    try {
      expect(isNodesOwnBind()).toBe(true);
    } finally {
      await router.close();
    }
  }, 60_000);

  it("tunes the process when asked, and release puts Node's own back", async () => {
    const { tuneProcessForRouter } = await import("../src/runtime/index.js");
    const nodeBind = AsyncResource.prototype.bind;
    const tuning = tuneProcessForRouter();
    try {
      expect(isNodesOwnBind()).toBe(false);
    } finally {
      tuning.release();
    }
    expect(AsyncResource.prototype.bind).toBe(nodeBind);
    tuning.release();
    expect(AsyncResource.prototype.bind).toBe(nodeBind);
  });
});
