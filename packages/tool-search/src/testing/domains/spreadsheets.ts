import type { CategorySpec } from "../catalog-spec.js";

/** Spreadsheets and tables. */
export const SPREADSHEETS: CategorySpec = {
  category: "spreadsheets",
  entities: [
    {
      noun: "spreadsheet",
      gloss: "A {noun} (workbook) of sheets with cells and formulas.",
      fields: [["title!", "string", "Title"]],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "row",
      gloss: "A {noun} of values in a sheet.",
      parent: {
        noun: "sheet",
        fields: [
          ["spreadsheet_id", "string", "Spreadsheet"],
          ["sheet", "string", "Sheet name"],
        ],
      },
      id: ["row_number", "integer", "Row number, from 1"],
      fields: [["values!", "string[]", "Cell values, left to right"]],
      verbs: ["list", "update", "delete"],
      custom: [
        {
          verb: "append",
          name: "append row",
          onItem: false,
          description: "Appends a {noun} of values at the bottom of a {product} sheet.",
          args: [["values!", "string[]", "Cell values"]],
        },
      ],
    },
    {
      noun: "range",
      gloss: "A cell {noun} in A1 notation, e.g. Sheet1!A1:C10.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "read range",
          name: "read range",
          onItem: false,
          readOnly: true,
          description: "Reads the values of a cell {noun} from a {product} spreadsheet.",
          args: [
            ["spreadsheet_id!", "string", "Spreadsheet"],
            ["range!", "string", "A1 range"],
          ],
        },
        {
          verb: "write range",
          name: "write range",
          onItem: false,
          description: "Writes values into a cell {noun} of a {product} spreadsheet.",
          args: [
            ["spreadsheet_id!", "string", "Spreadsheet"],
            ["range!", "string", "A1 range"],
            ["values!", "object", "Rows of values"],
          ],
        },
      ],
    },
    {
      noun: "sheet",
      gloss: "A {noun} (tab) in a spreadsheet.",
      parent: { noun: "spreadsheet", fields: [["spreadsheet_id", "string", "Spreadsheet"]] },
      id: ["sheet_id", "integer", "ID of the sheet"],
      fields: [["title!", "string", "Tab name"]],
      verbs: ["list", "create", "delete"],
      custom: [
        {
          verb: "rename",
          name: "rename sheet",
          description: "Renames a {noun} tab in a {product} spreadsheet.",
          args: [["title!", "string", "New name"]],
        },
      ],
    },
    {
      noun: "chart",
      gloss: "A {noun} drawn from a range of cells.",
      parent: { noun: "spreadsheet", fields: [["spreadsheet_id", "string", "Spreadsheet"]] },
      fields: [
        ["type!", "enum:line|bar|pie|scatter", "Chart type"],
        ["source_range!", "string", "Data range"],
      ],
      verbs: ["create", "delete"],
    },
    {
      noun: "cell formatting",
      plural: "cell formatting",
      gloss: "How cells look: bold, colours, number formats.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "format cells",
          name: "format cells",
          onItem: false,
          description:
            "Applies bold, colours, borders or number formats to a range in a {product} spreadsheet.",
          args: [
            ["spreadsheet_id!", "string", "Spreadsheet"],
            ["range!", "string", "A1 range"],
            ["format!", "object", "Format"],
          ],
        },
        {
          verb: "sort range",
          name: "sort range",
          onItem: false,
          description: "Sorts the rows of a range by one or more columns.",
          args: [
            ["spreadsheet_id!", "string", "Spreadsheet"],
            ["range!", "string", "A1 range"],
            ["sort_by!", "object", "Columns and order"],
          ],
        },
      ],
    },
  ],
  products: [
    { key: "google sheets", label: "Google Sheets", style: "snake" },
    {
      key: "excel",
      label: "Excel Online",
      style: "camel",
      rename: { spreadsheet: "workbook", sheet: "worksheet" },
    },
    {
      key: "airtable",
      label: "Airtable",
      style: "snake",
      rename: { spreadsheet: "base", sheet: "table", row: "record" },
    },
    { key: "smartsheet", label: "Smartsheet", style: "kebab" },
    { key: "zoho sheet", label: "Zoho Sheet", style: "snake" },
  ],
};
