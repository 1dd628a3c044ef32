import type { IncomingMessage, ServerResponse } from "node:http";
import { OpenAPIHono } from "@hono/zod-openapi";
import { Code, TrestleError } from "@trestle/core";
import { parseWithSchema } from "@trestle/registry";
import type { z } from "zod";
import { isJsonContentType, readBody, writeJson } from "./body.js";
import { documentConfig, registerCommonComponents, registerOperation } from "./openapi.js";
import type { Principal } from "./security.js";

/** The envelope of every management answer, as Wanaku's API has it. */
export interface Envelope<T> {
  error: { message: string } | null;
  data: T | null;
  /** Present on a success that will not work yet (a tool whose service is not registered): one sentence each. */
  warnings?: string[];
}

/** A request body over the limit: answered 413 Payload Too Large. */
class BodyTooLargeError extends TrestleError {
  constructor(limit: number) {
    super(`The body is larger than ${limit} bytes`, Code.ResourceExhausted);
  }
}

/** HTTP status for a Trestle code, as Wanaku maps its exceptions (and the rest sensibly). */
export function httpStatusFor(code: Code): number {
  switch (code) {
    case Code.AlreadyExists:
      return 409;
    case Code.InvalidArgument:
    case Code.OutOfRange:
      return 400;
    case Code.NotFound:
      return 404;
    case Code.Unavailable:
      return 503;
    case Code.DeadlineExceeded:
      return 502;
    case Code.Unauthenticated:
      return 401;
    case Code.PermissionDenied:
      return 403;
    case Code.ResourceExhausted:
      return 429;
    case Code.FailedPrecondition:
    case Code.Aborted:
      return 409;
    case Code.Unimplemented:
      return 501;
    default:
      return 500;
  }
}

/**
 * Seconds a client should wait before it tries again after an error of `code` (`Retry-After`): a store or
 * service that is unavailable is given a few seconds to come back, a limit a second to free up.
 */
export function retryAfterFor(code: Code): number | undefined {
  if (code === Code.Unavailable) return 5;
  if (code === Code.ResourceExhausted) return 1;
  return undefined;
}

/** Writes `{error: null, data}`, with `warnings` when there are any (what was done, but will not work yet). */
export function sendData(
  res: ServerResponse,
  status: number,
  data: unknown,
  warnings: readonly string[] = [],
): void {
  const envelope: Envelope<unknown> = { error: null, data: data ?? null };
  if (warnings.length > 0) envelope.warnings = [...warnings];
  writeJson(res, status, JSON.stringify(envelope));
}

/** Writes `{error: {message}, data: null}`. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  writeJson(
    res,
    status,
    JSON.stringify({ error: { message }, data: null } satisfies Envelope<unknown>),
    headers,
  );
}

/** The HTTP methods the management API uses. */
export type ApiMethod = "GET" | "POST" | "PUT" | "DELETE";

/** A JSON request body: validated with `schema`; `what` names it in messages ("Invalid tool: name: …"). */
export interface JsonBodySpec {
  kind: "json";
  schema: z.ZodType;
  /** What the document shows, when the schema's own rendering would not say all it accepts (a short form). */
  documented?: z.ZodType;
  what: string;
  description: string;
}

/** A plain-text request body (a heartbeat's service id), parsed by `schema` from the text. */
export interface TextBodySpec {
  kind: "text";
  schema: z.ZodType<unknown, string>;
  /** What the operation also accepts as `application/json`, for the document. */
  json?: z.ZodType;
  description: string;
}

/** An answer in the envelope: `{error: null, data}` with `data` as `data` describes it. */
export interface JsonResponseSpec {
  kind: "json";
  status: 200 | 201 | 202;
  description: string;
  data: z.ZodType;
  /**
   * `data` is the whole body, without the envelope: for a document other tools load by its URL (an OpenAPI
   * document). Its errors keep the error envelope.
   */
  bare?: true;
}

/** An answer streamed as server-sent events; `events` describes one event's `data` (JSON). */
export interface EventStreamResponseSpec {
  kind: "sse";
  description: string;
  events: z.ZodType;
}

/** Error statuses an operation answers with the error envelope. */
export type ErrorStatus = 400 | 403 | 404 | 409 | 413 | 429 | 501 | 502 | 503;

/**
 * One operation of the management API: its path and method, and the schemas of everything it reads and answers.
 * The OpenAPI document is generated from these; a client can take its types from them (`z.input`, `z.output`).
 */
export interface ApiOperation {
  /** Unique, camelCase: the document's `operationId`. */
  id: string;
  method: ApiMethod;
  /** The path as OpenAPI writes it: `/api/v1/tools/{name}`. */
  path: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** The token scope it needs (`register` is enough for capability registration). */
  scope: "admin" | "register";
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: JsonBodySpec | TextBodySpec;
  response: JsonResponseSpec | EventStreamResponseSpec;
  /** The error statuses it may answer besides 401, 403, 429 and 500, which every operation may. */
  errors: readonly ErrorStatus[];
}

/** Declares an operation with its literal types kept, so its handler's input and output are typed from it. */
export function defineOperation<const O extends ApiOperation>(operation: O): O {
  return operation;
}

type OutputOf<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a route handler receives: its input parsed and validated by the operation's schemas. */
export interface ApiRequest<O extends ApiOperation = ApiOperation> {
  req: IncomingMessage;
  res: ServerResponse;
  params: O["params"] extends z.ZodObject ? z.output<O["params"]> : Record<string, never>;
  query: O["query"] extends z.ZodObject ? z.output<O["query"]> : Record<string, never>;
  body: O["body"] extends JsonBodySpec | TextBodySpec ? OutputOf<O["body"]["schema"]> : undefined;
  /**
   * Who makes the request, after the token check: the token's principal, or undefined on a router with no
   * tokens configured when the request presents none (anonymous).
   */
  principal: Principal | undefined;
}

/**
 * A handler's answer: `data` for the envelope (and `warnings`: sentences about what was done but cannot work
 * yet), or nothing for an event stream (the handler wrote it).
 */
export type ApiAnswer<O extends ApiOperation> = O["response"] extends JsonResponseSpec
  ? {
      data: z.input<O["response"]["data"]> | Readonly<z.input<O["response"]["data"]>>;
      warnings?: readonly string[];
    }
  : undefined;

/** The handler of an operation. */
export type ApiHandler<O extends ApiOperation> = (
  request: ApiRequest<O>,
) => Promise<ApiAnswer<O>> | ApiAnswer<O>;

/** Options of {@link createJsonApi}. */
export interface JsonApiOptions {
  /** The largest request body read; a larger one is answered 413. */
  maxBodyBytes: number;
  /** The document's `info`. */
  info?: { title: string; version: string };
}

/** What Hono hands a handler as `c.env`: the node request and response, which handlers read and write. */
interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/**
 * What a Hono handler returns once it has written the node response itself. The front door ignores what Hono
 * answers, so one shared value serves every request.
 */
const ANSWERED = new Response(null, { status: 204 });

/** What the front door passed along with a request. */
interface RequestContext {
  url: URL;
  principal: Principal | undefined;
}

const MALFORMED_JSON = "The request body is not valid JSON";

/** Reads the body a JSON operation expects. @throws TrestleError InvalidArgument, BodyTooLargeError. */
async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  // A JSON API reads JSON only: a form or text/plain body could come from a page without a CORS preflight.
  if (!isJsonContentType(req)) {
    throw new TrestleError("The body must be sent with Content-Type: application/json", Code.InvalidArgument);
  }
  const text = await readText(req, maxBytes);
  if (text.trim().length === 0) {
    throw new TrestleError("The request body is empty; a JSON document is expected", Code.InvalidArgument);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // The parser's message quotes the text around the fault: the body (perhaps a secret) must not come back.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new TrestleError(
      position === undefined ? MALFORMED_JSON : `${MALFORMED_JSON} (at character ${position})`,
      Code.InvalidArgument,
    );
  }
}

async function readText(req: IncomingMessage, maxBytes: number): Promise<string> {
  const body = await readBody(req, maxBytes);
  if (body.tooLarge) throw new BodyTooLargeError(maxBytes);
  return body.text;
}

/** The query string as an object of first values (what `URLSearchParams.get` answers). */
function queryObject(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of query) if (!(key in out)) out[key] = value;
  return out;
}

/**
 * What Hono routes on: the method and the URL. The front door has already parsed the URL and checked the request;
 * handlers read the node request itself (`c.env.incoming`) and write the node response, so a whole fetch
 * `Request` (headers, body stream, signal) would be built per request for nothing — measured, that adapter work
 * was the management API's overhead (docs/performance.md).
 */
function routingRequest(method: string, url: URL): Request {
  return { method, url: url.href } as Request;
}

/** `/api/v1/tools/{name}` as Hono writes it: `/api/v1/tools/:name`. */
function honoPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

/** A pattern that matches the operation's path, for telling a wrong method (405) from no such path (404). */
function pathPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (/^\{\w+\}$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}

function writeFailure(res: ServerResponse, error: unknown): void {
  if (error instanceof BodyTooLargeError) {
    if (!res.headersSent) sendError(res, 413, error.rawMessage, { connection: "close" });
    return;
  }
  const e = error instanceof TrestleError ? error : TrestleError.from(error, Code.Internal);
  const retryAfter = retryAfterFor(e.code);
  if (!res.headersSent)
    sendError(
      res,
      httpStatusFor(e.code),
      e.rawMessage,
      retryAfter === undefined ? {} : { "retry-after": String(retryAfter) },
    );
  else res.end();
}

/**
 * The management API's router, on Hono: each route is an {@link ApiOperation} (its request and response
 * schemas) and a handler. Path, query and body are validated by the operation's schemas before the handler runs
 * (a refusal is a 400 naming every bad field); errors thrown by handlers become the envelope with the status of
 * their code; bodies are size-limited. The OpenAPI document is generated from the operations.
 *
 * The node:http front door calls {@link handle} after its own checks (Host, Origin, CORS, token, rate), and Hono's
 * `fetch` routes the request with the node request and response as its bindings; handlers write the node response
 * directly. Neither a fetch `Request` nor a `Response` is built per request: `@hono/node-server`'s adapter, which
 * builds them, cost about 6 µs of CPU per request more than the hand-written router did (docs/performance.md).
 */
export function createJsonApi(options: JsonApiOptions) {
  const app = new OpenAPIHono<{ Bindings: NodeBindings }>({ strict: false });
  const contexts = new WeakMap<IncomingMessage, RequestContext>();
  const operations: { operation: ApiOperation; pattern: RegExp }[] = [];
  let document: object | undefined;
  registerCommonComponents(app.openAPIRegistry);

  app.notFound((c) => {
    const req = c.env.incoming;
    const res = c.env.outgoing;
    const path = contexts.get(req)?.url.pathname ?? c.req.path;
    if (operations.some((o) => o.pattern.test(path)))
      sendError(res, 405, `Method ${req.method ?? ""} is not allowed on ${path}`);
    else sendError(res, 404, `No management endpoint at ${req.method ?? ""} ${path}`);
    return ANSWERED;
  });

  // A failure outside a handler (there should be none) still gets its envelope.
  app.onError((error, c) => {
    writeFailure(c.env.outgoing, error);
    return ANSWERED;
  });

  async function run<O extends ApiOperation>(
    operation: O,
    handler: ApiHandler<O>,
    req: IncomingMessage,
    res: ServerResponse,
    params: Record<string, string>,
  ): Promise<void> {
    // Hono answers HEAD with the GET route; the management API has no HEAD.
    if (req.method !== operation.method) {
      sendError(res, 405, `Method ${req.method ?? ""} is not allowed on ${operation.path}`);
      return;
    }
    const context = contexts.get(req);
    try {
      const parsedParams = operation.params
        ? parseWithSchema(operation.params, params, "path", options.maxBodyBytes)
        : {};
      const parsedQuery = operation.query
        ? parseWithSchema(
            operation.query,
            queryObject(context?.url.searchParams ?? new URLSearchParams()),
            "query",
            options.maxBodyBytes,
          )
        : {};
      let body: unknown;
      if (operation.body?.kind === "json") {
        body = parseWithSchema(
          operation.body.schema,
          await readJsonBody(req, options.maxBodyBytes),
          operation.body.what,
          options.maxBodyBytes,
        );
      } else if (operation.body?.kind === "text") {
        const parsed = operation.body.schema.safeParse(await readText(req, options.maxBodyBytes));
        if (!parsed.success) {
          throw new TrestleError(
            parsed.error.issues[0]?.message ?? "The body is not valid",
            Code.InvalidArgument,
          );
        }
        body = parsed.data;
      }
      const answer = await handler({
        req,
        res,
        params: parsedParams,
        query: parsedQuery,
        body,
        principal: context?.principal,
      } as ApiRequest<O>);
      if (operation.response.kind === "json" && !res.headersSent) {
        const { data, warnings } = (answer ?? {}) as { data?: unknown; warnings?: readonly string[] };
        if (operation.response.bare) writeJson(res, operation.response.status, JSON.stringify(data ?? null));
        else sendData(res, operation.response.status, data, warnings);
      }
    } catch (error) {
      writeFailure(res, error);
    }
  }

  return {
    /**
     * Serves `operation` with `handler`.
     * @throws Error when the operation lacks a response schema or a path parameter's schema, or repeats a route.
     */
    route<O extends ApiOperation>(operation: O, handler: ApiHandler<O>): void {
      const missing = undocumentedParts(operation);
      if (missing.length > 0) {
        throw new Error(
          `The operation ${operation.method} ${operation.path} has no schema for ${missing.join(", ")}`,
        );
      }
      if (
        operations.some((o) => o.operation.method === operation.method && o.operation.path === operation.path)
      ) {
        throw new Error(`The operation ${operation.method} ${operation.path} is routed twice`);
      }
      operations.push({ operation, pattern: pathPattern(operation.path) });
      registerOperation(app.openAPIRegistry, operation);
      document = undefined;
      app.on(operation.method, honoPath(operation.path), async (c) => {
        await run(
          operation,
          handler,
          c.env.incoming,
          c.env.outgoing,
          c.req.param() as Record<string, string>,
        );
        return ANSWERED;
      });
    },
    /**
     * Answers a request made by `principal` (after the front door's checks): with its operation, or 404 (no such
     * path) or 405 (no such method on the path) in the envelope.
     */
    async handle(req: IncomingMessage, res: ServerResponse, url: URL, principal?: Principal): Promise<void> {
      contexts.set(req, { url, principal });
      await app.fetch(routingRequest(req.method ?? "GET", url), { incoming: req, outgoing: res });
    },
    /** The operations served, in the order they were added. */
    operations(): readonly ApiOperation[] {
      return operations.map((o) => o.operation);
    },
    /** The routes Hono serves (method and path), to check the document covers every one. */
    servedRoutes(): readonly { method: string; path: string }[] {
      return app.routes
        .filter((r) => r.method !== "ALL")
        .map((r) => ({ method: r.method, path: r.path.replace(/:(\w+)/g, "{$1}") }));
    },
    /** The OpenAPI 3.1 document of every operation, generated from their schemas (built once, then cached). */
    openApiDocument(): object {
      document ??= app.getOpenAPI31Document(
        documentConfig(options.info ?? { title: "Trestle management API", version: "0" }),
      );
      return document;
    },
    /** The Hono application, for tests (a route added here bypasses the schemas and the document). */
    app,
  };
}

/** What an operation lacks a schema for: path parameters it names but does not describe, its response. */
export function undocumentedParts(operation: ApiOperation): string[] {
  const missing: string[] = [];
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
  const described = operation.params ? Object.keys(operation.params.shape) : [];
  for (const name of names) if (!described.includes(name)) missing.push(`path parameter '${name}'`);
  // The types require a response schema; an operation built from untyped input (or cast) may still lack one.
  const response = operation.response as { kind?: string; data?: unknown; events?: unknown } | undefined;
  if (
    !response ||
    (response.kind === "json" && !response.data) ||
    (response.kind === "sse" && !response.events) ||
    (response.kind !== "json" && response.kind !== "sse")
  )
    missing.push("its response");
  if (operation.body && !operation.body.schema) missing.push("its body");
  return missing;
}

/**
 * The routes `api` serves that no operation describes (added to its Hono application directly, bypassing the
 * schemas): each is missing from the OpenAPI document. Empty when every route has its schemas.
 */
export function undocumentedRoutes(api: JsonApi): string[] {
  const documented = new Set(api.operations().map((o) => `${o.method} ${o.path}`));
  return api
    .servedRoutes()
    .map((r) => `${r.method} ${r.path}`)
    .filter((route) => !documented.has(route));
}

/** The JSON API router's type. */
export type JsonApi = ReturnType<typeof createJsonApi>;
