import type { CategorySpec } from "../catalog-spec.js";

/** Customer relationship management. */
export const CRM: CategorySpec = {
  category: "crm",
  entities: [
    {
      noun: "contact",
      gloss: "A {noun} is a person you do business with, with email, phone and company.",
      fields: [
        ["first_name", "string", "Given name"],
        ["last_name!", "string", "Family name"],
        ["email?", "email", "Email address"],
        ["phone", "string", "Phone number"],
        ["company_id?", "string", "Company they work for"],
        ["owner_id?", "string", "Sales rep who owns the contact"],
      ],
      verbs: ["list", "get", "create", "update", "delete", "search"],
      custom: [
        {
          verb: "merge",
          name: "merge contacts",
          description: "Merges a duplicate {noun} into another in {product}, keeping the history of both.",
          args: [["duplicate_id!", "string", "Contact to merge away"]],
        },
      ],
    },
    {
      noun: "company",
      plural: "companies",
      gloss: "A {noun} (account, organization) that contacts and deals belong to.",
      fields: [
        ["name!", "string", "Company name"],
        ["domain?", "string", "Website domain"],
        ["industry?", "string", "Industry"],
        ["employees", "integer", "Head count"],
      ],
      verbs: ["list", "get", "create", "update", "delete", "search"],
    },
    {
      noun: "deal",
      gloss: "A {noun} (opportunity) is a potential sale moving through the stages of a pipeline.",
      fields: [
        ["name!", "string", "Name of the deal"],
        ["amount", "number", "Expected revenue"],
        ["stage?", "string", "Pipeline stage, e.g. Negotiation"],
        ["close_date", "date", "Expected close date"],
        ["company_id?", "string", "Company it is with"],
      ],
      verbs: ["list", "get", "create", "update", "delete"],
      custom: [
        {
          verb: "move stage",
          name: "move deal stage",
          description: "Moves a {product} {noun} to another stage of its pipeline, e.g. won or lost.",
          args: [["stage!", "string", "Target stage"]],
        },
      ],
    },
    {
      noun: "lead",
      gloss: "A {noun} is a prospect who showed interest but is not yet qualified.",
      fields: [
        ["name!", "string", "Full name"],
        ["email", "email", "Email address"],
        ["source?", "string", "Where the lead came from"],
        ["status?", "enum:new|contacted|qualified|unqualified", "Status"],
      ],
      verbs: ["list", "get", "create", "update"],
      custom: [
        {
          verb: "convert",
          name: "convert lead",
          description:
            "Converts a qualified {noun} into a contact, a company and optionally a deal in {product}.",
          args: [["create_deal", "boolean", "Also open a deal"]],
        },
      ],
    },
    {
      noun: "note",
      gloss: "A {noun} recorded on a contact, company or deal, like a call summary.",
      fields: [
        ["body!", "string", "Text of the note"],
        ["record_id!", "string", "Contact, company or deal it is about"],
      ],
      verbs: ["list", "create"],
    },
    {
      noun: "activity",
      plural: "activities",
      gloss: "An {noun} is a call, meeting or task logged against a record in {product}.",
      fields: [
        ["type!?", "enum:call|meeting|task|email", "Kind of activity"],
        ["subject!", "string", "Subject"],
        ["due", "date-time", "When it is due"],
        ["record_id?", "string", "Record it belongs to"],
      ],
      verbs: ["list", "create", "update"],
    },
    {
      noun: "crm task",
      gloss: "A {noun} (to-do, follow-up) for a sales rep, linked to a record.",
      fields: [
        ["subject!", "string", "What to do"],
        ["due_date?", "date", "Due"],
        ["owner_id?", "string", "Rep"],
        ["completed?", "boolean", "Done"],
      ],
      verbs: ["list", "create", "update", "delete"],
      custom: [
        { verb: "complete", name: "complete crm task", description: "Marks a {product} {noun} as done." },
      ],
    },
    {
      noun: "pipeline",
      gloss: "A sales {noun} is the ordered list of stages deals go through.",
      fields: [["name!", "string", "Name"]],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "quote",
      gloss: "A {noun} (proposal) with products, prices and discounts sent to a prospect.",
      fields: [
        ["deal_id!?", "string", "Deal"],
        ["line_items!", "object", "Products and prices"],
        ["expires", "date", "Valid until"],
      ],
      verbs: ["list", "get", "create"],
      custom: [{ verb: "send", name: "send quote", description: "Emails a {product} {noun} to the buyer." }],
    },
    {
      noun: "email sequence",
      gloss: "An {noun} (cadence) sends timed follow-up emails to a contact until they reply.",
      fields: [["name!", "string", "Name"]],
      verbs: ["list"],
      custom: [
        {
          verb: "enroll",
          name: "enroll in sequence",
          description: "Enrolls a contact in a {product} {noun}.",
          args: [["contact_id!", "string", "Contact"]],
        },
      ],
    },
    {
      noun: "custom field",
      gloss: "A {noun} (property) adds your own data to contacts, companies or deals.",
      fields: [
        ["label!", "string", "Label"],
        ["type!", "enum:text|number|date|dropdown", "Type"],
        ["object!?", "enum:contact|company|deal", "Which records"],
      ],
      verbs: ["list", "create", "delete"],
    },
  ],
  products: [
    {
      key: "salesforce",
      label: "Salesforce",
      style: "camel",
      rename: { company: "account", deal: "opportunity" },
    },
    { key: "hubspot", label: "HubSpot", style: "snake" },
    { key: "pipedrive", label: "Pipedrive", style: "snake", rename: { company: "organization" } },
    { key: "zoho crm", label: "Zoho CRM", style: "camel", rename: { company: "account" } },
    {
      key: "dynamics",
      label: "Dynamics 365",
      style: "pascal",
      rename: { company: "account", deal: "opportunity" },
    },
    { key: "close", label: "Close", style: "kebab", rename: { deal: "opportunity" } },
    { key: "freshsales", label: "Freshsales", style: "snake", rename: { company: "account" } },
    {
      key: "copper",
      label: "Copper",
      style: "camel",
      rename: { company: "organization", deal: "opportunity" },
    },
  ],
};
