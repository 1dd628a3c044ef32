import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../src/cli/program.js";
import { transportNames } from "../src/cli/scaffold/transport-names.js";
import { collectTransportTemplate, TEMPLATE_EXAMPLE } from "../src/cli/scaffold/transport-template.js";
import { SERVER_VERSION } from "../src/version.js";

const repo = join(import.meta.dirname, "..", "..", "..");

async function trestle(argv: string[]) {
  const run = { code: -1, stdout: "", stderr: "" };
  run.code = await runCli(argv, {
    stdout: { write: (text: string) => (run.stdout += text) },
    stderr: { write: (text: string) => (run.stderr += text) },
    env: {},
  });
  return run;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

const scratches: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "trestle-new-transport-"));
  scratches.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
});

describe("trestle new transport", () => {
  it("writes a package named for the protocol, its sources the example's renamed", async () => {
    const dir = join(scratch(), "out");
    const run = await trestle(["new", "transport", "demo-queue", "--dir", dir]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("trestle-transport-demo-queue");

    expect(filesUnder(dir)).toEqual([
      ".changeset/config.json",
      ".changeset/first-release.md",
      ".gitignore",
      "README.md",
      "package.json",
      "src/demo-queue-capability-server.ts",
      "src/demo-queue-transport.ts",
      "src/index.ts",
      "src/plugin.ts",
      "src/wire.ts",
      "test/plugin.test.ts",
      "test/transport-contract.test.ts",
      "tsconfig.build.json",
      "tsconfig.json",
      "vitest.config.ts",
    ]);
    const read = (path: string) => readFileSync(join(dir, path), "utf8");
    const example = (path: string) => readFileSync(join(repo, TEMPLATE_EXAMPLE, path), "utf8");

    // The example's files, renamed and otherwise untouched: no second copy of the code to keep in step.
    expect(read("src/wire.ts")).toBe(example("src/wire.ts"));
    const rename = (text: string) =>
      text.replaceAll("http-json", "demo-queue").replaceAll("HttpJson", "DemoQueue");
    expect(read("src/demo-queue-transport.ts")).toBe(rename(example("src/http-json-transport.ts")));
    expect(read("src/demo-queue-capability-server.ts")).toBe(
      rename(example("src/http-json-capability-server.ts")),
    );
    expect(read("src/plugin.ts")).toBe(rename(example("src/plugin.ts")));
    expect(read("test/transport-contract.test.ts")).toBe(rename(example("test/transport-contract.test.ts")));
    expect(read("src/demo-queue-transport.ts")).toContain("export function createDemoQueueTransport(");
    for (const file of filesUnder(dir)) expect(read(file), file).not.toMatch(/http-json|HttpJson|httpJson/);

    // The main entry is the plugin module: the factory, contractVersion and optionsSchema, and both ends.
    const index = read("src/index.ts");
    expect(index).toMatch(/^\/\*\*\n \* A Trestle transport plugin for demo-queue/);
    expect(index).toMatch(
      /export \{\s*contractVersion,\s*default,[^}]*optionsSchema,?\s*\} from "\.\/plugin\.js"/,
    );
    expect(index).toContain("createDemoQueueCapabilityServer");
    expect(read("src/plugin.ts")).toContain("export const contractVersion = 1;");
    expect(read("test/transport-contract.test.ts")).toContain("describeTransportContract({");
    expect(read("test/plugin.test.ts")).toContain('protocol: "demo-queue"');

    const manifest = JSON.parse(read("package.json"));
    const rootManifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
    const exampleManifest = JSON.parse(example("package.json"));
    expect(manifest).toMatchObject({
      name: "trestle-transport-demo-queue",
      type: "module",
      exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
      scripts: { build: "tsc -p tsconfig.build.json", test: "vitest run", typecheck: "tsc -p tsconfig.json" },
      peerDependencies: { "@trestle/core": `^${SERVER_VERSION}` },
      files: ["dist", "src", "README.md"],
      dependencies: { zod: `^${exampleManifest.dependencies.zod}` },
      devDependencies: {
        "@trestle/core": `^${SERVER_VERSION}`,
        vitest: exampleManifest.devDependencies.vitest,
        typescript: rootManifest.devDependencies.typescript,
        "@changesets/cli": rootManifest.devDependencies["@changesets/cli"],
      },
    });
    // Ready to publish: the first release is a changeset naming the package, applied by `npm run version`.
    expect(manifest.version).toBe("0.0.0");
    expect(manifest.scripts).toMatchObject({ version: "changeset version", release: "changeset publish" });
    expect(read(".changeset/first-release.md")).toMatch(/^---\n"trestle-transport-demo-queue": minor\n---\n/);
    expect(JSON.parse(read(".changeset/config.json"))).toMatchObject({
      access: "public",
      baseBranch: "main",
    });
    const tsconfig = JSON.parse(read("tsconfig.json"));
    expect(tsconfig.compilerOptions).toMatchObject({ strict: true, module: "NodeNext", noEmit: true });
    expect(tsconfig.compilerOptions.customConditions).toBeUndefined();

    const readme = read("README.md");
    for (const part of ["## What to change first", "## Publish", "## Load it in a router", "transports:"])
      expect(readme).toContain(part);
    expect(readme).toContain('package: "trestle-transport-demo-queue"');
  });

  it("takes a scoped name as the package's, and the protocol from its last part", async () => {
    const dir = join(scratch(), "scoped");
    expect((await trestle(["new", "transport", "@acme/trestle-transport-kafka", "--dir", dir])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name).toBe(
      "@acme/trestle-transport-kafka",
    );
    expect(readFileSync(join(dir, "src", "kafka-transport.ts"), "utf8")).toContain("createKafkaTransport(");
    // A scoped package publishes publicly: changesets publishes with the access its configuration names.
    expect(JSON.parse(readFileSync(join(dir, ".changeset/config.json"), "utf8")).access).toBe("public");
  });

  it("refuses a directory that is not empty, and writes nothing into it", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "notes.txt"), "mine");
    const run = await trestle(["new", "transport", "demo", "--dir", dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`trestle: ${dir} exists and is not empty: choose another --dir.\n`);
    expect(readdirSync(dir)).toEqual(["notes.txt"]);
    // An empty directory is fine.
    const empty = join(scratch(), "empty");
    mkdirSync(empty);
    expect((await trestle(["new", "transport", "demo", "--dir", empty])).code).toBe(0);
  });

  it("refuses a name that cannot make a package, in one sentence", async () => {
    for (const bad of [
      "Kafka",
      "my_queue",
      "9lives",
      "x-",
      "a--b",
      "@/x",
      "@acme/",
      "../x",
      "trestle-transport-",
    ]) {
      const dir = join(scratch(), "never");
      const run = await trestle(["new", "transport", bad, "--dir", dir]);
      expect(run.code, bad).toBe(2);
      expect(run.stderr, bad).toMatch(/^trestle: "[^\n]*" is not a transport name: [^\n]*\.\n$/);
      expect(() => readdirSync(dir), bad).toThrow();
    }
  });

  it("derives the names a package needs from the one given", () => {
    expect(transportNames("kafka")).toEqual({
      packageName: "trestle-transport-kafka",
      protocol: "kafka",
      pascal: "Kafka",
      directory: "trestle-transport-kafka",
    });
    expect(transportNames("trestle-transport-nats-jet")).toMatchObject({
      packageName: "trestle-transport-nats-jet",
      protocol: "nats-jet",
      pascal: "NatsJet",
    });
    expect(transportNames("@acme/bus")).toMatchObject({ packageName: "@acme/bus", directory: "bus" });
    expect(transportNames("x".repeat(101))).toBeUndefined();
  });

  it("collects the template from the example: every source but tests, and the kit test", () => {
    const template = collectTransportTemplate(repo);
    expect(Object.keys(template.files)).toContain("test/transport-contract.test.ts");
    expect(Object.keys(template.files)).not.toContain("test/router.test.ts");
    expect(Object.keys(template.files).filter((f) => f.startsWith("src/"))).toEqual(
      readdirSync(join(repo, TEMPLATE_EXAMPLE, "src"))
        .filter((f) => !f.endsWith(".test.ts"))
        .map((f) => `src/${f}`)
        .sort(),
    );
  });
});
