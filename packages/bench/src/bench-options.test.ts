import { describe, expect, it } from "vitest";
import { parseBenchOptions, runsSection } from "./bench-options.js";

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
  it("runs every section when not given", () => {
    const options = parse();
    expect(options.only).toBeUndefined();
    expect(runsSection(options, "code-mode")).toBe(true);
    expect(runsSection(options, "throughput")).toBe(true);
  });

  it("runs only the named sections", () => {
    const options = parse("--only", "code-mode, tools-list");
    expect([...(options.only ?? [])]).toEqual(["code-mode", "tools-list"]);
    expect(runsSection(options, "code-mode")).toBe(true);
    expect(runsSection(options, "tools-list")).toBe(true);
    expect(runsSection(options, "throughput")).toBe(false);
  });

  it("refuses an unknown or empty name, listing the known ones", () => {
    expect(() => parse("--only", "code-mode,codemode")).toThrow(
      /unknown section\(s\) for --only: codemode \(known: throughput, .*code-mode\)/,
    );
    expect(() => parse("--only", ",")).toThrow(/--only needs a section name \(of: throughput, /);
  });
});
