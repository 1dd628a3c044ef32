import type { IncomingMessage, ServerResponse } from "node:http";
import { ANONYMOUS_PRINCIPAL, type CallerPrincipal } from "../calls/caller.js";
import { type AdminUi, isAdminUiPath } from "./admin-ui.js";
import { writeJson } from "./body.js";
import { isCodeModePath } from "./code-mode-endpoint.js";
import type { JsonApi } from "./json-api.js";
import { sendData, sendError } from "./json-api.js";
import { type MetricsEndpoint, serveMetrics } from "./metrics-route.js";
import type { PrincipalBudget } from "./principal-budget.js";
import type { RateLimiter } from "./rate-limit.js";
import type { OriginGuard, TokenAuthenticator } from "./security.js";

/** A namespace name as it may appear in a path: a DNS label. Anything else is not a namespace. */
/** A request target the URL parser would leave as it is: non-empty segments of plain characters, no query. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-]+)*\/?$/;
const URL_BASE = "http://router.invalid";
const NAMESPACE_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The non-empty segments of a path, in one pass: this runs on every request, where `split("/")` and then
 * `filter(Boolean)` made two arrays (the front door's hottest line in a profile).
 */
function pathSegments(path: string): string[] {
  const segments: string[] = [];
  let start = 0;
  while (start < path.length) {
    let end = path.indexOf("/", start);
    if (end < 0) end = path.length;
    if (end > start) segments.push(path.slice(start, end));
    start = end + 1;
  }
  return segments;
}

/** What the HTTP front door routes to. */
export interface HttpAppDependencies {
  guard: OriginGuard;
  auth: TokenAuthenticator;
  /** Counts requests per token (and per address without one); none are limited without it. */
  limiter?: RateLimiter;
  /**
   * MCP and A2A requests one principal may have open at once (calls awaiting answers, GET and listen streams, A2A
   * streams); beyond it a request is refused with 429. Unbounded without it.
   */
  openRequests?: PrincipalBudget;
  api: JsonApi;
  /**
   * Serves an MCP request for a namespace ("" = default), made by `principal` (the token's name, or `anonymous`):
   * its sessions, tasks and request states are bound to it.
   */
  mcp(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    principal: CallerPrincipal,
  ): Promise<void>;
  /**
   * Serves the A2A agent of a namespace ("" = default): its card (`/a2a/.well-known/agent-card.json`, also a GET
   * of `/a2a`) or a JSON-RPC request (a POST to `/a2a`), made by `principal`, who owns the tasks it starts.
   * Absent: no A2A front.
   */
  a2a?(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string,
    kind: "card" | "rpc",
    principal: CallerPrincipal,
  ): Promise<void>;
  /**
   * The RFC 9728 protected-resource metadata a well-known path asks for (`/.well-known/oauth-protected-resource`
   * and its path-inserted forms), or `undefined` (no such document: the router is no OAuth resource server, or the
   * path names none). Served to anyone, like the token-free health checks.
   */
  protectedResourceMetadata?(path: string): object | undefined;
  /** The admin UI's static files at `/ui` (public: every call the page makes needs a token). None without it. */
  adminUi?: AdminUi;
  /** Prometheus metrics at `/metrics` (see {@link serveMetrics}); nothing there without it. */
  metrics?: MetricsEndpoint;
  /**
   * The code-mode endpoint engines relay programs' tool calls to (`/internal/code-mode/v1/…`), authenticated by each
   * run's own capability rather than a router token. None without it.
   */
  codeMode?(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
  /** True when the namespace exists. */
  hasNamespace(name: string): boolean;
  /** True once the router serves; false while it starts or drains. */
  ready(): boolean;
  /** Logs a request that failed inside the router. */
  onError(error: unknown, req: IncomingMessage): void;
}

/** Management paths a capability service uses to register itself; a `register` token is enough for them. */
function isDiscoveryPath(path: string): boolean {
  return path.startsWith("/api/v1/management/discovery");
}

/**
 * The A2A route a path names: `/a2a` and `/{namespace}/a2a` (the JSON-RPC endpoint; a GET there answers the
 * card), the card under each at `/.well-known/agent-card.json`, and the default namespace's card at the root's.
 */
function a2aRoute(
  segments: readonly string[],
  method: string | undefined,
): { namespace: string; kind: "card" | "rpc" } | undefined {
  // The default namespace's card at the root too, where a client given only the router's URL looks for it.
  if (segments.length === 2 && segments[0] === ".well-known" && segments[1] === "agent-card.json") {
    return { namespace: "", kind: "card" };
  }
  // `/{namespace}/a2a` first: a namespace may itself be named "a2a".
  const at = segments[1] === "a2a" ? 1 : segments[0] === "a2a" ? 0 : -1;
  if (at < 0) return undefined;
  const namespace = at === 1 ? (segments[0] as string) : "";
  const rest = segments.slice(at + 1);
  if (rest.length === 0) return { namespace, kind: method === "GET" || method === "HEAD" ? "card" : "rpc" };
  if (rest.length === 2 && rest[0] === ".well-known" && rest[1] === "agent-card.json")
    return { namespace, kind: "card" };
  return undefined;
}

/** Where RFC 9728 protected-resource metadata is served (and its path-inserted forms under it). */
const METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The `WWW-Authenticate` of an MCP or A2A refusal: OAuth's challenge, else the router's plain bearer one. */
function challengeHeader(outcome: { status: number; challenge?: string }): Record<string, string> {
  if (outcome.status === 503) return { "retry-after": "5" };
  return {
    "www-authenticate":
      outcome.challenge ??
      `Bearer realm="trestle"${outcome.status === 401 ? ', error="invalid_token"' : ', error="insufficient_scope"'}`,
  };
}

function mcpError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  writeJson(
    res,
    status,
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }),
    headers,
  );
}

/**
 * The router's HTTP front door: health endpoints (public), then Host/Origin checks, CORS, tokens, and the
 * management API under `/api` or MCP at `/mcp` and `/{namespace}/mcp`.
 */
export function createHttpApp(deps: HttpAppDependencies) {
  /**
   * Takes one of `principal`'s open-request slots for the life of `res`, or refuses the request (429) when it
   * holds them all; true when the request may go on.
   */
  const holdOpenSlot = (
    res: ServerResponse,
    principal: CallerPrincipal,
    refuse: (status: number, message: string, headers: Record<string, string>) => void,
  ): boolean => {
    if (!deps.openRequests) return true;
    const release = deps.openRequests.take(principal.id);
    if (!release) {
      refuse(
        429,
        `Too many open requests: '${principal.name}' has ${deps.openRequests.limit} requests and streams open at once, the most a principal may; close some or retry later`,
        { "retry-after": "1" },
      );
      return false;
    }
    res.once("close", release);
    return true;
  };
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const target = req.url ?? "/";
      const query = target.indexOf("?");
      const rawPath = query < 0 ? target : target.slice(0, query);
      // Dot segments and encoded dots or slashes have no business in any path the router serves; URL parsing
      // would silently resolve them, so refuse them as they arrive.
      if (/(^|\/)\.{1,2}(\/|$)|%2e|%2f|%5c|\\/i.test(rawPath)) {
        sendError(res, 404, "Nothing at this path");
        return;
      }
      let url: URL | undefined;
      // A plain path with no query (every MCP POST) is its own pathname: the URL parser is for the rest.
      if (!(query < 0 && rawPath.startsWith("/") && PLAIN_PATH.test(rawPath))) {
        try {
          url = new URL(req.url ?? "/", URL_BASE);
        } catch {
          sendError(res, 400, "The request target is not a valid URL");
          return;
        }
      }
      const path = url?.pathname ?? rawPath;
      if (path === "/healthz") {
        sendData(res, 200, { status: "ok" });
        return;
      }
      if (path === "/readyz") {
        if (deps.ready()) sendData(res, 200, { status: "ready" });
        else sendError(res, 503, "The router is not ready");
        return;
      }

      const refusal = deps.guard.check(req);
      if (refusal) {
        if (path.endsWith("/mcp")) mcpError(res, 403, `Forbidden: ${refusal}`);
        else sendError(res, 403, refusal);
        return;
      }
      const origin = req.headers.origin;
      if (deps.guard.allowsCors(origin)) {
        res.setHeader("access-control-allow-origin", origin as string);
        res.setHeader("vary", "Origin");
        res.setHeader("access-control-expose-headers", "mcp-session-id, www-authenticate");
      }
      if (req.method === "OPTIONS") {
        if (!deps.guard.allowsCors(origin)) {
          sendError(res, 403, "CORS is not allowed for this origin");
          return;
        }
        res.writeHead(204, {
          "access-control-allow-methods": "GET, POST, PUT, DELETE, OPTIONS",
          "access-control-allow-headers":
            "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id",
          "access-control-max-age": "600",
        });
        res.end();
        return;
      }

      if (path.startsWith(METADATA_PATH) && deps.protectedResourceMetadata) {
        const document =
          req.method === "GET" || req.method === "HEAD" ? deps.protectedResourceMetadata(path) : undefined;
        if (document) writeJson(res, 200, JSON.stringify(document), { "cache-control": "max-age=300" });
        else sendError(res, 404, `Nothing at ${path}`);
        return;
      }

      if (deps.adminUi && isAdminUiPath(path)) return deps.adminUi.handle(req, res, path);
      if (path === "/metrics" && deps.metrics) {
        await serveMetrics(req, res, deps.metrics, { auth: deps.auth, limiter: deps.limiter });
        return;
      }
      if (deps.codeMode && isCodeModePath(path)) return deps.codeMode(req, res, path);
      if (path === "/api" || path.startsWith("/api/")) {
        const scope = isDiscoveryPath(path) ? "register" : "admin";
        const outcome = await deps.auth.authenticate(req, scope, "/api");
        if (!outcome.ok) {
          const challenge =
            outcome.challenge ?? (outcome.status === 401 ? 'Bearer realm="trestle"' : undefined);
          sendError(res, outcome.status, outcome.message, challenge ? { "www-authenticate": challenge } : {});
          return;
        }
        const rate = deps.limiter?.admit(req, outcome.principal);
        if (rate && !rate.ok) {
          sendError(res, 429, rate.message, { "retry-after": String(rate.retryAfterSeconds) });
          return;
        }
        // The management API answers every /api request itself, 404 and 405 included.
        await deps.api.handle(req, res, url ?? new URL(rawPath, URL_BASE), outcome.principal);
        return;
      }

      const segments = pathSegments(path);
      const a2a = deps.a2a ? a2aRoute(segments, req.method) : undefined;
      if (a2a && deps.a2a) {
        // The same token, namespace and rate checks as MCP: the A2A agent is another face of the same tools.
        const outcome = await deps.auth.authenticate(
          req,
          "mcp",
          a2a.namespace ? `/${a2a.namespace}/a2a` : "/a2a",
          a2a.namespace,
        );
        if (!outcome.ok) {
          mcpError(res, outcome.status, outcome.message, challengeHeader(outcome));
          return;
        }
        const known =
          a2a.namespace === "" || (NAMESPACE_LABEL.test(a2a.namespace) && deps.hasNamespace(a2a.namespace));
        if (!known) {
          mcpError(res, 404, `No A2A agent at ${path}: unknown namespace`);
          return;
        }
        const rate = deps.limiter?.admit(req, outcome.principal);
        if (rate && !rate.ok) {
          mcpError(res, 429, rate.message, { "retry-after": String(rate.retryAfterSeconds) });
          return;
        }
        if (!deps.ready()) {
          mcpError(res, 503, "The router is shutting down", { "retry-after": "1" });
          return;
        }
        const principal = outcome.principal ?? ANONYMOUS_PRINCIPAL;
        if (
          !holdOpenSlot(res, principal, (status, message, headers) => mcpError(res, status, message, headers))
        )
          return;
        await deps.a2a(req, res, a2a.namespace, a2a.kind, principal);
        return;
      }
      if (segments.at(-1) !== "mcp" || segments.length > 2) {
        if (segments.at(-1) === "mcp") mcpError(res, 404, `No MCP endpoint at ${path}`);
        else sendError(res, 404, `Nothing at ${path}`);
        return;
      }
      const requested = segments.length === 1 ? "" : (segments[0] as string);
      // The token is checked before the namespace is looked up, and its refusal does not depend on whether the
      // namespace exists: a caller who may not use a namespace cannot learn which ones exist.
      const outcome = await deps.auth.authenticate(
        req,
        "mcp",
        requested ? `/${requested}/mcp` : "/mcp",
        requested,
      );
      if (!outcome.ok) {
        mcpError(res, outcome.status, outcome.message, challengeHeader(outcome));
        return;
      }
      const known = requested === "" || (NAMESPACE_LABEL.test(requested) && deps.hasNamespace(requested));
      if (!known) {
        mcpError(res, 404, `No MCP endpoint at ${path}: unknown namespace`);
        return;
      }
      const namespace = requested;
      const rate = deps.limiter?.admit(req, outcome.principal);
      if (rate && !rate.ok) {
        mcpError(res, 429, rate.message, { "retry-after": String(rate.retryAfterSeconds) });
        return;
      }
      if (!deps.ready()) {
        mcpError(res, 503, "The router is shutting down", { "retry-after": "1" });
        return;
      }
      const principal = outcome.principal ?? ANONYMOUS_PRINCIPAL;
      if (
        !holdOpenSlot(res, principal, (status, message, headers) => mcpError(res, status, message, headers))
      )
        return;
      await deps.mcp(req, res, namespace, principal);
    } catch (error) {
      deps.onError(error, req);
      if (!res.headersSent) sendError(res, 500, "The router failed to handle the request");
      else res.end();
    }
  };
}
