import type { TransportNames } from "./transport-names.js";
import { transportPackageReadme } from "./transport-readme.js";
import type { TransportTemplate } from "./transport-template.js";

/** The files of a new transport package: each path, relative to the package's directory, and its text. */
export type PackageFiles = ReadonlyMap<string, string>;

/** The `/** … @packageDocumentation *\/` block that opens the example's index.ts: it describes the example. */
const PACKAGE_DOCUMENTATION = /^\/\*\*[\s\S]*?@packageDocumentation\s*\*\/\n/;

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** `kafka-stream` → `kafkaStream`. */
function camel(pascal: string): string {
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}

/**
 * The template's text for the new protocol: every spelling of the example's protocol in identifiers, strings and
 * file names (`http-json`, `HttpJson`, `httpJson`, `HTTP_JSON`) becomes the new one's. The wire itself stays the
 * example's HTTP+JSON until the author replaces it.
 */
function renamer(template: TransportTemplate, names: TransportNames): (text: string) => string {
  const from = template.protocol;
  const fromPascal = from
    .split("-")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
  const spellings: [string, string][] = [
    [from, names.protocol],
    [fromPascal, names.pascal],
    [camel(fromPascal), camel(names.pascal)],
    [from.toUpperCase().replaceAll("-", "_"), names.protocol.toUpperCase().replaceAll("-", "_")],
  ];
  return (text) => spellings.reduce((out, [old, next]) => out.replaceAll(old, next), text);
}

function packageJson(template: TransportTemplate, names: TransportNames, coreRange: string): string {
  return json({
    name: names.packageName,
    // 0.0.0 until the first changeset (below) makes it 0.1.0.
    version: "0.0.0",
    description: `A Trestle transport plugin: routes tool calls, resource reads and code execution to services that speak ${names.protocol}.`,
    keywords: ["trestle", "trestle-transport", "mcp"],
    license: "Apache-2.0",
    type: "module",
    sideEffects: false,
    engines: { node: template.nodeEngines },
    // src/ too: the declaration and source maps in dist/ point into it.
    files: ["dist", "src", "README.md"],
    exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
    scripts: {
      build: "tsc -p tsconfig.build.json",
      typecheck: "tsc -p tsconfig.json",
      test: "vitest run",
      prepack: "npm run build",
      changeset: "changeset",
      version: "changeset version",
      release: "changeset publish",
    },
    // A peer: the plugin's TrestleError and contract types must be the router's own, not a second copy.
    peerDependencies: { "@trestle/core": coreRange },
    // A range: any zod 4 the deployer's tree already has serves (the router reads the schema as a Standard Schema).
    dependencies: { zod: `^${template.versions.zod}` },
    devDependencies: {
      "@trestle/core": coreRange,
      "@changesets/cli": template.versions["@changesets/cli"],
      "@types/node": template.versions["@types/node"],
      typescript: template.versions.typescript,
      vitest: template.versions.vitest,
    },
  });
}

function tsconfigs(template: TransportTemplate): [string, string][] {
  return [
    [
      "tsconfig.json",
      json({ compilerOptions: { ...template.compilerOptions, noEmit: true }, include: ["src", "test"] }),
    ],
    [
      "tsconfig.build.json",
      json({
        extends: "./tsconfig.json",
        compilerOptions: { noEmit: false, rootDir: "src", outDir: "dist" },
        include: ["src"],
      }),
    ],
  ];
}

// The kit's checks wait for a cancellation to reach the service for up to 10 s on a loaded machine.
const VITEST_CONFIG = `import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { include: ["test/**/*.test.ts"], testTimeout: 20_000, hookTimeout: 60_000 },
});
`;

function pluginTest(names: TransportNames): string {
  return `import type { StandardSchemaV1, TransportPluginContext, TransportPluginModule } from "@trestle/core/plugin";
import { describe, expect, it } from "vitest";
import * as plugin from "../src/index.js";

type Options = StandardSchemaV1.InferOutput<typeof plugin.optionsSchema>;

/** What the router gives the factory besides the options. */
const context: TransportPluginContext = {
  protocol: "${names.protocol}",
  unaryTimeoutMs: 5_000,
  streamTimeoutMs: 10_000,
  logger: { debug() {}, info() {}, warn() {}, error() {} },
};

function validate(options: unknown) {
  return plugin.optionsSchema["~standard"].validate(options);
}

describe("the plugin module the router loads", () => {
  it("has the plugin contract's shape: a factory, contract version 1 and a Standard Schema", () => {
    // Type-checked too: the module must satisfy the contract @trestle/core describes.
    const module: TransportPluginModule<Options> = plugin;
    expect(typeof module.default).toBe("function");
    expect(module.contractVersion).toBe(1);
    expect(module.optionsSchema["~standard"].version).toBe(1);
  });

  it("accepts the options a deployer may leave out, and refuses a bad or misspelt one", async () => {
    expect((await validate({})).issues).toBeUndefined();
    const negative = await validate({ unaryTimeoutMs: -1 });
    expect(negative.issues?.[0]?.path).toEqual(["unaryTimeoutMs"]);
    expect((await validate({ unaryTimeoutMS: 1_000 })).issues?.length).toBeGreaterThan(0);
    expect((await validate("fast")).issues?.length).toBeGreaterThan(0);
  });

  it("makes a transport from validated options and the router's context", async () => {
    const checked = await validate({});
    if (checked.issues) throw new Error("the empty options were refused");
    const transport = await plugin.default(checked.value, context);
    for (const method of ["callTool", "readResource", "executeCode", "provision", "probeHealth", "close"])
      expect(typeof transport[method as keyof typeof transport], method).toBe("function");
    await transport.close();
  });
});
`;
}

function indexDocumentation(names: TransportNames): string {
  return `/**
 * A Trestle transport plugin for ${names.protocol}: the main entry the router imports exports the factory
 * (\`default\`), \`contractVersion\` and \`optionsSchema\`; \`create${names.pascal}Transport\` and
 * \`create${names.pascal}CapabilityServer\` are the two ends of the wire, proven together by the transport test kit.
 *
 * @packageDocumentation
 */
`;
}

/** The package's changesets: their configuration, and the first release's entry. */
function changesets(names: TransportNames): [string, string][] {
  return [
    [
      ".changeset/config.json",
      json({
        $schema: "https://unpkg.com/@changesets/config@3.1.4/schema.json",
        changelog: "@changesets/cli/changelog",
        commit: false,
        fixed: [],
        linked: [],
        access: "public",
        baseBranch: "main",
        updateInternalDependencies: "patch",
        ignore: [],
      }),
    ],
    [
      ".changeset/first-release.md",
      `---\n"${names.packageName}": minor\n---\n\nFirst release: a Trestle transport plugin for ${names.protocol} (contract version 1).\n`,
    ],
  ];
}

const GITIGNORE = "node_modules/\ndist/\n*.tgz\n";

/**
 * Every file of a new transport package named by `names`: the template's sources renamed for the protocol, with
 * a package.json (`@trestle/core` at `coreRange`, as a peer), tsconfigs, a vitest config, a test of the plugin
 * module's shape beside the kit's, a README, the first release's changeset and a .gitignore.
 */
export function renderTransportPackage(
  template: TransportTemplate,
  names: TransportNames,
  coreRange: string,
): PackageFiles {
  const rename = renamer(template, names);
  const files = new Map<string, string>();
  for (const [path, text] of Object.entries(template.files)) {
    const renamed = rename(text);
    files.set(
      rename(path),
      path === "src/index.ts" ? renamed.replace(PACKAGE_DOCUMENTATION, indexDocumentation(names)) : renamed,
    );
  }
  files.set("package.json", packageJson(template, names, coreRange));
  for (const [path, text] of tsconfigs(template)) files.set(path, text);
  files.set("vitest.config.ts", VITEST_CONFIG);
  files.set("test/plugin.test.ts", pluginTest(names));
  files.set("README.md", transportPackageReadme(names, [...files.keys()]));
  for (const [path, text] of changesets(names)) files.set(path, text);
  files.set(".gitignore", GITIGNORE);
  return files;
}
