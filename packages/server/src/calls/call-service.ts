import {
  type CallContext,
  type CodeExecutionBridge,
  type CodeExecutionRequestInput as CodeRunInput,
  type InvokerBridge,
  isUriTemplate,
  matchUriTemplate,
  type ResourceBridge,
} from "@trestle/bridge";
import {
  Code,
  type CodeOutput,
  createContextValues,
  type InputAnswers,
  type JsonObject,
  type PromptReference,
  type PromptResult,
  type ResourceContents,
  type ResourceReference,
  type ToolReference,
  type ToolResult,
  TrestleError,
} from "@trestle/core";
import { createPrincipalBudget } from "../http/principal-budget.js";
import { type CallPolicy, OPEN_POLICY, type PolicyRequest, policyRefusal } from "./call-policy.js";
import { type Caller, callerPrincipalKey } from "./caller.js";
import type { CatalogView, EngineLanguage } from "./catalog-view.js";
import { codeExecutionTool, type OutputListener, runCodeExecutionTool } from "./code-execution.js";
import type { CodeModeRuns } from "./code-mode-runs.js";
import { expandPrompt } from "./prompt-expansion.js";

/** Expands a prompt a forward imported, by asking its upstream. */
export type ForwardedPrompts = (
  prompt: PromptReference,
  args: Record<string, string>,
  options?: { signal?: AbortSignal; input?: InputAnswers },
) => Promise<PromptResult>;

/** What the call service is built on: the catalog in memory, the bridges, the engines, and the policy. */
export interface CallServiceDependencies {
  catalog: CatalogView;
  invoker: InvokerBridge;
  resources: ResourceBridge;
  codeExecution: CodeExecutionBridge;
  /** The registered code execution engines and their languages (the same array while they do not change). */
  engines(): readonly EngineLanguage[];
  /** The name the code execution tool has in every namespace while an engine is registered. */
  codeExecutionToolName: string;
  /** Prompts of forwards, expanded by their upstreams. Absent: no forwards. */
  forwardedPrompts?: ForwardedPrompts;
  /** Who may see and call what. Default: everything, for everyone. */
  policy?: CallPolicy;
  /** Code runs one principal may have going at once (the engines bound each run; this bounds a principal). */
  maxConcurrentRunsPerPrincipal: number;
  /** Gives each code run its caller's tools (code mode). Absent: programs run without tools. */
  codeModeRuns?: Pick<CodeModeRuns, "begin">;
}

/** What a call of a tool is given besides its arguments: the bridge's context, and where code output goes. */
export interface ToolCallOptions extends CallContext {
  /** Output of a code run as it is produced (the code execution tool only). */
  onOutput?: OutputListener;
}

/**
 * The one place every front's calls pass through, with their principal: MCP over HTTP and stdio, A2A, the
 * management API's code execution, and code mode. It finds what a call names in the caller's namespace, applies the
 * policy (lists at list time, calls with their arguments), bounds what one principal may run at once, and hands the
 * call to the bridges, which resolve the service, record the call's events and run the interceptors and the
 * transport. Fronts translate their protocol to these calls and the neutral results back; nothing else resolves,
 * authorizes or calls.
 */
export interface CallService {
  /** The name of the code execution tool. */
  readonly codeExecutionToolName: string;
  /** The registered engines and their languages. */
  engines(): readonly EngineLanguage[];
  /**
   * The tools `caller` may see in its namespace, the code execution tool last while an engine is registered. The
   * same array for every caller and call while nothing changed and the policy filters nothing.
   */
  listTools(caller: Caller): readonly ToolReference[];
  /** The tool `caller` may call by `name`; `undefined` for one that does not exist or that it may not see, alike. */
  findTool(caller: Caller, name: string): ToolReference | undefined;
  /** True when `tool` is the code execution tool (its calls run code, see {@link CallService.callTool}). */
  isCodeExecution(tool: ToolReference): boolean;
  /**
   * Calls `tool` (found by {@link CallService.findTool}) with `args`: refused before any transport when the policy
   * says no; the code execution tool runs code, within the principal's bound of concurrent runs. The caller's
   * namespace and principal are written on `options` (the call's own context), for its events.
   *
   * @throws TrestleError `PermissionDenied` naming the policy rule; `ResourceExhausted` past the principal's runs;
   * `InvalidArgument` for code execution arguments of the wrong shape. Other failures are `isError` results (or
   * rejections, per `options.failures`), as the invoker bridge makes them.
   */
  callTool(
    caller: Caller,
    tool: ToolReference,
    args: JsonObject,
    options: ToolCallOptions,
  ): Promise<ToolResult>;
  /**
   * Runs code on `engineType`'s `language` (the management API's code execution, which names its engine), as the
   * code execution tool does: the policy decides as for a call of that tool, within the principal's bound of runs.
   *
   * @throws TrestleError `PermissionDenied` naming the rule; `ResourceExhausted` past the principal's runs; the
   * engine's failures as the stream's error.
   */
  executeCode(
    caller: Caller,
    engineType: string,
    language: string,
    input: CodeRunInput,
    context: CallContext,
  ): AsyncIterable<CodeOutput>;
  /** The resources (and templates) `caller` may see in its namespace. */
  listResources(caller: Caller): readonly ResourceReference[];
  /** The resource or template that serves `uri` for `caller`; `undefined` when none does or it may not see it. */
  findResource(caller: Caller, uri: string): ResourceReference | undefined;
  /**
   * Reads `uri` from `resource`. @throws TrestleError `PermissionDenied` naming the policy rule, or the read's
   * failure.
   */
  readResource(
    caller: Caller,
    resource: ResourceReference,
    uri: string,
    context: CallContext,
  ): Promise<ResourceContents[]>;
  /** The prompts `caller` may see in its namespace. */
  listPrompts(caller: Caller): readonly PromptReference[];
  /** The prompt named `name` that `caller` may see; `undefined` otherwise. */
  findPrompt(caller: Caller, name: string): PromptReference | undefined;
  /**
   * Expands `prompt` with `args`: a forward's prompt by its upstream (which may ask for input), a catalog prompt
   * from its template. @throws TrestleError `PermissionDenied` naming the policy rule, or the upstream's failure.
   */
  getPrompt(
    caller: Caller,
    prompt: PromptReference,
    args: Record<string, string>,
    options?: { signal?: AbortSignal; input?: InputAnswers },
  ): Promise<PromptResult>;
}

/**
 * A list filtered for each caller by the policy, made again only when the list itself or the policy's rules change:
 * callers with the same principal object share one filtered copy, and an open policy hands out the list as it is.
 */
function perCaller<T>(
  policy: CallPolicy,
  keep: (caller: Caller, item: T) => boolean,
): (caller: Caller, all: readonly T[]) => readonly T[] {
  let source: readonly T[] | undefined;
  let revision = policy.revision;
  let filtered = new WeakMap<object, Map<string, readonly T[]>>();
  return (caller, all) => {
    if (policy.open) return all;
    if (all !== source || policy.revision !== revision) {
      source = all;
      revision = policy.revision;
      filtered = new WeakMap();
    }
    let byNamespace = filtered.get(caller.principal);
    if (!byNamespace) {
      byNamespace = new Map();
      filtered.set(caller.principal, byNamespace);
    }
    let list = byNamespace.get(caller.namespace);
    if (!list) {
      list = all.filter((item) => keep(caller, item));
      byNamespace.set(caller.namespace, list);
    }
    return list;
  };
}

/** Creates the call service over its dependencies. */
export function createCallService(deps: CallServiceDependencies): CallService {
  const policy = deps.policy ?? OPEN_POLICY;
  const runs = createPrincipalBudget(deps.maxConcurrentRunsPerPrincipal);
  const name = deps.codeExecutionToolName;

  /** The catalog's tools and the code execution tool, made again when either changes (per namespace). */
  const withCodeTool = new Map<
    string,
    {
      tools: readonly ToolReference[];
      engines: readonly EngineLanguage[];
      count: number;
      all: readonly ToolReference[];
    }
  >();
  let codeTool: { engines: readonly EngineLanguage[]; count: number; tool: ToolReference } | undefined;
  const codeToolFor = (engines: readonly EngineLanguage[]): ToolReference => {
    if (codeTool?.engines !== engines || codeTool.count !== engines.length)
      codeTool = { engines, count: engines.length, tool: codeExecutionTool(name, engines) };
    return codeTool.tool;
  };
  const allTools = (namespace: string): readonly ToolReference[] => {
    const tools = deps.catalog.listTools(namespace);
    const engines = deps.engines();
    const made = withCodeTool.get(namespace);
    if (made && made.tools === tools && made.engines === engines && made.count === engines.length)
      return made.all;
    const all =
      engines.length > 0 && !tools.some((t) => t.name === name) ? [...tools, codeToolFor(engines)] : tools;
    withCodeTool.set(namespace, { tools, engines, count: engines.length, all });
    return all;
  };
  const visibleTools = perCaller<ToolReference>(policy, (caller, tool) => policy.listsTool(caller, tool));
  const visibleResources = perCaller<ResourceReference>(policy, (caller, r) =>
    policy.listsResource(caller, r),
  );
  const visiblePrompts = perCaller<PromptReference>(policy, (caller, p) => policy.listsPrompt(caller, p));

  const decide = (caller: Caller, request: PolicyRequest): void => {
    if (policy.open) return;
    const decision = policy.decide(caller, request);
    if (!decision.allowed) throw policyRefusal(decision);
  };

  const isCodeExecution = (tool: ToolReference): boolean => tool === codeTool?.tool;

  /**
   * The caller on the call's own context (a fresh one per call: no copy on the hot path): its namespace and name for
   * the events, the principal itself for the interceptors below the bridge (the upstream's credential).
   */
  const stamp = (context: CallContext, caller: Caller): void => {
    context.namespace = caller.namespace;
    context.principal = caller.principal.name;
    context.contextValues = createContextValues().set(callerPrincipalKey, caller.principal);
  };

  /** One of the principal's code runs, or the refusal when it has as many going as it may. */
  const takeRun = (caller: Caller): (() => void) => {
    const release = runs.take(caller.principal.id);
    if (release) return release;
    throw new TrestleError(
      `Too many code runs: '${caller.principal.name}' has ${runs.limit} running, the most a principal may; wait for one to end`,
      Code.ResourceExhausted,
    );
  };

  /** The engines' stream, holding one of the caller's runs until it ends (or its reader stops). */
  async function* runOnEngine(
    caller: Caller,
    engineType: string,
    language: string,
    input: CodeRunInput,
    context: CallContext,
  ): AsyncGenerator<CodeOutput, void, undefined> {
    const release = takeRun(caller);
    // The program's tools: a capability for this run, sent to the engine in the request's metadata.
    const run = deps.codeModeRuns?.begin(caller);
    try {
      stamp(context, caller);
      if (run) {
        context.codeRun = run.id;
        context.metadata = { ...context.metadata, ...run.metadata };
      }
      yield* deps.codeExecution.execute(engineType, language, input, context);
    } finally {
      run?.end();
      release();
    }
  }

  /** The code execution bridge as the code execution tool uses it: every run counted against the caller. */
  const runsOf = (caller: Caller): Pick<CodeExecutionBridge, "execute"> => ({
    execute: (engineType, language, input, context) =>
      runOnEngine(caller, engineType, language, input, context ?? {}),
  });

  return {
    codeExecutionToolName: name,
    engines: () => deps.engines(),
    isCodeExecution,

    listTools(caller) {
      return visibleTools(caller, allTools(caller.namespace));
    },

    findTool(caller, toolName) {
      const tool =
        deps.catalog.getTool(caller.namespace, toolName) ??
        (toolName === name && deps.engines().length > 0 ? codeToolFor(deps.engines()) : undefined);
      if (!tool || policy.open) return tool;
      return policy.listsTool(caller, tool) ? tool : undefined;
    },

    async callTool(caller, tool, args, options) {
      decide(caller, { method: "tools/call", tool, arguments: args });
      const context = options;
      stamp(context, caller);
      if (!isCodeExecution(tool)) return deps.invoker.execute(args, tool, context);
      context.toolName = name;
      return runCodeExecutionTool(
        args,
        deps.engines(),
        runsOf(caller),
        context,
        options.onOutput ?? (async () => undefined),
      );
    },

    executeCode(caller, engineType, language, input, context) {
      const tool = codeToolFor(deps.engines());
      // The policy sees the run as a call of the code execution tool; the program's text is not an argument to it.
      decide(caller, {
        method: "tools/call",
        tool,
        arguments: {
          engine: engineType,
          language,
          ...(input.arguments ? { arguments: input.arguments } : {}),
        },
      });
      return runOnEngine(caller, engineType, language, input, context);
    },

    listResources(caller) {
      return visibleResources(caller, deps.catalog.listResources(caller.namespace));
    },

    findResource(caller, uri) {
      const resource =
        deps.catalog.getResource(caller.namespace, uri) ??
        deps.catalog
          .listResources(caller.namespace)
          .find((r) => isUriTemplate(r.location) && matchUriTemplate(r.location, uri) !== undefined);
      if (!resource || policy.open) return resource;
      return policy.listsResource(caller, resource) ? resource : undefined;
    },

    async readResource(caller, resource, uri, context) {
      decide(caller, { method: "resources/read", resource, uri });
      stamp(context, caller);
      return deps.resources.read(resource, uri, context);
    },

    listPrompts(caller) {
      return visiblePrompts(caller, deps.catalog.listPrompts(caller.namespace));
    },

    findPrompt(caller, promptName) {
      const prompt = deps.catalog.getPrompt(caller.namespace, promptName);
      if (!prompt || policy.open) return prompt;
      return policy.listsPrompt(caller, prompt) ? prompt : undefined;
    },

    async getPrompt(caller, prompt, args, options) {
      decide(caller, { method: "prompts/get", prompt, arguments: args });
      if (prompt.type === undefined || !deps.forwardedPrompts) return expandPrompt(prompt, args);
      return deps.forwardedPrompts(prompt, args, options);
    },
  };
}
