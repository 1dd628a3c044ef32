import type { CategorySpec } from "../catalog-spec.js";

/** Help desks. */
export const SUPPORT: CategorySpec = {
  category: "support",
  entities: [
    {
      noun: "ticket",
      gloss:
        "A support {noun} (case) is a customer's request or complaint that agents work on until it is solved.",
      fields: [
        ["subject!", "string", "Subject"],
        ["description!", "string", "What the customer wrote"],
        ["requester_email!", "email", "Customer's email"],
        ["priority?", "enum:low|normal|high|urgent", "Priority"],
        ["status?", "enum:new|open|pending|solved|closed", "Status"],
        ["assignee_id?", "string", "Agent assigned"],
        ["tags?", "string[]", "Tags"],
      ],
      verbs: ["list", "get", "create", "update", "delete", "search", "count"],
      custom: [
        {
          verb: "reply",
          name: "reply to ticket",
          description: "Adds a public reply to a {product} {noun}, which emails the customer.",
          args: [["body!", "string", "Reply text"]],
        },
        {
          verb: "add internal note",
          name: "add internal note",
          description: "Adds a private note to a {product} {noun} that only agents see.",
          args: [["body!", "string", "Note text"]],
        },
        {
          verb: "merge",
          name: "merge tickets",
          description: "Merges duplicate {plural} into one in {product}.",
          args: [["source_ids!", "string[]", "Tickets to merge into this one"]],
        },
      ],
    },
    {
      noun: "article",
      gloss: "A help center {noun} (knowledge base entry, FAQ) that customers can read.",
      fields: [
        ["title!", "string", "Title"],
        ["body!", "string", "Content, HTML"],
        ["section_id?", "string", "Section it belongs to"],
        ["draft?", "boolean", "Whether it is unpublished"],
      ],
      verbs: ["list", "get", "create", "update", "search"],
    },
    {
      noun: "macro",
      gloss:
        "A {noun} (canned response) applies a prepared reply and field changes to a ticket in one click.",
      fields: [
        ["title!", "string", "Name"],
        ["actions!", "object", "What it does"],
      ],
      verbs: ["list", "create"],
      custom: [
        {
          verb: "apply",
          name: "apply macro",
          description: "Applies a {product} {noun} to a ticket.",
          args: [["ticket_id!", "string", "Ticket to apply it to"]],
        },
      ],
    },
    {
      noun: "satisfaction rating",
      gloss: "A customer {noun} (CSAT score) given after a ticket is solved.",
      fields: [["score?", "enum:good|bad", "Rating"]],
      verbs: ["list"],
    },
    {
      noun: "end user",
      gloss: "An {noun} (customer, requester) who contacts support.",
      fields: [
        ["email!?", "email", "Email"],
        ["name", "string", "Name"],
        ["organization_id?", "string", "Organization"],
      ],
      verbs: ["list", "get", "create", "update", "search"],
    },
    {
      noun: "organization",
      gloss: "A customer {noun} that end users belong to.",
      fields: [
        ["name!", "string", "Name"],
        ["domain_names", "string[]", "Email domains"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "agent group",
      gloss: "An {noun} (team, queue) of support agents that tickets are routed to.",
      fields: [["name!", "string", "Name"]],
      verbs: ["list", "create"],
    },
    {
      noun: "sla policy",
      plural: "sla policies",
      gloss: "An {noun} sets first-reply and resolution time targets per priority.",
      fields: [
        ["title!", "string", "Name"],
        ["targets!", "object", "Times per priority"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "trigger",
      gloss: "A {noun} (automation rule) acts on tickets when they are created or updated.",
      fields: [
        ["title!", "string", "Name"],
        ["conditions!", "object", "When it fires"],
        ["actions!", "object", "What it does"],
        ["active?", "boolean", "Enabled"],
      ],
      verbs: ["list", "create", "update", "delete"],
    },
  ],
  products: [
    { key: "zendesk", label: "Zendesk", style: "snake" },
    { key: "freshdesk", label: "Freshdesk", style: "snake", rename: { macro: "canned response" } },
    { key: "intercom", label: "Intercom", style: "camel", rename: { ticket: "conversation" } },
    {
      key: "help scout",
      label: "Help Scout",
      style: "kebab",
      rename: { ticket: "conversation", macro: "saved reply" },
    },
    {
      key: "servicenow",
      label: "ServiceNow",
      style: "camel",
      rename: { ticket: "incident" },
      without: ["macro"],
    },
    {
      key: "front",
      label: "Front",
      style: "snake",
      rename: { ticket: "conversation", macro: "message template" },
    },
    {
      key: "jira service management",
      label: "Jira Service Management",
      style: "camel",
      rename: { ticket: "request" },
    },
  ],
};
