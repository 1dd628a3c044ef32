import { forwardInputSchema, forwardSchema, labelsSchema } from "@trestle/registry";
import { z } from "zod";

const UPSTREAM_SHORTHAND = [
  "command",
  "args",
  "env",
  "cwd",
  "mode",
  "sandbox",
  "writablePaths",
  "url",
  "address",
  "headers",
  "upstreamAuth",
  "a2a",
] as const;

/**
 * A forward written the short way — `command` (an argv array, or one command line split at spaces) with `args`,
 * `env`, `cwd`, `mode`, `sandbox`, `writablePaths`; or `url` (also `address`) with `headers` and `upstreamAuth`; or
 * `a2a: {url, headers, upstreamAuth}` for an A2A agent — as
 * the `upstream` object it stands for. An input that has `upstream` is left as it is; the forward service only
 * ever sees the canonical shape.
 */
export function expandForwardShorthand(input: unknown): unknown {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
  const value = input as Record<string, unknown>;
  // Wanaku-style clients write an absent field as null: a null short-form field is no short form.
  const given = (key: string) => value[key] !== undefined && value[key] !== null;
  if (given("upstream") || !UPSTREAM_SHORTHAND.some(given)) return input;
  const rest = Object.fromEntries(
    Object.entries(value).filter(([key]) => !(UPSTREAM_SHORTHAND as readonly string[]).includes(key)),
  );
  if (given("a2a")) {
    const agent = value.a2a;
    // Anything but an object is passed on as it is, for the schema to refuse with its own message.
    const upstream =
      agent !== null && typeof agent === "object" && !Array.isArray(agent)
        ? { kind: "a2a", ...(agent as Record<string, unknown>) }
        : agent;
    return { ...rest, upstream };
  }
  const url = given("url") ? value.url : value.address;
  if (url !== undefined && url !== null && !given("command")) {
    return {
      ...rest,
      upstream: {
        kind: "http",
        url,
        ...(given("headers") ? { headers: value.headers } : {}),
        ...(given("upstreamAuth") ? { upstreamAuth: value.upstreamAuth } : {}),
      },
    };
  }
  let command = value.command;
  let args = given("args") ? value.args : undefined;
  if (Array.isArray(command)) {
    args = [...command.slice(1), ...(Array.isArray(args) ? args : [])];
    command = command[0];
  } else if (typeof command === "string" && args === undefined && /\s/.test(command.trim())) {
    const words = command.trim().split(/\s+/);
    command = words[0];
    args = words.slice(1);
  }
  return {
    ...rest,
    upstream: {
      kind: "stdio",
      command,
      ...(args !== undefined ? { args } : {}),
      ...(given("env") ? { env: value.env } : {}),
      ...(given("cwd") ? { cwd: value.cwd } : {}),
      ...(given("mode") ? { mode: value.mode } : {}),
      ...(given("sandbox") ? { sandbox: value.sandbox } : {}),
      ...(given("writablePaths") ? { writablePaths: value.writablePaths } : {}),
      // Passed on for the schema to refuse with its reason (a stdio server takes no per-call credential).
      ...(given("upstreamAuth") ? { upstreamAuth: value.upstreamAuth } : {}),
    },
  };
}

/** A forward as the management API takes it: the canonical shape, or a short form expanded into it. */
export const forwardRequestSchema = z.preprocess(expandForwardShorthand, forwardInputSchema);

/** The short forms, for the document: `upstream` replaced by the fields of a command or a URL. */
export const forwardShorthandSchema = forwardSchema
  .omit({ upstream: true })
  .extend({
    command: z
      .union([z.string(), z.array(z.string()).min(1)])
      .optional()
      .describe("The program: a command line (split at spaces when `args` is absent) or an argv array"),
    args: z.array(z.string()).optional(),
    env: labelsSchema.optional().describe("Environment variables of the program"),
    cwd: z.string().optional(),
    mode: z.enum(["pooled", "per-call"]).optional(),
    sandbox: z
      .boolean()
      .optional()
      .describe("false: run the program unconfined, outside the router's sandbox (logged at each start)"),
    writablePaths: z
      .array(z.string())
      .optional()
      .describe("Host paths the sandboxed program may write (absolute)"),
    url: z.string().optional().describe("An MCP server over Streamable HTTP (`http://` or `https://`)"),
    address: z.string().optional().describe("Another name for `url`"),
    headers: z.record(z.string(), z.string()).optional().describe("Headers sent to the URL"),
    upstreamAuth: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "The router's credential for the URL: { static: { header?, value } } or { tokenExchange: { tokenEndpoint, clientId, clientSecret, audience?, resource?, scope? } } (RFC 8693, each caller's OAuth token exchanged)",
      ),
    a2a: z
      .object({
        url: z
          .string()
          .describe("The A2A agent's base URL; its card is read from /.well-known/agent-card.json"),
        headers: z
          .record(z.string(), z.string())
          .optional()
          .describe("Headers sent with every request, for the card's security requirements"),
        upstreamAuth: z
          .record(z.string(), z.unknown())
          .optional()
          .describe("The router's credential for the agent, as for a URL"),
      })
      .optional()
      .describe("An A2A agent: its skills are imported as tools"),
  })
  .meta({ id: "ForwardShortForm" });
