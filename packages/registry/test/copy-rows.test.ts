import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyTextField, openStore, type Store } from "../src/index.js";

let store: Store;
beforeAll(async () => {
  store = await openStore({ memory: true });
  await store.sql.exec("CREATE TABLE copy_rows_test (n integer, t text, j jsonb)");
});
afterAll(async () => {
  await store.close();
});

describe("copyTextField", () => {
  it("writes null as \\N and escapes what COPY's text format gives a meaning to", () => {
    expect(copyTextField(null)).toBe("\\N");
    expect(copyTextField(12)).toBe("12");
    expect(copyTextField("plain")).toBe("plain");
    expect(copyTextField("a\\b\tc\nd\re")).toBe("a\\\\b\\tc\\nd\\re");
    expect(copyTextField("\\N")).toBe("\\\\N");
    expect(copyTextField("nul\u0000here")).toBe("nul\uFFFDhere");
  });
});

describe("copyRows on the embedded store", () => {
  it("loads rows whose text holds tabs, newlines, backslashes, NUL and a lone '\\.' line", async () => {
    expect(store.sql.copyRows).toBeTypeOf("function");
    const rows = [
      [1, "tab\there\nnew line", '{"k": "v\\\\w"}'],
      [2, "\\.", null],
      [null, "nul\u0000", "[1, 2]"],
    ] as const;
    const text = rows.map((row) => row.map(copyTextField).join("\t")).join("\n");
    await store.sql.copyRows?.("copy_rows_test", ["n", "t", "j"], `${text}\n`);
    const stored = await store.sql.query<{ n: number | null; t: string; j: unknown }>(
      "SELECT n, t, j FROM copy_rows_test ORDER BY n NULLS LAST",
    );
    expect(stored).toEqual([
      { n: 1, t: "tab\there\nnew line", j: { k: "v\\w" } },
      { n: 2, t: "\\.", j: null },
      { n: null, t: "nul\uFFFD", j: [1, 2] },
    ]);
  });

  it("fails as a whole on a row the table refuses, naming the problem", async () => {
    await expect(
      store.sql.copyRows?.("copy_rows_test", ["n", "t", "j"], "not-a-number\tx\t\\N\n"),
    ).rejects.toThrow(/integer/);
  });
});
