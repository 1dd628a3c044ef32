import { configurationError } from "../errors.js";

/** The fetch function the package uses; `globalThis.fetch` unless a caller injects another. */
export type FetchFunction = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** A request to an authorization server that did not give a usable answer. */
export class HttpFailure extends Error {
  override readonly name = "HttpFailure";
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Parses and checks the URL of an authorization-server endpoint: https, or http on a loopback address, or
 * any http when `allowInsecureHttp` (a token or a client secret must not cross a network in clear text);
 * never user information in the URL.
 *
 * @throws {AuthError} `configuration`
 */
export function checkEndpointUrl(value: string, what: string, allowInsecureHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw configurationError(`The ${what} "${value}" is not an absolute URL`);
  }
  if (url.username !== "" || url.password !== "") {
    throw configurationError(`The ${what} must not carry user information in its URL`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && (allowInsecureHttp || LOOPBACK.test(url.hostname))) return url;
  throw configurationError(
    `The ${what} "${url.origin}${url.pathname}" must use https (http is accepted only on a loopback address, or with allowInsecureHttp)`,
  );
}

/** Options of {@link requestJson}. */
export interface RequestJsonOptions {
  fetch: FetchFunction;
  timeoutMs: number;
  /** The largest body accepted, in bytes. */
  maxBytes: number;
}

/** A parsed JSON answer with its status. */
export interface JsonAnswer {
  status: number;
  body: unknown;
}

/**
 * Sends one request and reads a JSON answer of bounded size; redirects are not followed (a redirect would
 * resend a form carrying a token or a client secret to another place).
 *
 * @throws {HttpFailure} on a network error, a timeout, a redirect, a body too large, or a body that is not JSON.
 */
export async function requestJson(
  url: URL,
  init: RequestInit,
  options: RequestJsonOptions,
): Promise<JsonAnswer> {
  const where = `${url.origin}${url.pathname}`;
  let response: Response;
  try {
    response = await options.fetch(url, {
      ...init,
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    throw new HttpFailure(
      timedOut ? `${where} did not answer within ${options.timeoutMs} ms` : `${where} could not be reached`,
      {
        cause: error,
      },
    );
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new HttpFailure(
      `${where} answered with a redirect (HTTP ${response.status}), which is not followed`,
    );
  }
  const text = await readBounded(response, options.maxBytes, where);
  if (text.trim() === "") return { status: response.status, body: undefined };
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    throw new HttpFailure(`${where} answered HTTP ${response.status} with a body that is not JSON`);
  }
}

async function readBounded(response: Response, maxBytes: number, where: string): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new HttpFailure(`${where} answered with more than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof HttpFailure) throw error;
    throw new HttpFailure(`${where} did not finish its answer`, { cause: error });
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** True when `value` is a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
