import {
  type CodeModeTool,
  codeModeDescription,
  pythonStub,
  typescriptDeclarations,
} from "@trestle/code-mode";
import type { ResourceReference, ToolReference } from "@trestle/core";
import type { CallService } from "./call-service.js";
import type { Caller } from "./caller.js";

/** The resource holding the TypeScript declarations of the tools a program may call. */
export const TYPESCRIPT_STUB_URI = "trestle://code-mode/tools.d.ts";
/** The resource holding the same as a Python stub (while an engine runs Python). */
export const PYTHON_STUB_URI = "trestle://code-mode/tools.pyi";
/** The `type` of the stub resources: the router serves them itself. */
export const CODE_MODE_STUB_TYPE = "trestle.code-mode";

const TYPESCRIPT_RESOURCE: ResourceReference = {
  location: TYPESCRIPT_STUB_URI,
  type: CODE_MODE_STUB_TYPE,
  name: "tools.d.ts",
  description: "TypeScript declarations of the `tools` a program run by the code execution tool may call",
  mimeType: "application/typescript",
};
const PYTHON_RESOURCE: ResourceReference = {
  location: PYTHON_STUB_URI,
  type: CODE_MODE_STUB_TYPE,
  name: "tools.pyi",
  description: "A Python stub of the `tools` a program run by the code execution tool may call",
  mimeType: "text/x-python",
};

/** What one listing of a caller's tools makes: the listing with the code tool described, and the stubs. */
interface Derived {
  listing: readonly ToolReference[];
  typescript?: string;
  python?: string;
}

/**
 * Code mode's typed stubs over a call service: while the code execution tool is listed for a caller, its
 * description says where the stubs are, with a two-line example, and the namespace offers two resources,
 * {@link TYPESCRIPT_STUB_URI} and (while an engine runs Python) {@link PYTHON_STUB_URI}, generated from the tools
 * the caller may see (after the list policy, as `tools/list` shows them). Everything is derived from the caller's
 * current listing, so it follows every catalog change (and `list_changed`) without being told.
 */
export function withCodeModeStubs(
  calls: CallService,
  /** A tool as `tools/list` shows it (routing keywords and secret defaults removed): what the stubs are made of. */
  listed: (tool: ToolReference) => CodeModeTool,
): CallService {
  const derived = new WeakMap<readonly ToolReference[], Derived>();
  /** The described copies of the code execution tool, and the tool each stands for. */
  const described = new WeakMap<ToolReference, ToolReference>();
  const offersPython = () => calls.engines().some((engine) => engine.language === "python");

  const derive = (caller: Caller): Derived | undefined => {
    const all = calls.listTools(caller);
    const codeTool = all.find((tool) => calls.isCodeExecution(tool));
    if (!codeTool) return undefined;
    let made = derived.get(all);
    if (!made) {
      const tools = all.filter((tool) => tool !== codeTool).map(listed);
      const copy: ToolReference = {
        ...codeTool,
        description: `${codeTool.description ?? ""}\n\n${codeModeDescription({
          typescriptUri: TYPESCRIPT_STUB_URI,
          ...(offersPython() ? { pythonUri: PYTHON_STUB_URI } : {}),
          tools,
        })}`,
      };
      described.set(copy, codeTool);
      made = { listing: all.map((tool) => (tool === codeTool ? copy : tool)) };
      derived.set(all, made);
    }
    return made;
  };

  const stubText = (caller: Caller, uri: string): string | undefined => {
    const made = derive(caller);
    if (!made) return undefined;
    const tools = made.listing.filter((tool) => !described.has(tool)).map(listed);
    const label = caller.namespace === "" ? "the default namespace" : `namespace ${caller.namespace}`;
    if (uri === TYPESCRIPT_STUB_URI) made.typescript ??= typescriptDeclarations(tools, { label });
    else made.python ??= pythonStub(tools, { label });
    return uri === TYPESCRIPT_STUB_URI ? made.typescript : made.python;
  };

  const stubResources = (): ResourceReference[] =>
    offersPython() ? [TYPESCRIPT_RESOURCE, PYTHON_RESOURCE] : [TYPESCRIPT_RESOURCE];

  return {
    ...calls,
    isCodeExecution: (tool) => described.has(tool) || calls.isCodeExecution(tool),
    listTools(caller) {
      return derive(caller)?.listing ?? calls.listTools(caller);
    },
    callTool(caller, tool, args, options) {
      return calls.callTool(caller, described.get(tool) ?? tool, args, options);
    },
    listResources(caller) {
      const base = calls.listResources(caller);
      return derive(caller) ? [...base, ...stubResources()] : base;
    },
    findResource(caller, uri) {
      if (uri === TYPESCRIPT_STUB_URI || (uri === PYTHON_STUB_URI && offersPython())) {
        return derive(caller)
          ? uri === TYPESCRIPT_STUB_URI
            ? TYPESCRIPT_RESOURCE
            : PYTHON_RESOURCE
          : undefined;
      }
      return calls.findResource(caller, uri);
    },
    async readResource(caller, resource, uri, context) {
      if (resource !== TYPESCRIPT_RESOURCE && resource !== PYTHON_RESOURCE) {
        return calls.readResource(caller, resource, uri, context);
      }
      const text = stubText(caller, resource.location) ?? "";
      return [
        { uri: resource.location, ...(resource.mimeType ? { mimeType: resource.mimeType } : {}), text },
      ];
    },
  };
}
