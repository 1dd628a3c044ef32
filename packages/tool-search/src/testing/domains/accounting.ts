import type { CategorySpec } from "../catalog-spec.js";

/** Bookkeeping. */
export const ACCOUNTING: CategorySpec = {
  category: "accounting",
  entities: [
    {
      noun: "invoice",
      gloss: "A sales {noun} to a customer in the books, with lines, tax and balance due.",
      fields: [
        ["customer_id!?", "string", "Customer"],
        ["lines!", "object", "Lines"],
        ["due_date", "date", "Due date"],
        ["status?", "enum:draft|sent|paid|overdue", "Status"],
      ],
      verbs: ["list", "get", "create", "update", "delete"],
      custom: [
        {
          verb: "record payment",
          name: "record invoice payment",
          description: "Records a payment received against a {product} {noun}.",
          args: [
            ["amount!", "number", "Amount received"],
            ["date!", "date", "When it was received"],
          ],
        },
      ],
    },
    {
      noun: "bill",
      gloss: "A {noun} (payable) from a vendor that the company must pay.",
      fields: [
        ["vendor_id!?", "string", "Vendor"],
        ["amount!", "number", "Total"],
        ["due_date!", "date", "Due date"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "expense",
      gloss: "An {noun} is money spent, with a category, amount and receipt.",
      fields: [
        ["amount!", "number", "Amount"],
        ["category!?", "string", "Expense category, e.g. travel"],
        ["date!", "date", "Date"],
        ["receipt_url", "uri", "Receipt image"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "vendor",
      gloss: "A {noun} (supplier) the company buys from.",
      fields: [
        ["name!", "string", "Name"],
        ["email", "email", "Email"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "journal entry",
      plural: "journal entries",
      gloss: "A {noun} posts debits and credits to ledger accounts.",
      fields: [
        ["date!", "date", "Posting date"],
        ["lines!", "object", "Debit and credit lines"],
      ],
      verbs: ["list", "create"],
    },
    {
      noun: "report",
      gloss: "A financial {noun} from the books.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get profit and loss",
          name: "get profit and loss",
          onItem: false,
          readOnly: true,
          description:
            "Returns the profit and loss statement (income statement) from {product} for a period.",
          args: [
            ["start_date!", "date", "Start"],
            ["end_date!", "date", "End"],
          ],
        },
        {
          verb: "get balance sheet",
          name: "get balance sheet",
          onItem: false,
          readOnly: true,
          description: "Returns the balance sheet (assets, liabilities, equity) from {product} at a date.",
          args: [["date!", "date", "As of"]],
        },
      ],
    },
    {
      noun: "customer",
      gloss: "A {noun} you invoice, with billing address and balance owed.",
      fields: [
        ["display_name!", "string", "Name"],
        ["email?", "email", "Email"],
      ],
      verbs: ["list", "get", "create", "update"],
    },
    {
      noun: "ledger account",
      gloss: "A {noun} in the chart of accounts (revenue, expenses, assets).",
      fields: [
        ["name!", "string", "Name"],
        ["type!?", "enum:asset|liability|equity|income|expense", "Type"],
        ["code", "string", "Account number"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "bank transaction",
      gloss: "A {noun} imported from the bank feed, waiting to be categorised and reconciled.",
      fields: [
        ["status?", "enum:unreconciled|reconciled", "Status"],
        ["date?", "date", "Date"],
      ],
      verbs: ["list"],
      custom: [
        {
          verb: "reconcile",
          name: "reconcile bank transaction",
          description: "Matches a {noun} to an invoice, bill or expense in {product}.",
          args: [["match_id!", "string", "Record it matches"]],
        },
      ],
    },
    {
      noun: "purchase order",
      gloss: "A {noun} (PO) to a supplier before goods arrive.",
      fields: [
        ["vendor_id!?", "string", "Vendor"],
        ["lines!", "object", "Items"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "credit note",
      gloss: "A {noun} reduces what a customer owes, e.g. after a return.",
      fields: [
        ["customer_id!?", "string", "Customer"],
        ["amount!", "number", "Amount"],
      ],
      verbs: ["list", "create"],
    },
    {
      noun: "estimate",
      gloss: "An {noun} (quote) sent before work starts, convertible to an invoice.",
      fields: [
        ["customer_id!?", "string", "Customer"],
        ["lines!", "object", "Lines"],
      ],
      verbs: ["list", "get", "create"],
      custom: [
        {
          verb: "convert",
          name: "convert estimate to invoice",
          description: "Turns an accepted {noun} into an invoice.",
        },
      ],
    },
  ],
  products: [
    { key: "quickbooks", label: "QuickBooks", style: "snake" },
    { key: "xero", label: "Xero", style: "camel" },
    { key: "freshbooks", label: "FreshBooks", style: "snake", without: ["journal entry"] },
    { key: "netsuite", label: "NetSuite", style: "pascal" },
    { key: "sage", label: "Sage", style: "kebab", rename: { vendor: "supplier" } },
    { key: "zoho books", label: "Zoho Books", style: "snake" },
    { key: "wave", label: "Wave", style: "camel", without: ["journal entry", "purchase order"] },
  ],
};
