import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import { Code, isTrestleError } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPython } from "../src/index.js";
import {
  ExecutionStatus,
  OutputType,
  type RunResult,
  type ServedEngine,
  serveEngine,
} from "./engine-fixture.js";
import { type MemoryPeaks, sampleMemory } from "./memory-sampler.js";

/**
 * The sandbox's memory bound, measured: programs that try to take eight times the run's limit through
 * /dev/shm, the work directory and off-heap buffers stop at about the limit, and neither the host's shared
 * memory nor the sandbox's resident memory grows past it. Once with the per-run cgroup (where this host has a
 * usable memory controller) and once with the fallback (address-space limit and sized tmpfs mounts).
 */

const LIMIT_MB = 64;
const TARGET_MB = 8 * LIMIT_MB;
const python = findPython();

/** Writes 1 MiB at a time to `path`, reporting every 4 MiB; says REACHED when it got all it wanted. */
function pythonFill(path: string): string {
  return `
import os
chunk = b"x" * (1 << 20)
written = 0
print("started", flush=True)
try:
    with open(${JSON.stringify(path)}, "wb") as f:
        while written < ${TARGET_MB}:
            f.write(chunk)
            f.flush()
            written += 1
            if written % 4 == 0:
                print("at", written, flush=True)
    print("REACHED", written, flush=True)
except (OSError, MemoryError) as e:
    print("stopped", written, type(e).__name__, flush=True)
`;
}

/** Allocates (and touches) Buffers 4 MiB at a time: memory outside V8's heap, which --max-old-space-size does not count. */
const JAVASCRIPT_BUFFERS = `
const hoard = [];
let allocated = 0;
console.log("started");
try {
  while (allocated < ${TARGET_MB}) {
    hoard.push(Buffer.alloc(4 << 20, 1));
    allocated += 4;
    console.log("at", allocated);
  }
  console.log("REACHED", allocated);
} catch (error) {
  console.log("stopped", allocated, error.message);
}
`;

/** The most the program said it had (MiB). */
function reachedMb(result: RunResult): number {
  const numbers = [...result.stdout.matchAll(/^(?:at|stopped|REACHED) (\d+)/gm)].map((m) => Number(m[1]));
  return Math.max(0, ...numbers);
}

async function attack(engine: ServedEngine, language: string, code: string) {
  const sampler = sampleMemory(process.pid);
  let result: RunResult;
  let peaks: MemoryPeaks;
  try {
    result = await engine.run(language, code, { timeout: 30_000n });
  } finally {
    peaks = sampler.stop();
  }
  // The attack must have run: a refusal before the program started would prove nothing.
  expect(result.stdout, result.stderr).toContain("started");
  expect(result.stdout).not.toContain("REACHED");
  return { result, reached: reachedMb(result), peaks };
}

/** True when this process could make cgroups with a memory controller: root with cgroup v1's memory hierarchy. */
function hostHasWritableMemoryCgroup(): boolean {
  const v1 = "/sys/fs/cgroup/memory";
  if (!existsSync(`${v1}/cgroup.procs`)) return false;
  try {
    accessSync(v1, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

describe.each([
  { bound: "cgroup", options: {} },
  { bound: "address-space", options: { cgroup: false as const } },
])("with the $bound bound", ({ bound, options }) => {
  let engine: ServedEngine;
  const expectCgroup = bound === "cgroup" && hostHasWritableMemoryCgroup();
  // The fallback lets Node's own reservations and headroom past the limit; the cgroup counts everything.
  const rssAllowanceMb = expectCgroup ? LIMIT_MB : 2 * LIMIT_MB;

  beforeAll(async () => {
    engine = await serveEngine({ memoryLimitMb: LIMIT_MB, python: "python3", ...options });
  });

  afterAll(async () => {
    await engine?.close();
  });

  it(`runs with the ${bound} bound`, () => {
    if (bound === "cgroup" && !expectCgroup) {
      expect(engine.memoryBound.mode).toBe("address-space");
      return;
    }
    expect(engine.memoryBound.mode).toBe(expectCgroup ? "cgroup" : "address-space");
  });

  /** A Python test, or (without python3) a check that Python is not offered. */
  function itWithPython(name: string, test: () => Promise<void>) {
    it(python ? name : `${name}: python3 is missing, so Python is not offered`, async () => {
      if (!python) {
        expect(engine.languages).not.toContain("python");
        return;
      }
      await test();
    });
  }

  itWithPython(
    "Python writing to /dev/shm stops below the limit; the host's shared memory does not grow past it",
    async () => {
      const { reached, peaks } = await attack(engine, "python", pythonFill("/dev/shm/hoard"));
      expect(reached).toBeLessThan(LIMIT_MB);
      expect(peaks.hostShmemGrowthMb).toBeLessThan(LIMIT_MB);
    },
  );

  itWithPython(
    "Python filling its work directory stops below the limit; no host memory or disk past it",
    async () => {
      const { reached, peaks } = await attack(engine, "python", pythonFill("hoard"));
      expect(reached).toBeLessThan(LIMIT_MB);
      expect(peaks.hostShmemGrowthMb).toBeLessThan(LIMIT_MB);
    },
  );

  it("JavaScript allocating Buffers stops at about the limit; the sandbox's resident memory stays within it", async () => {
    const { result, reached, peaks } = await attack(engine, "javascript", JAVASCRIPT_BUFFERS);
    expect(reached).toBeLessThan(LIMIT_MB + rssAllowanceMb);
    expect(peaks.descendantsRssMb).toBeLessThan(LIMIT_MB + rssAllowanceMb);
    if (engine.memoryBound.mode === "cgroup") {
      // Killed by the kernel at the cgroup's limit, and told so; its cgroup is gone with it.
      expect(result.final.status).toBe(ExecutionStatus.FAILED);
      expect(result.final.content.join("")).toContain(`memory limit of ${LIMIT_MB} MiB`);
      const left = readdirSync(engine.memoryBound.parent).filter((name) =>
        name.startsWith(`trestle-exec-${process.pid}-`),
      );
      expect(left).toEqual([]);
    }
  });

  it("JavaScript outgrowing its heap gets V8's own error before the kernel stops it", async () => {
    const code = "const hoard = []; for (;;) hoard.push(new Array(1e6).fill(Math.random()));";
    const result = await engine.run("javascript", code, { timeout: 20_000n });
    expect(result.final.status).toBe(ExecutionStatus.FAILED);
    expect(result.stderr).toMatch(/heap out of memory/i);
  });

  itWithPython("print(1) still runs", async () => {
    const result = await engine.run("python", "print(1)");
    expect(result.stdout).toBe("1\n");
    expect(result.final.status).toBe(ExecutionStatus.COMPLETED);
  });
});

describe("the total bound", () => {
  let engine: ServedEngine;

  beforeAll(async () => {
    engine = await serveEngine({ memoryLimitMb: LIMIT_MB, maxConcurrentRuns: 1, python: false });
  });

  afterAll(async () => {
    await engine?.close();
  });

  it("runs no more sandboxes at once than --max-concurrent-runs: the next one is refused", async () => {
    let running!: () => void;
    const started = new Promise<void>((resolve) => {
      running = resolve;
    });
    const first = engine.run("javascript", 'console.log("up"); setTimeout(() => {}, 1500);', {
      onReply(reply) {
        if (reply.outputType === OutputType.STDOUT) running();
      },
    });
    await started;
    let refusal: unknown;
    try {
      await engine.run("javascript", 'console.log("second")');
    } catch (error) {
      refusal = error;
    }
    expect(isTrestleError(refusal, Code.ResourceExhausted)).toBe(true);
    expect((await first).final.status).toBe(ExecutionStatus.COMPLETED);
    // Once the first is over, a run is accepted again.
    expect((await engine.run("javascript", 'console.log("third")')).stdout).toBe("third\n");
  });
});
