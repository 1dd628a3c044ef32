import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Code } from "@trestle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRootGuard, parseFileCommandLine } from "../src/index.js";

let root: string;
let state: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "trestle-file-excluded-"));
  state = join(root, ".trestle");
  await mkdir(join(state, "services", "http"), { recursive: true });
  await mkdir(join(state, "data"), { recursive: true });
  await writeFile(join(state, "services", "http", "weather.secrets.properties"), "key=s3cr3t");
  await writeFile(join(state, "data", "PG_VERSION"), "17");
  await writeFile(join(root, "notes.txt"), "notes");
  await symlink(state, join(root, "innocent"));
  await symlink(join(state, "data", "PG_VERSION"), join(root, "version.txt"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("excluded directories under a root", () => {
  it("refuses every spelling of a file inside an excluded directory, and serves the rest", async () => {
    const guard = createRootGuard([root], { excluded: [state] });
    const secret = join(state, "services", "http", "weather.secrets.properties");
    for (const location of [
      secret,
      pathToFileURL(secret).href,
      ".trestle/services/http/weather.secrets.properties",
      "notes/../.trestle/data/PG_VERSION",
      "innocent/services/http/weather.secrets.properties",
      "version.txt",
      // A file that does not exist answers like one that does: nobody can probe the directory.
      ".trestle/data/missing",
      join(state, "data", "missing"),
    ]) {
      await expect(guard.resolve(location), location).rejects.toMatchObject({ code: Code.PermissionDenied });
    }
    expect(await guard.resolve("notes.txt")).toBe(join(root, "notes.txt"));
    await expect(guard.resolve("missing.txt")).rejects.toMatchObject({ code: Code.NotFound });
  });

  it("excludes a directory that does not exist yet by its path", async () => {
    const guard = createRootGuard([root], { excluded: [join(root, "later")] });
    await mkdir(join(root, "later"));
    await writeFile(join(root, "later", "x.txt"), "x");
    await expect(guard.resolve("later/x.txt")).rejects.toMatchObject({ code: Code.PermissionDenied });
  });

  it("serves an excluded directory's files without the exclusion (the guard is what refuses them)", async () => {
    const guard = createRootGuard([root]);
    expect(await guard.resolve(".trestle/data/PG_VERSION")).toBe(join(state, "data", "PG_VERSION"));
  });
});

describe("trestle-file --exclude", () => {
  it("reads --exclude (repeatable) and TRESTLE_FILE_EXCLUDED_ROOTS, keeping both", () => {
    const options = parseFileCommandLine(["--exclude", "/a", "--exclude", "/b"], {
      TRESTLE_FILE_EXCLUDED_ROOTS: "/c:/d",
    });
    expect(options).toMatchObject({ excludedRoots: ["/c", "/d", "/a", "/b"] });
    expect(parseFileCommandLine([], {})).not.toHaveProperty("excludedRoots");
  });
});
