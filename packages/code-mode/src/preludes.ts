import { readFileSync } from "node:fs";
import { Code, TrestleError } from "@trestle/core";
import type { CodeModeTool } from "./code-mode-tool.js";
import { parameterIdentifiers, toolIdentifiers } from "./identifiers.js";

/**
 * Where a program's prelude finds the tool channel: a connected stream socket it inherited as a file descriptor
 * (e.g. `stdio: [..., "pipe"]` of `child_process.spawn` gives the child a socket pair end as fd 3), or the path
 * of a Unix socket to connect to.
 */
export type ToolChannelEndpoint = { fd: number } | { path: string };

/** One tool in a prelude's configuration. */
export interface ManifestTool {
  /** The original name, sent on the channel. */
  name: string;
  /** The property of the JavaScript `tools` object and method of the Python one. */
  identifier: string;
  /** Python keyword names that differ from the argument names they stand for: `{ city_name: "city-name" }`. */
  parameters?: Record<string, string>;
}

/** What a prelude is configured with: the channel and the tools. */
export interface CodeModeManifest {
  version: 1;
  channel: ToolChannelEndpoint;
  tools: ManifestTool[];
}

/** Options of the prelude renderers. */
export interface PreludeOptions {
  /** Where the tool channel is. Default `{ fd: 3 }`. */
  channel?: ToolChannelEndpoint;
}

/** The file name the JavaScript prelude expects: load it with `node --import ./trestle-tools.mjs main.mjs`. */
export const JAVASCRIPT_PRELUDE_FILE = "trestle-tools.mjs";
/** The file name of the Python prelude, a module: run `python3 trestle_tools.py main.py [args...]`. */
export const PYTHON_PRELUDE_FILE = "trestle_tools.py";

const PLACEHOLDER = '"__TRESTLE_TOOLS_CONFIG__"';

/** The identifiers and Python keyword names of a set of tools, and the channel: what the preludes read. */
export function codeModeManifest(
  tools: readonly CodeModeTool[],
  options: PreludeOptions = {},
): CodeModeManifest {
  const channel = options.channel ?? { fd: 3 };
  if ("fd" in channel ? !Number.isInteger(channel.fd) || channel.fd < 0 : typeof channel.path !== "string")
    throw new TrestleError(
      "the tool channel must be a file descriptor number or a socket path",
      Code.InvalidArgument,
    );
  const identifiers = toolIdentifiers(tools.map((t) => t.name));
  return {
    version: 1,
    channel,
    tools: tools.map((tool) => {
      const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
      const names = typeof properties === "object" && properties !== null ? Object.keys(properties) : [];
      const renamed = [...parameterIdentifiers(names)].filter(([argument, keyword]) => argument !== keyword);
      return {
        name: tool.name,
        identifier: identifiers.get(tool.name) as string,
        ...(renamed.length > 0 ? { parameters: Object.fromEntries(renamed.map(([a, k]) => [k, a])) } : {}),
      };
    }),
  };
}

/** A prelude's source with the manifest written in, as Base64 (which no catalog text can break out of). */
function render(file: string, manifest: CodeModeManifest): string {
  const source = readFileSync(new URL(`../preludes/${file}`, import.meta.url), "utf8");
  const parts = source.split(PLACEHOLDER);
  if (parts.length !== 2) throw new Error(`the prelude ${file} must hold its configuration placeholder once`);
  const encoded = Buffer.from(JSON.stringify(manifest), "utf8").toString("base64");
  return `${parts[0]}"${encoded}"${parts[1]}`;
}

/**
 * The JavaScript prelude for a set of tools, to write into the sandbox as {@link JAVASCRIPT_PRELUDE_FILE} and load
 * before the program (`node --import ./trestle-tools.mjs main.mjs`). It defines the globals `tools` (a frozen
 * object: an async function per tool taking the arguments object, `tools.call(name, args)` for any name) and
 * `ToolError`, and talks to the router on the channel. The socket does not keep the program alive between calls.
 */
export function javascriptPrelude(tools: readonly CodeModeTool[], options: PreludeOptions = {}): string {
  return render(JAVASCRIPT_PRELUDE_FILE, codeModeManifest(tools, options));
}

/**
 * The Python prelude for a set of tools, to write into the sandbox as {@link PYTHON_PRELUDE_FILE} and run the
 * program through (`python3 trestle_tools.py main.py [args...]`). The program gets the builtins `tools` (a
 * function per tool taking keyword arguments, or one dict; `tools.call(name, args)` for any name) and `ToolError`;
 * `from trestle_tools import tools, ToolError` works too. Calls are synchronous; threads take turns.
 */
export function pythonPrelude(tools: readonly CodeModeTool[], options: PreludeOptions = {}): string {
  return render(PYTHON_PRELUDE_FILE, codeModeManifest(tools, options));
}
