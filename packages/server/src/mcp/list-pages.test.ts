import { describe, expect, it } from "vitest";
import { JsonRpcErrorCode } from "./json-rpc.js";
import { decodeCursor, encodeCursor, ListPages } from "./list-pages.js";

const tool = (name: string) => ({ name, inputSchema: { type: "object" as const } });
const items = ["a", "b", "c", "d", "e"].map(tool);
const HINTS = { ttlMs: 60_000, cacheScope: "public" as const };

describe("ListPages", () => {
  it("pages a list by the router's cursors, the last page without a next cursor", () => {
    const pages = new ListPages("tools", items, 2);
    const first = pages.page(undefined, undefined).value;
    expect(first).toEqual({ tools: [tool("a"), tool("b")], nextCursor: encodeCursor(2) });
    const last = pages.page(encodeCursor(4), undefined).value;
    expect(last).toEqual({ tools: [tool("e")] });
  });

  it("keeps each page the router's cursors point at, so a repeated request gets the same result", () => {
    const pages = new ListPages("tools", items, 2);
    expect(pages.page(undefined, undefined)).toBe(pages.page(encodeCursor(0), undefined));
    expect(pages.page(encodeCursor(2), undefined)).toBe(pages.page(encodeCursor(2), undefined));
  });

  it("keeps a stateless client's page, with its caching hints, apart from a session's", () => {
    const pages = new ListPages("tools", items, 2);
    const session = pages.page(undefined, undefined);
    const stateless = pages.page(undefined, HINTS);
    expect(stateless).not.toBe(session);
    expect(stateless.value).toEqual({ tools: [tool("a"), tool("b")], nextCursor: encodeCursor(2), ...HINTS });
    expect(session.value).not.toHaveProperty("ttlMs");
    expect(pages.page(undefined, HINTS)).toBe(stateless);
  });

  it("answers an offset off the page boundaries without keeping it (a client cannot grow what is kept)", () => {
    const pages = new ListPages("tools", items, 2);
    const odd = pages.page(encodeCursor(1), undefined);
    expect(odd.value).toEqual({ tools: [tool("b"), tool("c")], nextCursor: encodeCursor(3) });
    expect(pages.page(encodeCursor(1), undefined)).not.toBe(odd);
    const beyond = pages.page(encodeCursor(1_000_000), undefined);
    expect(beyond.value).toEqual({ tools: [] });
    expect(pages.page(encodeCursor(1_000_000), undefined)).not.toBe(beyond);
  });

  it("encodes a page for each revision once, in that revision's shapes", () => {
    const titled = [{ ...tool("a"), title: "A" }];
    const page = new ListPages("tools", titled, 2).page(undefined, undefined);
    const stamp = (value: object) => value;
    const old = page.encodedFor("2024-11-05", "session", stamp);
    expect(old.value).toEqual({ tools: [tool("a")] });
    expect(page.encodedFor("2024-11-05", "session", stamp)).toBe(old);
    expect(page.encodedFor("2025-11-25", "session", stamp).value).toEqual({ tools: titled });
  });

  it("refuses a cursor it did not make with -32602", () => {
    const pages = new ListPages("tools", items, 2);
    expect(() => pages.page("not-a-cursor", undefined)).toThrow(
      expect.objectContaining({ code: JsonRpcErrorCode.InvalidParams, message: "Invalid cursor" }),
    );
  });
});

describe("list cursors", () => {
  it("round-trip an offset, and reject text that is not one of the router's cursors", () => {
    expect(decodeCursor(encodeCursor(1000))).toBe(1000);
    expect(decodeCursor("not-a-cursor")).toBeUndefined();
    expect(decodeCursor(Buffer.from("o:-1").toString("base64url"))).toBeUndefined();
    expect(decodeCursor(Buffer.from("o:1.5").toString("base64url"))).toBeUndefined();
  });
});
