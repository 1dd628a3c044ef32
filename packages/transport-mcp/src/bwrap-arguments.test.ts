import { describe, expect, it } from "vitest";
import { bwrapArguments, SANDBOX_HOME, type SandboxLayout } from "./bwrap-arguments.js";

const SYSTEM = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin"];

function layout(overrides: Partial<SandboxLayout> = {}): SandboxLayout {
  return {
    readOnly: [],
    writable: [],
    masks: [],
    home: "/data/forwards/forward.x/home",
    passwd: "/data/forwards/forward.x/passwd",
    group: "/data/forwards/forward.x/group",
    workingDirectory: SANDBOX_HOME,
    program: "/usr/bin/node",
    args: ["server.js", "--token=s3cret"],
    ...overrides,
  };
}

/** The index of the first `flag path…` triple of `args` whose values are `values`. */
function at(args: string[], flag: string, ...values: string[]): number {
  return args.findIndex((a, i) => a === flag && values.every((v, j) => args[i + 1 + j] === v));
}

describe("bwrapArguments", () => {
  it("unshares every namespace but the network, dies with the router, drops capabilities", () => {
    const args = bwrapArguments(layout(), SYSTEM);
    expect(args.slice(0, 7)).toEqual([
      "--unshare-all",
      "--share-net",
      "--die-with-parent",
      "--new-session",
      "--cap-drop",
      "ALL",
      "--ro-bind",
    ]);
  });

  it("gives the sandbox its own /proc, /dev, /tmp, passwd and a writable home, and a read-only root", () => {
    const args = bwrapArguments(layout(), SYSTEM);
    expect(at(args, "--proc", "/proc")).toBeGreaterThan(0);
    expect(at(args, "--dev", "/dev")).toBeGreaterThan(0);
    expect(at(args, "--tmpfs", "/tmp")).toBeGreaterThan(0);
    expect(at(args, "--tmpfs", "/dev/shm")).toBeGreaterThan(0);
    expect(at(args, "--ro-bind", "/data/forwards/forward.x/passwd", "/etc/passwd")).toBeGreaterThan(0);
    expect(at(args, "--bind", "/data/forwards/forward.x/home", SANDBOX_HOME)).toBeGreaterThan(0);
    expect(at(args, "--remount-ro", "/")).toBeGreaterThan(at(args, "--bind", layout().home, SANDBOX_HOME));
    expect(args).not.toContain("--bind-try");
    // Nothing of the host's root or /proc is bound.
    expect(at(args, "--ro-bind", "/", "/")).toBe(-1);
    expect(at(args, "--bind", "/proc", "/proc")).toBe(-1);
  });

  it("ends with the program and its arguments after --, and sets no environment on the command line", () => {
    const args = bwrapArguments(layout(), SYSTEM);
    expect(args.slice(-4)).toEqual(["--", "/usr/bin/node", "server.js", "--token=s3cret"]);
    expect(args).not.toContain("--setenv");
    expect(args).not.toContain("--clearenv");
    expect(args.slice(0, args.indexOf("--"))).not.toContain("--token=s3cret");
  });

  it("binds parents before the paths inside them, a writable path writable, and masks after every bind", () => {
    const args = bwrapArguments(
      layout({
        readOnly: ["/srv/project/dist/server.js", "/srv/project", "/opt/node"],
        writable: ["/srv/project/out"],
        masks: [
          { path: "/srv/project/.trestle", kind: "directory" },
          { path: "/srv/project/trestle.yaml", kind: "file" },
        ],
        workingDirectory: "/srv/project",
      }),
      SYSTEM,
    );
    const project = at(args, "--ro-bind", "/srv/project", "/srv/project");
    const out = at(args, "--bind", "/srv/project/out", "/srv/project/out");
    const script = at(args, "--ro-bind", "/srv/project/dist/server.js", "/srv/project/dist/server.js");
    expect(project).toBeGreaterThan(0);
    expect(out).toBeGreaterThan(project);
    expect(script).toBeGreaterThan(project);
    const hidden = at(args, "--tmpfs", "/srv/project/.trestle");
    expect(hidden).toBeGreaterThan(Math.max(out, script));
    expect(at(args, "--remount-ro", "/srv/project/.trestle")).toBe(hidden + 2);
    expect(at(args, "--ro-bind", "/dev/null", "/srv/project/trestle.yaml")).toBeGreaterThan(
      Math.max(out, script),
    );
    expect(at(args, "--chdir", "/srv/project")).toBeGreaterThan(0);
  });

  it("binds a path that is both read-only and writable once, writable", () => {
    const args = bwrapArguments(layout({ readOnly: ["/data/docs"], writable: ["/data/docs"] }), SYSTEM);
    expect(at(args, "--bind", "/data/docs", "/data/docs")).toBeGreaterThan(0);
    expect(at(args, "--ro-bind", "/data/docs", "/data/docs")).toBe(-1);
  });
});
