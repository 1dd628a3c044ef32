import type { IncomingMessage, ServerResponse } from "node:http";

/** A request body read with a size limit. */
export interface ReadBody {
  text: string;
  /** True when the body was larger than the limit; `text` is then empty. Answer 413 with `Connection: close`. */
  tooLarge: boolean;
}

/** The most an oversized body is read (and discarded) before its 413, as a multiple of the limit. */
const DRAIN_FACTOR = 4;
/** … but never less than this many bytes. */
const MIN_DRAIN_BYTES = 8 * 1024 * 1024;

/**
 * How many bytes of an oversized body are read and thrown away so that the client, which is still sending, is
 * not cut off before it can read the 413: the larger of 4× the limit and 8 MiB.
 */
export function drainLimitFor(maxBytes: number): number {
  return Math.max(DRAIN_FACTOR * maxBytes, MIN_DRAIN_BYTES);
}

/**
 * Reads a request body as UTF-8, up to `maxBytes`. A body over the limit is not buffered: the rest of it is read
 * and discarded until it ends, and only then does the promise resolve with `tooLarge`, so that the 413 the caller
 * writes reaches a client that sends its whole body before it reads (most do). Closing the connection while the
 * client still sends would reset it, and the client would see EPIPE or ECONNRESET instead of the answer. Past
 * {@link drainLimitFor} bytes (or a declared length beyond it) reading stops at once: the caller's answer then
 * closes the connection on the rest.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<ReadBody> {
  const drainLimit = drainLimitFor(maxBytes);
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > drainLimit) {
    req.pause();
    return Promise.resolve({ text: "", tooLarge: true });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number.isFinite(declared) && declared > maxBytes;
    let done = false;
    const finish = (result: ReadBody) => {
      if (done) return;
      done = true;
      resolve(result);
    };
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > drainLimit) {
        req.pause();
        finish({ text: "", tooLarge: true });
        return;
      }
      if (size > maxBytes) tooLarge = true;
      if (tooLarge) chunks.length = 0;
      else chunks.push(chunk);
    });
    req.on("end", () => {
      if (tooLarge) {
        finish({ text: "", tooLarge: true });
        return;
      }
      finish({
        text:
          chunks.length === 1
            ? (chunks[0] as Buffer).toString("utf8")
            : Buffer.concat(chunks).toString("utf8"),
        tooLarge: false,
      });
    });
    // A client that gives up while its oversized body is drained still gets (or not) its 413: nothing failed here.
    req.on("close", () => {
      if (tooLarge) finish({ text: "", tooLarge: true });
    });
    req.on("error", (error) => {
      if (tooLarge) {
        finish({ text: "", tooLarge: true });
        return;
      }
      if (done) return;
      done = true;
      reject(error);
    });
  });
}

/** True when the request's Content-Type is `application/json` (by media type, parameters ignored). */
export function isJsonContentType(req: IncomingMessage): boolean {
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  return type === "application/json";
}

/**
 * The UTF-8 bytes of `text`, to write as a response body with its length known. Node encodes a string body while
 * writing it, one character at a time (0.7 ms for a 240 KB `tools/list` page); a text whose UTF-8 length equals its
 * length is ASCII, whose bytes are its Latin-1 bytes, which Node copies at memory speed. Other text is encoded as
 * UTF-8.
 */
export function utf8Bytes(text: string): Buffer {
  return Buffer.byteLength(text) === text.length ? Buffer.from(text, "latin1") : Buffer.from(text, "utf8");
}

/**
 * Bodies at least this long are encoded by {@link utf8Bytes} before they are written; a shorter one goes out as a
 * string in the same write as the headers, which costs no more.
 */
const ENCODE_BEFORE_WRITE_CHARS = 16 * 1024;

/**
 * Answers `status` with the JSON `text` as the whole body (`content-type` and `content-length` set) and `headers`.
 * `text` may be given as UTF-8 parts (a message around bytes made once), written together in one write.
 */
export function writeJson(
  res: ServerResponse,
  status: number,
  text: string | readonly Buffer[],
  headers: Record<string, string> = {},
): void {
  if (typeof text !== "string") {
    let length = 0;
    for (const part of text) length += part.length;
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": String(length),
      ...headers,
    });
    // Corked, so headers and parts leave in one write; `end` uncorks.
    res.cork();
    for (const part of text) res.write(part);
    res.end();
    return;
  }
  const body = text.length < ENCODE_BEFORE_WRITE_CHARS ? text : utf8Bytes(text);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(typeof body === "string" ? Buffer.byteLength(body) : body.length),
    ...headers,
  });
  res.end(body);
}
