import { Code, TrestleError } from "@trestle/core";
import type { FailureSubject } from "./mcp-failure.js";

/** More pages than this is a server that never stops paging, not a catalog. */
const MAX_PAGES = 1_000;

/**
 * Every item of a paged list: asks for the next page while the server gives a cursor.
 *
 * @throws TrestleError `Internal` when the server repeats a cursor or pages without end.
 */
export async function allPages<T>(
  subject: FailureSubject,
  method: string,
  list: (cursor: string | undefined) => Promise<{ nextCursor?: string | undefined; items: T[] }>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await list(cursor);
    items.push(...result.items);
    if (!result.nextCursor) return items;
    if (seen.has(result.nextCursor)) {
      throw new TrestleError(
        `The MCP server ${subject.label} repeated a page cursor while answering ${method}`,
        Code.Internal,
      );
    }
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
  throw new TrestleError(
    `The MCP server ${subject.label} answered ${method} with more than ${MAX_PAGES} pages`,
    Code.Internal,
  );
}
