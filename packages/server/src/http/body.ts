import type { IncomingMessage } from "node:http";

/** A request body read with a size limit. */
export interface ReadBody {
  text: string;
  /** True when the body was larger than the limit; `text` is then empty and the rest was not read. */
  tooLarge: boolean;
}

/**
 * Reads a request body as UTF-8, up to `maxBytes`. A body over the limit is not buffered: reading stops and
 * `tooLarge` is set (answer 413 and close the connection).
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<ReadBody> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.resolve({ text: "", tooLarge: true });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        chunks.length = 0;
        req.pause();
        resolve({ text: "", tooLarge: true });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (done) return;
      done = true;
      resolve({
        text:
          chunks.length === 1
            ? (chunks[0] as Buffer).toString("utf8")
            : Buffer.concat(chunks).toString("utf8"),
        tooLarge: false,
      });
    });
    req.on("error", (error) => {
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
