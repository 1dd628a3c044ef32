import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRouterLogger, wantsPrettyLogs } from "./logger.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Logs one line through a router logger writing to a file, and returns what the file holds. */
async function logOnce(format: "auto" | "pretty" | "json", isTTY: boolean): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "trestle-logger-"));
  dirs.push(dir);
  const path = join(dir, "log");
  const fd = openSync(path, "w");
  const logger = await createRouterLogger({ logLevel: "info", logFormat: format }, { fd, isTTY });
  logger.info({ url: "http://127.0.0.1:8080" }, "router listening");
  logger.flush?.();
  await new Promise((resolve) => setTimeout(resolve, 50));
  closeSync(fd);
  return readFileSync(path, "utf8");
}

describe("the router's log lines", () => {
  it("are pretty on a terminal and JSON elsewhere, unless the format says", () => {
    expect(wantsPrettyLogs("auto", { fd: 2, isTTY: true })).toBe(true);
    expect(wantsPrettyLogs("auto", { fd: 2, isTTY: false })).toBe(false);
    expect(wantsPrettyLogs("json", { fd: 2, isTTY: true })).toBe(false);
    expect(wantsPrettyLogs("pretty", { fd: 2, isTTY: false })).toBe(true);
  });

  it("for a person: local time, the level's name, the message and its fields on one line", async () => {
    const text = await logOnce("pretty", false);
    expect(text).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: router listening \{?.*url.*http:\/\/127\.0\.0\.1:8080/,
    );
    expect(text).not.toContain('"level":30');
    expect(text.trim().split("\n")).toHaveLength(1);
  });

  it("for a collector: one JSON object per line, with numeric level and epoch time", async () => {
    const text = await logOnce("auto", false);
    const entry = JSON.parse(text.trim()) as { level: number; msg: string; service: string; time: number };
    expect(entry).toMatchObject({ level: 30, msg: "router listening", service: "trestle" });
    expect(typeof entry.time).toBe("number");
  });
});
