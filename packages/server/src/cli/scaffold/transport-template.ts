import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * What `trestle new transport` builds a package from: the source files of the worked example
 * (examples/transport-http-json) — its transport, capability server, wire, plugin entry and transport kit test,
 * proven by the example's own tests — and the versions and compiler settings the repository builds them with.
 */
export interface TransportTemplate {
  /** The example's directory in the repository, for the record: `examples/transport-http-json`. */
  readonly source: string;
  /** The protocol name the example's files speak (`http-json`); the scaffold renames it. */
  readonly protocol: string;
  /** Each file's path in the example (`src/wire.ts`, `test/transport-contract.test.ts`) and its text. */
  readonly files: Readonly<Record<string, string>>;
  /** Versions for the new package: `zod`, `vitest`, `typescript`, `@types/node`, `@changesets/cli`. */
  readonly versions: Readonly<Record<TemplateDependency, string>>;
  /** The Node versions the example supports (its `engines.node`). */
  readonly nodeEngines: string;
  /** The repository's TypeScript compiler options, less the workspace's own export condition. */
  readonly compilerOptions: Readonly<Record<string, unknown>>;
}

/** The dependencies whose versions a new package takes from the repository. */
export type TemplateDependency = "zod" | "vitest" | "typescript" | "@types/node" | "@changesets/cli";

/** Where the example lives, relative to the repository's root. */
export const TEMPLATE_EXAMPLE = "examples/transport-http-json";
/** The protocol the example speaks, in its file and identifier names (`http-json-transport.ts`, `HttpJson…`). */
const TEMPLATE_PROTOCOL = "http-json";
/** The example's tests that belong to the example alone (the router in-process, the guide's excerpts). */
const TEMPLATE_TESTS = ["test/transport-contract.test.ts"];
/** The file the built server package carries the template in, beside this module's build. */
const TEMPLATE_FILE = "transport-template.json";

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  engines?: { node?: string };
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new Error(`transport template: ${what} is not declared`);
  return value;
}

/**
 * Reads the template from the repository at `root`: the example's `src/` (tests excluded) and its kit test, the
 * versions of zod and vitest it uses, the root's TypeScript and `@types/node`, and tsconfig.base.json's options.
 */
export function collectTransportTemplate(root: string): TransportTemplate {
  const example = join(root, TEMPLATE_EXAMPLE);
  const manifest = readJson<Manifest>(join(example, "package.json"));
  const rootManifest = readJson<Manifest>(join(root, "package.json"));
  const base = readJson<{ compilerOptions: Record<string, unknown> }>(join(root, "tsconfig.base.json"));
  const files: Record<string, string> = {};
  const sources = readdirSync(join(example, "src"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .sort()
    .map((file) => `src/${file}`);
  for (const file of [...sources, ...TEMPLATE_TESTS]) files[file] = readFileSync(join(example, file), "utf8");
  // The workspace's condition resolves sibling packages to their sources; a published package has none.
  const { customConditions: _workspaceOnly, ...compilerOptions } = base.compilerOptions;
  return {
    source: TEMPLATE_EXAMPLE,
    protocol: TEMPLATE_PROTOCOL,
    files,
    versions: {
      zod: required(manifest.dependencies?.zod, `${TEMPLATE_EXAMPLE}'s zod`),
      vitest: required(manifest.devDependencies?.vitest, `${TEMPLATE_EXAMPLE}'s vitest`),
      typescript: required(rootManifest.devDependencies?.typescript, "the root's typescript"),
      "@types/node": required(rootManifest.devDependencies?.["@types/node"], "the root's @types/node"),
      "@changesets/cli": required(
        rootManifest.devDependencies?.["@changesets/cli"],
        "the root's @changesets/cli",
      ),
    },
    nodeEngines: required(manifest.engines?.node, `${TEMPLATE_EXAMPLE}'s engines.node`),
    compilerOptions,
  };
}

/** Writes the template as the JSON {@link loadTransportTemplate} reads (the server's build calls this). */
export function serializeTransportTemplate(template: TransportTemplate): string {
  return `${JSON.stringify(template, null, 2)}\n`;
}

/**
 * The template this server carries: the JSON its build wrote beside this module (an installed server), or, run
 * from the repository's sources (tests, tsx), the example itself, read the same way the build reads it.
 */
export function loadTransportTemplate(): TransportTemplate {
  const packed = fileURLToPath(new URL(TEMPLATE_FILE, import.meta.url));
  if (existsSync(packed)) return readJson<TransportTemplate>(packed);
  const root = fileURLToPath(new URL("../../../../../", import.meta.url));
  if (existsSync(join(root, TEMPLATE_EXAMPLE, "package.json"))) return collectTransportTemplate(root);
  throw new Error(`transport template: ${packed} is missing (the server's build writes it)`);
}
