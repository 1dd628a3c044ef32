import type { CategorySpec } from "../catalog-spec.js";

/** Bank account aggregation. */
export const BANKING: CategorySpec = {
  category: "banking",
  entities: [
    {
      noun: "bank account",
      gloss: "A linked {noun} (checking, savings, credit card) with its balance.",
      fields: [],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "get balance",
          name: "get account balance",
          readOnly: true,
          description: "Returns the current and available balance of a linked {noun}.",
        },
      ],
    },
    {
      noun: "transaction",
      gloss: "A bank {noun}: money in or out of an account, with merchant, amount and category.",
      fields: [
        ["account_id?", "string", "Account"],
        ["start_date?", "date", "From"],
        ["end_date?", "date", "To"],
        ["category?", "string", "Spending category"],
      ],
      verbs: ["list", "get", "search"],
    },
    {
      noun: "account holder",
      gloss: "The {noun}'s identity (name, address, email) as the bank has it.",
      fields: [],
      verbs: ["get"],
    },
    {
      noun: "statement",
      gloss: "A monthly bank {noun} as PDF.",
      parent: { noun: "bank account", fields: [["account_id", "string", "Account"]] },
      fields: [],
      verbs: ["list", "get"],
    },
    {
      noun: "payment initiation",
      gloss: "A {noun} asks the bank to transfer money from the user's account, after they approve it.",
      fields: [
        ["amount!", "number", "Amount"],
        ["currency!", "string", "Currency"],
        ["recipient_iban!", "string", "Recipient IBAN"],
        ["reference", "string", "Reference"],
      ],
      verbs: ["get", "create"],
    },
    {
      noun: "recurring transaction",
      gloss: "A {noun} (subscription, standing order) detected in the account history.",
      fields: [["account_id?", "string", "Account"]],
      verbs: ["list"],
    },
    {
      noun: "institution",
      gloss: "A bank or {noun} that {product} can connect to.",
      fields: [["country?", "string", "Country"]],
      verbs: ["list", "get", "search"],
    },
  ],
  products: [
    { key: "plaid", label: "Plaid", style: "snake" },
    { key: "tink", label: "Tink", style: "camel" },
    { key: "truelayer", label: "TrueLayer", style: "kebab" },
  ],
};
