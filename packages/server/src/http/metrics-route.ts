import type { IncomingMessage, ServerResponse } from "node:http";
import { sendError } from "./json-api.js";
import type { RateLimiter } from "./rate-limit.js";
import type { TokenAuthenticator } from "./security.js";

/** The router's metrics as the front door serves them at `/metrics`. */
export interface MetricsEndpoint {
  /** Served without a token (`metrics: { open: true }`); otherwise the admin scope is needed, as for `/api`. */
  readonly open: boolean;
  /** The Prometheus text of every metric and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/**
 * Serves `GET /metrics`: behind the admin scope (and the rate limit) unless the metrics are open. A refusal
 * answers as the management API's do.
 */
export async function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  metrics: MetricsEndpoint,
  deps: { auth: TokenAuthenticator; limiter?: RateLimiter | undefined },
): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    sendError(res, 405, "Only GET reads /metrics", { allow: "GET, HEAD" });
    return;
  }
  if (!metrics.open) {
    const outcome = await deps.auth.authenticate(req, "admin", "/metrics");
    if (!outcome.ok) {
      const challenge = outcome.challenge ?? (outcome.status === 401 ? 'Bearer realm="trestle"' : undefined);
      sendError(res, outcome.status, outcome.message, challenge ? { "www-authenticate": challenge } : {});
      return;
    }
    const rate = deps.limiter?.admit(req, outcome.principal);
    if (rate && !rate.ok) {
      sendError(res, 429, rate.message, { "retry-after": String(rate.retryAfterSeconds) });
      return;
    }
  }
  const { contentType, body } = await metrics.render();
  res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : body);
}
