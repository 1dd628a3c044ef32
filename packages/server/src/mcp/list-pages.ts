import { JsonRpcErrorCode } from "./json-rpc.js";
import { ProtocolError } from "./protocol-error.js";
import { ReusableResult } from "./reusable-result.js";
import { encodeListResult } from "./wire/listings.js";
import type { McpRevision } from "./wire/revisions.js";
import type { ListedItems, ListKey, McpListResult } from "./wire/types.js";

/** Encodes a list offset as an opaque cursor. */
export function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

/** Decodes a cursor from {@link encodeCursor}; `undefined` when it is not one. */
export function decodeCursor(cursor: string): number | undefined {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  if (!text.startsWith("o:")) return undefined;
  const offset = Number(text.slice(2));
  return Number.isSafeInteger(offset) && offset >= 0 ? offset : undefined;
}

/**
 * `items` under `key`. TypeScript types an object literal with a computed key of a generic type as an index
 * signature (microsoft/TypeScript#13948), so this one says what it is.
 */
function listOf<K extends ListKey>(key: K, items: ListedItems[K][]): McpListResult<K> {
  return { [key]: items } as McpListResult<K>;
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
export class ListPages<K extends ListKey> {
  readonly #pages = new Map<string, ReusableResult<McpListResult<K>>>();
  /** The whole list as a result, what each page is made from. */
  readonly #list: McpListResult<K>;
  /** Puts a page into a revision's shapes (the list's own encoder, with its key). */
  readonly #encode: (page: McpListResult<K>, revision: McpRevision) => object;

  /**
   * @param key the list: where its result holds the items.
   * @param items the whole list, in the newest shapes.
   */
  constructor(
    readonly key: K,
    readonly items: ListedItems[K][],
    readonly pageSize: number,
  ) {
    this.#list = listOf(key, items);
    this.#encode = (page, revision) => encodeListResult(key, page, revision).value;
  }

  /**
   * The page at `cursor` (the first without one), with `hints` when the client is stateless.
   * @throws ProtocolError -32602 for a cursor the router did not make.
   */
  page(cursor: string | undefined, hints: ListHints | undefined): ReusableResult<McpListResult<K>> {
    let offset = 0;
    if (cursor !== undefined) {
      const decoded = decodeCursor(cursor);
      if (decoded === undefined) throw new ProtocolError(JsonRpcErrorCode.InvalidParams, "Invalid cursor");
      offset = decoded;
    }
    const items = this.items;
    const kept = offset % this.pageSize === 0 && offset <= items.length;
    const pageKey = hints ? `${offset}:${hints.ttlMs}:${hints.cacheScope}` : String(offset);
    const known = kept ? this.#pages.get(pageKey) : undefined;
    if (known) return known;
    const end = offset + this.pageSize;
    const value: McpListResult<K> = { ...this.#list, [this.key]: items.slice(offset, end) };
    if (end < items.length) value.nextCursor = encodeCursor(end);
    if (hints) {
      value.ttlMs = hints.ttlMs;
      value.cacheScope = hints.cacheScope;
    }
    const result = new ReusableResult(value, this.#encode);
    if (kept) this.#pages.set(pageKey, result);
    return result;
  }
}
