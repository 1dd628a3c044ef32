import type { CategorySpec } from "../catalog-spec.js";

/** Payments. */
export const PAYMENTS: CategorySpec = {
  category: "payments",
  entities: [
    {
      noun: "payment",
      gloss: "A {noun} (charge) collects money from a customer's card or account.",
      fields: [
        ["amount!", "integer", "Amount in the smallest currency unit, e.g. cents"],
        ["currency!?", "string", "Three-letter currency code, e.g. EUR"],
        ["customer_id?", "string", "Customer paying"],
        ["payment_method_id", "string", "Card or account to charge"],
        ["status?", "enum:pending|succeeded|failed|refunded", "Status"],
        ["created_after?", "date-time", "Only payments after this time"],
      ],
      verbs: ["list", "get", "create", "search"],
      custom: [
        {
          verb: "capture",
          name: "capture payment",
          description: "Captures a {product} {noun} that was authorized earlier, moving the funds.",
          args: [["amount", "integer", "Amount to capture; the whole authorization when absent"]],
        },
        { verb: "cancel", name: "cancel payment", description: "Cancels an uncaptured {product} {noun}." },
      ],
    },
    {
      noun: "refund",
      gloss: "A {noun} returns money from a payment to the customer, in full or in part.",
      fields: [
        ["payment_id!?", "string", "Payment to refund"],
        ["amount", "integer", "Amount; the whole payment when absent"],
        ["reason", "enum:duplicate|fraudulent|requested_by_customer", "Why"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "customer",
      gloss: "A {noun} of your business in {product}, with saved payment methods and billing details.",
      fields: [
        ["email!?", "email", "Email"],
        ["name", "string", "Full name"],
        ["phone", "string", "Phone"],
        ["address", "object", "Billing address"],
      ],
      verbs: ["list", "get", "create", "update", "delete", "search"],
    },
    {
      noun: "invoice",
      gloss: "An {noun} is a bill sent to a customer, listing items and a due date, that they pay online.",
      fields: [
        ["customer_id!?", "string", "Customer billed"],
        ["items!", "object", "Line items"],
        ["due_date", "date", "When it must be paid"],
        ["status?", "enum:draft|open|paid|void|uncollectible", "Status"],
      ],
      verbs: ["list", "get", "create", "update"],
      custom: [
        { verb: "send", name: "send invoice", description: "Emails a {product} {noun} to the customer." },
        {
          verb: "void",
          name: "void invoice",
          description: "Voids a {product} {noun} so it can no longer be paid.",
        },
        {
          verb: "finalize",
          name: "finalize invoice",
          description: "Finalizes a draft {noun} so it can be paid.",
        },
      ],
    },
    {
      noun: "subscription",
      gloss: "A {noun} charges a customer on a recurring schedule (monthly, yearly) for a plan.",
      fields: [
        ["customer_id!?", "string", "Subscriber"],
        ["price_id!", "string", "Plan or price"],
        ["quantity", "integer", "Seats"],
        ["status?", "enum:active|past_due|canceled|trialing", "Status"],
      ],
      verbs: ["list", "get", "create", "update"],
      custom: [
        {
          verb: "cancel",
          name: "cancel subscription",
          description: "Cancels a {product} {noun}, now or at the end of the billing period.",
          args: [["at_period_end", "boolean", "Cancel when the current period ends"]],
        },
        {
          verb: "pause",
          name: "pause subscription",
          description: "Pauses billing of a {product} {noun}.",
        },
      ],
    },
    {
      noun: "payout",
      gloss: "A {noun} transfers your {product} balance to your bank account.",
      fields: [
        ["amount!", "integer", "Amount"],
        ["currency!", "string", "Currency"],
        ["arrival_after?", "date", "Only payouts arriving after this date"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "dispute",
      gloss: "A {noun} (chargeback) is a customer asking their bank to reverse a payment.",
      fields: [["status?", "enum:needs_response|under_review|won|lost", "Status"]],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "submit evidence",
          name: "submit dispute evidence",
          description: "Submits evidence (receipts, tracking, correspondence) to contest a {product} {noun}.",
          args: [["evidence!", "object", "Evidence fields"]],
        },
      ],
    },
    {
      noun: "balance",
      plural: "balance",
      gloss: "Funds available and pending in the {product} account.",
      fields: [],
      verbs: ["get"],
    },
    {
      noun: "payment method",
      gloss: "A saved {noun} (card, bank account, wallet) of a customer.",
      fields: [
        ["customer_id!?", "string", "Customer"],
        ["type?", "enum:card|sepa_debit|us_bank_account|wallet", "Kind"],
      ],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "attach",
          name: "attach payment method",
          description: "Saves a {noun} to a {product} customer.",
        },
        {
          verb: "detach",
          name: "detach payment method",
          description: "Removes a saved {noun} from a customer.",
        },
      ],
    },
    {
      noun: "price",
      gloss: "A {noun} (plan) says how much and how often a product costs.",
      fields: [
        ["product_id!?", "string", "Product"],
        ["unit_amount!", "integer", "Amount in cents"],
        ["currency!", "string", "Currency"],
        ["interval", "enum:day|week|month|year", "Billing interval, for recurring prices"],
      ],
      verbs: ["list", "get", "create", "archive"],
    },
    {
      noun: "coupon",
      gloss: "A {noun} (discount) takes an amount or percentage off invoices or subscriptions.",
      fields: [
        ["percent_off", "number", "Percent off"],
        ["amount_off", "integer", "Amount off"],
        ["duration!", "enum:once|repeating|forever", "How long it applies"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "payment link",
      gloss: "A {noun} is a hosted checkout page you can share by URL to get paid.",
      fields: [
        ["line_items!", "object", "Prices and quantities"],
        ["active?", "boolean", "Whether it accepts payments"],
      ],
      verbs: ["list", "get", "create", "update"],
    },
    {
      noun: "checkout session",
      gloss: "A {noun} is one customer's visit to the hosted payment page.",
      fields: [
        ["line_items!", "object", "What is bought"],
        ["success_url!", "uri", "Where to go after paying"],
        ["mode!", "enum:payment|subscription|setup", "Kind"],
      ],
      verbs: ["list", "get", "create"],
      custom: [
        { verb: "expire", name: "expire checkout session", description: "Expires an open {product} {noun}." },
      ],
    },
    {
      noun: "tax rate",
      gloss: "A {noun} (VAT, sales tax) applied to invoices.",
      fields: [
        ["percentage!", "number", "Rate"],
        ["jurisdiction?", "string", "Country or state"],
        ["inclusive!", "boolean", "Whether prices include it"],
      ],
      verbs: ["list", "create"],
    },
  ],
  products: [
    { key: "stripe", label: "Stripe", style: "snake" },
    { key: "paypal", label: "PayPal", style: "camel", rename: { payment: "order" } },
    { key: "square", label: "Square", style: "snake" },
    { key: "adyen", label: "Adyen", style: "camel", without: ["invoice", "subscription", "customer"] },
    {
      key: "braintree",
      label: "Braintree",
      style: "snake",
      rename: { payment: "transaction" },
      without: ["invoice", "payout"],
    },
    { key: "mollie", label: "Mollie", style: "kebab", without: ["dispute"] },
    {
      key: "paddle",
      label: "Paddle",
      style: "snake",
      rename: { payment: "transaction" },
      without: ["payout"],
    },
    {
      key: "klarna",
      label: "Klarna",
      style: "snake",
      without: ["subscription", "payout", "coupon", "tax rate"],
    },
    {
      key: "gocardless",
      label: "GoCardless",
      style: "kebab",
      rename: { payment: "direct debit" },
      without: ["dispute", "checkout session"],
    },
  ],
};
