import { validateHeaderName, validateHeaderValue } from "node:http";
import { createFileProvisioner, readProvisionedConfiguration } from "@trestle/capability";
import { Code, TrestleError } from "@trestle/core";
import { RuntimeStatus, type ToolInvokeRequest } from "@trestle/proto";
import type { CapabilityHandlers } from "@trestle/wanaku";
import { type AddressPolicyOptions, createAddressPolicy } from "./address-policy.js";
import { createConnectionPools, describeUrl, exchange } from "./http-exchange.js";
import { responseText } from "./response-text.js";
import { httpStatusError } from "./status-error.js";
import { expandUrlTemplate } from "./url-template.js";

/** Options for {@link createHttpService}. */
export interface HttpServiceOptions extends AddressPolicyOptions {
  /** Deadline of one tool call, redirects included. Default 10,000 ms. */
  timeoutMs?: number;
  /** Longest response body returned; a longer one is cut there, with a note. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Redirects followed before giving up. Default 5. */
  maxRedirects?: number;
  /**
   * Where provisioned configuration and secrets are stored (the SDK's file provisioner). A tool's
   * configuration and secrets URIs must then name files under it (`PermissionDenied` otherwise). Without it the
   * service answers no `Provision` call, but still reads any `file://` configuration URI a tool names.
   */
  home?: string;
}

/** Default deadline of one HTTP tool call. */
export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;
/** Default cap on the response body returned by an HTTP tool. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

const HEADER_PREFIX = "header.";
const QUERY_PREFIX = "query.";
/** Headers that describe a connection, not a request: set by Node itself, never forwarded. */
const CONNECTION_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "proxy-connection",
]);

function prefixed(properties: Record<string, string>, prefix: string): [string, string][] {
  return Object.entries(properties)
    .filter(([key]) => key.startsWith(prefix) && key.length > prefix.length)
    .map(([key, value]) => [key.slice(prefix.length), value]);
}

function appendQuery(url: URL, name: string, value: string): void {
  // Appended by hand rather than through searchParams, which would re-encode the template's own query.
  const pair = `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
  url.search = url.search.length > 1 ? `${url.search}&${pair}` : `?${pair}`;
}

function setHeader(headers: Record<string, string>, name: string, value: string): void {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
  } catch (error) {
    // The value is never named: it may be a credential.
    throw new TrestleError(
      `Header ${JSON.stringify(name)} has an invalid name or value`,
      Code.InvalidArgument,
      {
        cause: error,
      },
    );
  }
  for (const existing of Object.keys(headers)) {
    if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
  }
  headers[name] = value;
}

function methodFrom(configured: string | undefined, hasBody: boolean): string {
  if (configured === undefined || configured === "") return hasBody ? "POST" : "GET";
  const method = configured.toUpperCase();
  if (!/^[A-Z]+$/.test(method)) {
    throw new TrestleError(
      `The configured method ${JSON.stringify(configured)} is not valid`,
      Code.InvalidArgument,
    );
  }
  return method;
}

function defaultContentType(body: string): string {
  try {
    JSON.parse(body);
    return "application/json";
  } catch {
    return "text/plain; charset=utf-8";
  }
}

/**
 * Creates the handlers of the HTTP tool invoker: each tool call becomes one HTTP request built from the
 * tool's URL template, its provisioned configuration and secrets, and the call's arguments, headers and body.
 *
 * - `uri`: a URL template; `{name}` placeholders (path or query) are filled from the arguments,
 *   percent-encoded. Other arguments are sent only where the configuration names them as `query.<name>`.
 * - configuration (`configuration_uri`, `key=value` lines): `method=` (default GET, or POST with a body),
 *   `header.<Name>=value`, `query.<name>=value` (the value is a default: an argument `<name>` not used by a
 *   placeholder wins).
 * - secrets (`secrets_uri`): `header.<Name>=value` and `query.<name>=value`, winning over everything else,
 *   never logged nor quoted in errors.
 * - the request's `headers` (from `wanaku_meta_*`/`wanaku_auth_*` and header properties) go over the
 *   configuration's headers; the request's `body` (from `wanaku_body`) is the request body.
 *
 * The answer is the response text (JSON pretty-printed), cut at `maxResponseBytes` with a note. A non-2xx
 * answer throws a {@link TrestleError} naming the status and the start of the body. The address policy
 * (allowlist, private address guard) applies to the first request and to every redirect.
 */
export function createHttpService(options: HttpServiceOptions = {}): CapabilityHandlers {
  const policy = createAddressPolicy(options);
  const pools = createConnectionPools();
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = options.maxRedirects ?? 5;

  async function invoke(request: ToolInvokeRequest, signal: AbortSignal): Promise<string> {
    // A tool's URIs come from whoever may edit the catalog: under a home, they may name only files in it.
    const confined = options.home === undefined ? {} : { root: options.home };
    const [configuration, secrets] = await Promise.all([
      readProvisionedConfiguration(request.configurationUri, confined),
      readProvisionedConfiguration(request.secretsUri, confined),
    ]);
    const { url, usedArguments } = expandUrlTemplate(request.uri, request.arguments);
    for (const [name, fallback] of prefixed(configuration, QUERY_PREFIX)) {
      const argument = usedArguments.has(name) ? undefined : request.arguments[name];
      appendQuery(url, name, argument ?? fallback);
    }
    for (const [name, value] of prefixed(secrets, QUERY_PREFIX)) appendQuery(url, name, value);

    const headers: Record<string, string> = { "user-agent": "trestle-http" };
    const originBound = new Set<string>();
    for (const [name, value] of prefixed(configuration, HEADER_PREFIX)) setHeader(headers, name, value);
    for (const [name, value] of Object.entries(request.headers)) {
      if (CONNECTION_HEADERS.has(name.toLowerCase())) continue;
      setHeader(headers, name, value);
      originBound.add(name.toLowerCase());
    }
    for (const [name, value] of prefixed(secrets, HEADER_PREFIX)) {
      setHeader(headers, name, value);
      originBound.add(name.toLowerCase());
    }

    const hasBody = request.body !== "";
    const method = methodFrom(configuration.method, hasBody);
    if (hasBody && !Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) {
      headers["content-type"] = defaultContentType(request.body);
    }
    const response = await exchange(
      { url, method, headers, ...(hasBody ? { body: request.body } : {}), originBoundHeaders: originBound },
      {
        pools,
        policy,
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
        maxBodyBytes: maxResponseBytes,
        maxRedirects,
      },
    );
    if (response.status < 200 || response.status > 299) {
      throw httpStatusError(
        response.status,
        response.statusText,
        `${method} ${describeUrl(response.url)}`,
        response.body,
      );
    }
    return responseText(response.body, response.contentType, response.truncated, maxResponseBytes);
  }

  return {
    async toolInvoker(request, context) {
      return { content: [await invoke(request, context.signal)] };
    },
    healthProbe() {
      return { status: RuntimeStatus.STARTED };
    },
    ...(options.home === undefined ? {} : { provisioner: createFileProvisioner({ home: options.home }) }),
  };
}
