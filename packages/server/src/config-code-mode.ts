import { z } from "zod";

/** Defaults of the `codeMode` section. */
export const CODE_MODE_DEFAULTS = {
  tools: true,
  maxCallsPerRun: 100,
  maxConcurrentCallsPerRun: 4,
  maxRunMs: 310_000,
} as const;

/**
 * Configuration of code mode (a program run by the code execution tool calling its namespace's tools) and of tool
 * search, spread into the router's configuration schema.
 */
export const codeModeConfigFields = {
  codeMode: z
    .strictObject({
      tools: z
        .boolean()
        .default(CODE_MODE_DEFAULTS.tools)
        .describe(
          "Give programs run by the code execution tool the tools their caller may call in the namespace (engines that support it; others run programs without tools)",
        ),
      maxCallsPerRun: z
        .number()
        .int()
        .positive()
        .default(CODE_MODE_DEFAULTS.maxCallsPerRun)
        .describe("Tool calls one program may make; further calls fail in the program with ToolError"),
      maxConcurrentCallsPerRun: z
        .number()
        .int()
        .positive()
        .default(CODE_MODE_DEFAULTS.maxConcurrentCallsPerRun)
        .describe("Tool calls one program may have going at once; more fail in the program with ToolError"),
      maxRunMs: z
        .number()
        .int()
        .min(1_000)
        .default(CODE_MODE_DEFAULTS.maxRunMs)
        .describe(
          "Longest a run's tool capability lives, in milliseconds, even if its engine never reports the end",
        ),
      callbackUrl: z
        .url()
        .optional()
        .describe(
          "Where engines reach this replica's code-mode endpoint (http://host:port); default the router's own listener. Each replica needs its own",
        ),
    })
    .default({
      tools: CODE_MODE_DEFAULTS.tools,
      maxCallsPerRun: CODE_MODE_DEFAULTS.maxCallsPerRun,
      maxConcurrentCallsPerRun: CODE_MODE_DEFAULTS.maxConcurrentCallsPerRun,
      maxRunMs: CODE_MODE_DEFAULTS.maxRunMs,
    })
    .describe(
      "Code mode: tools inside programs run by the code execution tool ({tools, maxCallsPerRun, maxConcurrentCallsPerRun, maxRunMs, callbackUrl})",
    ),
  toolSearch: z
    .strictObject({
      enabled: z
        .boolean()
        .default(false)
        .describe(
          "Tool search in every namespace: tools/list offers search_tools and call_tool instead of every tool",
        ),
      threshold: z
        .number()
        .int()
        .positive()
        .optional()
        .describe(
          "Tool search in each namespace with more tools than this (counted as the caller may see them)",
        ),
      namespaces: z
        .array(z.string())
        .default([])
        .describe('Namespaces with tool search whatever their size ("" is the default namespace)'),
      maxResults: z
        .number()
        .int()
        .positive()
        .max(50)
        .default(10)
        .describe("Tools a search returns by default"),
    })
    .default({ enabled: false, namespaces: [], maxResults: 10 })
    .describe(
      "Tool search ({enabled, threshold, namespaces, maxResults}): tools/list offers search_tools and call_tool (and the code execution tool) instead of the whole list; every tool stays callable by name",
    ),
};

/** How each of {@link codeModeConfigFields} is set from the environment (JSON objects). */
export const codeModeConfigSources: Record<keyof typeof codeModeConfigFields, { env: string }> = {
  codeMode: { env: "TRESTLE_CODE_MODE" },
  toolSearch: { env: "TRESTLE_TOOL_SEARCH" },
};
