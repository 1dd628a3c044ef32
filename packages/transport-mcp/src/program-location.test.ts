import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findProgram, isUnder, locateProgram } from "./program-location.js";

describe("locateProgram", () => {
  let root: string;

  function executable(path: string, content: string): void {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, content);
    chmodSync(path, 0o755);
  }

  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), "trestle-locate-")));
    // An installation like nvm's: bin/mynode, and a tool whose script runs on it through env.
    executable(join(root, "runtime", "bin", "mynode"), "#!/bin/sh\n");
    executable(join(root, "tools", "lib", "tool", "cli.js"), "#!/usr/bin/env -S mynode --flag\n");
    mkdirSync(join(root, "tools", "bin"), { recursive: true });
    symlinkSync("../lib/tool/cli.js", join(root, "tools", "bin", "tool"));
    executable(join(root, "home", "bin", "mine"), "#!/bin/sh\n");
    writeFileSync(join(root, "plain.txt"), "not a program");
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("finds a bare name on the search path and a path relative to the working directory", () => {
    const searchPath = `relative/dir:${join(root, "tools", "bin")}:${join(root, "runtime", "bin")}`;
    expect(findProgram("tool", searchPath, "/")).toBe(join(root, "tools", "bin", "tool"));
    expect(findProgram("./runtime/bin/mynode", "", root)).toBe(join(root, "runtime", "bin", "mynode"));
    expect(findProgram("missing", searchPath, "/")).toBeUndefined();
    expect(findProgram("./plain.txt", "", root)).toBeUndefined();
  });

  it("shows the installations of the program, of the file it links to and of its interpreter", () => {
    const searchPath = `${join(root, "tools", "bin")}:${join(root, "runtime", "bin")}:/usr/bin`;
    const located = locateProgram("tool", { searchPath, cwd: "/" });
    expect(located?.path).toBe(join(root, "tools", "bin", "tool"));
    expect(located?.directories.sort()).toEqual(
      [join(root, "tools"), join(root, "tools", "lib", "tool"), join(root, "runtime")].sort(),
    );
    expect(located?.pathEntries).toContain(join(root, "runtime", "bin"));
  });

  it("needs nothing for a program of the system, and never shows a home directory whole", () => {
    expect(locateProgram("sh", { searchPath: "/usr/bin:/bin", cwd: "/" })?.directories).toEqual([]);
    const mine = locateProgram(join(root, "home", "bin", "mine"), {
      searchPath: "",
      cwd: "/",
      homes: [join(root, "home")],
    });
    expect(mine?.directories).toEqual([join(root, "home", "bin")]);
  });

  it("says whether a path is a directory or inside it", () => {
    expect(isUnder("/a/b", "/a")).toBe(true);
    expect(isUnder("/a", "/a")).toBe(true);
    expect(isUnder("/ab", "/a")).toBe(false);
    expect(isUnder("/anything", "/")).toBe(true);
  });
});
