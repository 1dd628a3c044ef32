import type { ComponentChildren } from "preact";

/** One column of a `DataTable`: its heading, and what each row puts in its cell. */
export interface Column<R> {
  /** The heading; "" for a column of actions. */
  header: string;
  /** The cell's classes (`mono`, `small`), the same on every row. */
  class?: string;
  /** The cell's tooltip for a row, when it has one. */
  title?: (row: R) => string | undefined;
  /** What the row shows in this column. */
  cell: (row: R) => ComponentChildren;
}

/** What a `DataTable` shows. */
export interface DataTableProps<R> {
  /** The table's accessible name. */
  label: string;
  columns: readonly Column<R>[];
  rows: readonly R[];
  /** A key unique among the rows. */
  rowKey: (row: R) => string;
  /** `data-*` attributes of a row's `<tr>`, for tests and styles that pick rows out. */
  rowData?: (row: R) => Record<`data-${string}`, string>;
}

/** A table of `rows`, one `<tr>` each, with a cell per column: the admin UI's one kind of table. */
export function DataTable<R>({ label, columns, rows, rowKey, rowData }: DataTableProps<R>) {
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          {columns.map((column, index) => (
            // Headings may be empty (an actions column), and a table's columns never change: the position is the key.
            <th key={index}>{column.header}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)} {...rowData?.(row)}>
            {columns.map((column, index) => (
              <td key={index} class={column.class} title={column.title?.(row)}>
                {column.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
