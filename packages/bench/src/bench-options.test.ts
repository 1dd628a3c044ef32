import { describe, expect, it } from "vitest";
import { parseBenchOptions, runsSection, SECTION_NAMES } from "./bench-options.js";

const parse = (...argv: string[]) => {
  const options = parseBenchOptions(argv);
  if (options === "help") throw new Error("unexpected help");
  return options;
};

describe("the soak's flags", () => {
  it("soaks 10 minutes at c16 after 30 s of warm-up in a full run", () => {
    expect(parse().soak).toEqual({
      concurrency: 16,
      warmupMs: 30_000,
      durationMs: 600_000,
      sampleIntervalMs: 5_000,
    });
  });

  it("skips it in --quick unless --soak-minutes is given", () => {
    expect(parse("--quick").soak).toBeUndefined();
    expect(parse("--quick", "--soak-minutes", "2").soak?.durationMs).toBe(120_000);
  });

  it("takes a decimal number of minutes", () => {
    expect(parse("--soak-minutes", "0.5").soak?.durationMs).toBe(30_000);
  });

  it("skips it with --no-soak", () => {
    expect(parse("--no-soak").soak).toBeUndefined();
  });

  it("refuses a bad or contradictory value, naming the flag", () => {
    for (const bad of ["0", "-1", "ten", ""]) {
      expect(() => parse(`--soak-minutes=${bad}`)).toThrow(/--soak-minutes must be a positive number/);
    }
    expect(() => parse("--soak-minutes", "5", "--no-soak")).toThrow(/--soak-minutes and --no-soak/);
  });
});

describe("--only", () => {
  it("runs every section without it", () => {
    const options = parse();
    expect(options.only).toBeUndefined();
    for (const name of SECTION_NAMES) expect(runsSection(options, name)).toBe(true);
  });

  it("runs only the sections it names, trimming spaces", () => {
    const options = parse("--only", "a2a, tracing");
    expect([...(options.only ?? [])]).toEqual(["a2a", "tracing"]);
    expect(runsSection(options, "a2a")).toBe(true);
    expect(runsSection(options, "throughput")).toBe(false);
    expect(runsSection(options, "identity")).toBe(false);
  });

  it("keeps taking the throughput section's configurations from --configurations", () => {
    const options = parse("--only", "throughput", "--configurations", "bound-mcp,trestle-grpc");
    expect(runsSection(options, "throughput")).toBe(true);
    expect(options.configurations).toEqual(["bound-mcp", "trestle-grpc"]);
  });

  it("refuses an unknown section, listing the known ones", () => {
    expect(() => parse("--only", "throughput,warp-drive")).toThrow(
      /unknown section\(s\) for --only: warp-drive; known: throughput, identity, stdio-forward/,
    );
    expect(() => parse("--only", " , ")).toThrow(/--only needs section names; known: throughput/);
  });

  it("reads --identity-only as --only identity, and adds it to a selection", () => {
    expect([...(parse("--identity-only").only ?? [])]).toEqual(["identity"]);
    expect([...(parse("--identity-only", "--only", "a2a").only ?? [])].sort()).toEqual(["a2a", "identity"]);
  });
});

describe("the path sections' runs", () => {
  it("are shorter than the throughput runs by default, and follow --warmup-ms and --duration-ms", () => {
    expect(parse().paths).toEqual({ warmupMs: 1_000, durationMs: 4_000, starts: 8 });
    expect(parse("--quick").paths).toEqual({ warmupMs: 300, durationMs: 1_200, starts: 3 });
    expect(parse("--quick", "--warmup-ms", "50", "--duration-ms", "700").paths).toMatchObject({
      warmupMs: 50,
      durationMs: 700,
    });
  });
});

describe("the code-mode section", () => {
  it("is a section of its own, with more searches and inner calls in a full run than in --quick", () => {
    expect(runsSection(parse("--only", "code-mode"), "code-mode")).toBe(true);
    expect(runsSection(parse("--only", "code-mode"), "throughput")).toBe(false);
    expect(parse().codeMode).toMatchObject({ definitionTools: 500, searchTools: 10_000, searches: 1_000 });
    expect(parse("--quick").codeMode).toMatchObject({ searches: 300, cpuCalls: 300 });
  });
});

describe("the pre-warm", () => {
  it("loads each configuration 20 s before round 1 in a full run, 0.8 s in --quick", () => {
    expect(parse().preWarmMs).toBe(20_000);
    expect(parse("--quick").preWarmMs).toBe(800);
  });
});
