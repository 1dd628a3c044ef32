import { describe, expect, it } from "vitest";
import { readAnonRss, readPss, readRss } from "../src/proc-stats.js";

describe("process memory readings from /proc", () => {
  it("reads this process's PSS, more than its private pages and at most its RSS", () => {
    const rss = readRss(process.pid) as number;
    const pss = readPss(process.pid) as number;
    expect(rss).toBeGreaterThan(0);
    // Its anonymous pages are its own (no fork shares them here), so PSS holds at least most of them.
    expect(pss).toBeGreaterThan((readAnonRss(process.pid) as number) / 2);
    expect(pss).toBeLessThanOrEqual(rss);
  });

  it("answers undefined for a process that is not there", () => {
    expect(readPss(2 ** 22 + 1)).toBeUndefined();
    expect(readRss(2 ** 22 + 1)).toBeUndefined();
  });
});
