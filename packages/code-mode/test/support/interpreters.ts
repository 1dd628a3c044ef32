import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** The environment every child of these tests gets: a PATH, nothing of the test process's own. */
export const CHILD_ENV = { PATH: "/usr/local/bin:/usr/bin:/bin" };

/**
 * The real Python 3 interpreter: `/usr/bin/python3` when present, else the one `python3` on PATH resolves to
 * (a pyenv shim needs variables a scrubbed environment lacks, so the interpreter itself is run).
 */
export function python3(): string {
  if (existsSync("/usr/bin/python3")) return "/usr/bin/python3";
  return execFileSync("python3", ["-c", "import sys; print(sys.executable)"], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? CHILD_ENV.PATH, HOME: process.env.HOME ?? "/" },
  }).trim();
}
