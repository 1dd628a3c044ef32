// Shared by `pnpm start` and `pnpm bench`: the code execution engine and sandboxed stdio forwards run every program
// in a bubblewrap sandbox and refuse to start without it.
import { spawnSync } from "node:child_process";

/**
 * Makes sure `bwrap` is on the PATH. On a Debian-like machine where this runs as root, installs it the way CI does;
 * elsewhere says how, once, up front: `consequence` is what will not work without it, `then` what to run again.
 */
export function ensureBubblewrap(consequence, then) {
  const found = spawnSync("sh", ["-c", "command -v bwrap"], { stdio: "ignore" });
  if (found.status === 0) return;
  const canInstall =
    process.getuid?.() === 0 &&
    spawnSync("sh", ["-c", "command -v apt-get"], { stdio: "ignore" }).status === 0;
  if (canInstall) {
    console.error("trestle: installing bubblewrap (the code execution sandbox) with apt-get …");
    const env = {
      PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin",
      DEBIAN_FRONTEND: "noninteractive",
    };
    const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
    const install =
      update.status === 0 &&
      spawnSync("apt-get", ["install", "-y", "-qq", "bubblewrap"], { stdio: "inherit", env }).status === 0;
    if (install) return;
  }
  console.error(
    `trestle: bubblewrap (bwrap) is not installed, so ${consequence}; install it (Debian/Ubuntu: apt-get install ` +
      `bubblewrap; Fedora: dnf install bubblewrap) and ${then}.`,
  );
}
