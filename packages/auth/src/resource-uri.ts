import { configurationError } from "./errors.js";

/** The well-known path of RFC 9728 protected-resource metadata. */
export const PROTECTED_RESOURCE_WELL_KNOWN = "/.well-known/oauth-protected-resource";

/**
 * The canonical form of a resource URI (RFC 8707 §2, MCP "Canonical Server URI"): an absolute `http(s)` URI
 * with lowercase scheme and host, no default port, no fragment, no query, no user information, and no
 * trailing slash (`https://MCP.example.com/mcp/` → `https://mcp.example.com/mcp`).
 *
 * @throws {AuthError} `configuration` when `uri` is not an absolute http(s) URI or has a fragment, a query or
 *   user information.
 */
export function canonicalResourceUri(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw configurationError(`"${uri}" is not an absolute URI (a resource URI needs a scheme and a host)`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw configurationError(`"${uri}" must be an http or https URI`);
  }
  if (url.hash !== "" || uri.includes("#")) {
    throw configurationError(`"${uri}" must not have a fragment (a resource URI never does, RFC 8707)`);
  }
  if (url.search !== "" || uri.includes("?")) {
    throw configurationError(`"${uri}" must not have a query (a resource URI should not, RFC 8707)`);
  }
  if (url.username !== "" || url.password !== "") {
    throw configurationError(`"${uri}" must not carry user information`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * The canonical resource URI of an endpoint served under `publicUrl` at `path`
 * (`("https://mcp.example.com", "/mcp")` → `https://mcp.example.com/mcp`; `""` or `"/"` is the root).
 *
 * @throws {AuthError} `configuration` when `publicUrl` is not a usable resource URI or `path` does not start
 *   with `/`.
 */
export function endpointResourceUri(publicUrl: string, path: string): string {
  if (path !== "" && !path.startsWith("/")) {
    throw configurationError(`The endpoint path "${path}" must start with "/"`);
  }
  if (/[?#]/.test(path)) {
    throw configurationError(`The endpoint path "${path}" must not contain "?" or "#"`);
  }
  return canonicalResourceUri(canonicalResourceUri(publicUrl) + path);
}

/**
 * Where the protected-resource metadata of `resourceUri` is served (RFC 9728 §3.1): the well-known path
 * inserted between the host and the resource's path (`https://h/ns/mcp` →
 * `https://h/.well-known/oauth-protected-resource/ns/mcp`; the root → `https://h/.well-known/oauth-protected-resource`).
 */
export function protectedResourceMetadataUrl(resourceUri: string): string {
  const canonical = canonicalResourceUri(resourceUri);
  const url = new URL(canonical);
  return `${url.protocol}//${url.host}${protectedResourceMetadataPath(canonical)}`;
}

/** The path part of {@link protectedResourceMetadataUrl}: what a router matches an incoming GET against. */
export function protectedResourceMetadataPath(resourceUri: string): string {
  const path = new URL(canonicalResourceUri(resourceUri)).pathname;
  return path === "/" ? PROTECTED_RESOURCE_WELL_KNOWN : `${PROTECTED_RESOURCE_WELL_KNOWN}${path}`;
}
