import { describe, expect, it } from "vitest";
import { captureOutput, spawnNode } from "../src/child-process.js";

async function closed(child: ReturnType<typeof spawnNode>): Promise<number | null> {
  // `close` comes after the output streams ended, `exit` may come before.
  return new Promise((resolve) => child.once("close", (code) => resolve(code)));
}

describe("spawnNode", () => {
  it("runs the script on the harness's own node by default", async () => {
    const child = spawnNode("-e", ["process.stdout.write(process.execPath)"]);
    const output = captureOutput(child);
    expect(await closed(child)).toBe(0);
    expect(output()).toBe(process.execPath);
  });

  it("runs it on the node binary it is given, flags first, then the script and its arguments", async () => {
    // echo stands in for another node binary: it prints the command line it was given.
    const child = spawnNode("script.js", ["--port", "0"], { node: "/bin/echo", nodeArgs: ["--no-opt"] });
    const output = captureOutput(child);
    expect(await closed(child)).toBe(0);
    expect(output().trim()).toBe("--no-opt script.js --port 0");
  });
});
