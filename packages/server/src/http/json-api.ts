import type { IncomingMessage, ServerResponse } from "node:http";
import { Code, TrestleError } from "@trestle/core";
import { isJsonContentType, readBody } from "./body.js";
import type { Principal } from "./security.js";

/** The envelope of every management answer, as Wanaku's API has it. */
export interface Envelope<T> {
  error: { message: string } | null;
  data: T | null;
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

/** Writes `{error: null, data}`. */
export function sendData(res: ServerResponse, status: number, data: unknown): void {
  const text = JSON.stringify({ error: null, data: data ?? null } satisfies Envelope<unknown>);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Writes `{error: {message}, data: null}`. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify({ error: { message }, data: null } satisfies Envelope<unknown>);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** What a route handler receives. */
export interface ApiRequest {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  /**
   * Who makes the request, after the token check: the token's principal, or undefined on a router with no
   * tokens configured when the request presents none (anonymous).
   */
  principal: Principal | undefined;
  /** Reads and parses the JSON body. @throws TrestleError InvalidArgument for a missing, oversized or malformed body. */
  json(): Promise<unknown>;
  /** Reads the body as text. */
  text(): Promise<string>;
}

/** A route's answer: data for the envelope, or `undefined` when the handler wrote the response itself. */
export type ApiResult = { status?: number; data: unknown } | undefined;

/** One route handler. */
export type ApiHandler = (request: ApiRequest) => Promise<ApiResult> | ApiResult;

interface Route {
  method: string;
  segments: string[];
  handler: ApiHandler;
}

/**
 * A small path router for the management API: `:name` segments capture, everything else matches literally.
 * Errors thrown by handlers become the envelope with the status of their code; bodies are size-limited.
 */
export function createJsonApi(options: { maxBodyBytes: number }) {
  const routes: Route[] = [];

  function makeRequest(
    req: IncomingMessage,
    res: ServerResponse,
    params: Record<string, string>,
    url: URL,
    principal: Principal | undefined,
  ): ApiRequest {
    let bodyText: Promise<string> | undefined;
    const text = () => {
      bodyText ??= readBody(req, options.maxBodyBytes).then((b) => {
        if (b.tooLarge) throw new BodyTooLargeError(options.maxBodyBytes);
        return b.text;
      });
      return bodyText;
    };
    return {
      req,
      res,
      params,
      query: url.searchParams,
      principal,
      text,
      async json() {
        // A JSON API reads JSON only: a form or text/plain body could come from a page without a CORS preflight.
        if (!isJsonContentType(req)) {
          throw new TrestleError(
            "The body must be sent with Content-Type: application/json",
            Code.InvalidArgument,
          );
        }
        const t = await text();
        if (t.trim().length === 0)
          throw new TrestleError(
            "The request body is empty; a JSON document is expected",
            Code.InvalidArgument,
          );
        try {
          return JSON.parse(t);
        } catch (error) {
          throw new TrestleError(
            `The request body is not valid JSON: ${(error as Error).message}`,
            Code.InvalidArgument,
          );
        }
      },
    };
  }

  return {
    /** Adds a route. */
    route(method: string, path: string, handler: ApiHandler): void {
      routes.push({ method, segments: path.split("/").filter(Boolean), handler });
    },
    /** Handles the request, made by `principal`, when a route matches; false otherwise. */
    async handle(
      req: IncomingMessage,
      res: ServerResponse,
      url: URL,
      principal?: Principal,
    ): Promise<boolean> {
      const segments = url.pathname.split("/").filter(Boolean);
      let methodMismatch = false;
      for (const route of routes) {
        if (route.segments.length !== segments.length) continue;
        const params: Record<string, string> = {};
        let ok = true;
        for (let i = 0; i < segments.length; i++) {
          const pattern = route.segments[i] as string;
          const actual = segments[i] as string;
          if (pattern.startsWith(":")) {
            try {
              params[pattern.slice(1)] = decodeURIComponent(actual);
            } catch {
              ok = false;
              break;
            }
          } else if (pattern !== actual) {
            ok = false;
            break;
          }
        }
        if (!ok) continue;
        if (route.method !== req.method) {
          methodMismatch = true;
          continue;
        }
        try {
          const result = await route.handler(makeRequest(req, res, params, url, principal));
          if (result !== undefined && !res.headersSent) sendData(res, result.status ?? 200, result.data);
        } catch (error) {
          if (error instanceof BodyTooLargeError) {
            if (!res.headersSent) sendError(res, 413, error.rawMessage, { connection: "close" });
            return true;
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
        return true;
      }
      if (methodMismatch) {
        sendError(res, 405, `Method ${req.method ?? ""} is not allowed on ${url.pathname}`);
        return true;
      }
      return false;
    },
    /** The routes, for the OpenAPI document. */
    routes(): readonly { method: string; path: string }[] {
      return routes.map((r) => ({
        method: r.method,
        path: `/${r.segments.map((s) => (s.startsWith(":") ? `{${s.slice(1)}}` : s)).join("/")}`,
      }));
    },
  };
}

/** The JSON API router's type. */
export type JsonApi = ReturnType<typeof createJsonApi>;
