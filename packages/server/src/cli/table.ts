/** Renders rows as an aligned text table with a header. */
export function renderTable(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cells = [columns, ...rows.map((r) => r.map((c) => (c === undefined || c === null ? "" : String(c))))];
  const widths = columns.map((_, i) =>
    Math.max(...cells.map((r) => (r[i] as string | undefined)?.length ?? 0)),
  );
  return cells
    .map((r) =>
      r
        .map((c, i) => String(c).padEnd(widths[i] as number))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
