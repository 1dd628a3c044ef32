import { utf8Bytes } from "../http/body.js";
import { JsonRpcErrorCode } from "./json-rpc.js";
import { ProtocolError } from "./protocol-error.js";
import { decodeCursor, encodeCursor } from "./tool-listing.js";

/**
 * A result in its client's revision whose JSON text is made once, however many requests it answers. `toJSON`
 * gives the encoded value, so a writer that serializes the whole message (an SSE stream, a batch, stdio) writes
 * it as any other result; the HTTP writer of a single answer splices {@link json} in instead.
 */
export class EncodedResult {
  #json: Buffer | undefined = undefined;

  constructor(readonly value: unknown) {}

  /**
   * The UTF-8 bytes of the value's JSON text, made on first use and kept. Bytes rather than a string: a large
   * answer written from a new string costs a fresh large allocation, a flattening and an encoding each time (for
   * a 380 KB `tools/list` page more than `JSON.stringify` itself).
   */
  get json(): Buffer {
    this.#json ??= utf8Bytes(JSON.stringify(this.value));
    return this.#json;
  }

  toJSON(): unknown {
    return this.value;
  }
}

/**
 * A result a handler answers many requests with, the same for every client of one revision (a page of a large
 * list): the dispatcher encodes it for each revision once and keeps what it made here. The revisions are the
 * router's own (a request's revision is checked before it is dispatched), so the encodings it holds are bounded.
 */
export class ReusableResult {
  readonly #encoded = new Map<string, EncodedResult>();

  constructor(readonly value: Record<string, unknown>) {}

  /** The result encoded for `key` (a revision and era), by `encode` the first time that key is asked for. */
  encodedFor(key: string, encode: (value: Record<string, unknown>) => unknown): EncodedResult {
    let encoded = this.#encoded.get(key);
    if (encoded === undefined) {
      encoded = new EncodedResult(encode(this.value));
      this.#encoded.set(key, encoded);
    }
    return encoded;
  }
}

/** The caching hints a stateless list result carries (absent on a session's). */
export interface ListHints {
  ttlMs: number;
  cacheScope: "public" | "private";
}

/**
 * One list's pages as {@link ReusableResult}s, for as long as the list itself is current: a client that lists a
 * large catalog page by page gets each page encoded and serialized once per revision, not per request. Only the
 * pages the router's own cursors point at are kept (offsets on a page boundary), so no cursor a client makes up
 * can make it hold more than the list's pages; any other offset is answered without being kept.
 *
 * @example
 * ```ts
 * const pages = new ListPages("tools", tools, 1000);
 * return pages.page(request.params?.cursor, hints);
 * ```
 */
export class ListPages<T> {
  readonly #pages = new Map<string, ReusableResult>();

  constructor(
    readonly key: string,
    readonly items: readonly T[],
    readonly pageSize: number,
  ) {}

  /**
   * The page at `cursor` (the first without one), with `hints` when the client is stateless.
   * @throws ProtocolError -32602 for a cursor the router did not make.
   */
  page(cursor: string | undefined, hints: ListHints | undefined): ReusableResult {
    let offset = 0;
    if (cursor !== undefined) {
      const decoded = decodeCursor(cursor);
      if (decoded === undefined) throw new ProtocolError(JsonRpcErrorCode.InvalidParams, "Invalid cursor");
      offset = decoded;
    }
    const kept = offset % this.pageSize === 0 && offset <= this.items.length;
    const pageKey = hints ? `${offset}:${hints.ttlMs}:${hints.cacheScope}` : String(offset);
    const known = kept ? this.#pages.get(pageKey) : undefined;
    if (known) return known;
    const end = offset + this.pageSize;
    const value: Record<string, unknown> = { [this.key]: this.items.slice(offset, end) };
    if (end < this.items.length) value.nextCursor = encodeCursor(end);
    if (hints) Object.assign(value, hints);
    const result = new ReusableResult(value);
    if (kept) this.#pages.set(pageKey, result);
    return result;
  }
}
