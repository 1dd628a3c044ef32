import type { CategorySpec } from "../catalog-spec.js";

/** Bulk and transactional email, marketing. */
export const EMAIL_MARKETING: CategorySpec = {
  category: "email marketing",
  entities: [
    {
      noun: "campaign",
      gloss: "An email {noun} is a newsletter or announcement sent to an audience list.",
      fields: [
        ["name!", "string", "Internal name"],
        ["subject!", "string", "Subject line"],
        ["list_id!", "string", "Audience to send to"],
        ["html!", "string", "Content"],
        ["status?", "enum:draft|scheduled|sent", "Status"],
      ],
      verbs: ["list", "get", "create", "update", "delete"],
      custom: [
        {
          verb: "send",
          name: "send campaign",
          description: "Sends a {product} {noun} now, or at a scheduled time.",
          args: [["send_at", "date-time", "When to send; now when absent"]],
        },
        {
          verb: "get report",
          name: "get campaign report",
          readOnly: true,
          description: "Returns opens, clicks, bounces and unsubscribes for a sent {noun}.",
        },
      ],
    },
    {
      noun: "subscriber",
      gloss: "A {noun} (contact) on a mailing list, with consent status.",
      parent: { noun: "list", fields: [["list_id", "string", "ID of the audience list"]] },
      id: ["email", "email", "Email address of the subscriber"],
      fields: [
        ["email!", "email", "Email address"],
        ["merge_fields", "object", "First name, last name and other fields"],
        ["status?", "enum:subscribed|unsubscribed|cleaned|pending", "Consent status"],
      ],
      verbs: ["list", "get", "create", "update", "delete"],
      custom: [
        {
          verb: "unsubscribe",
          name: "unsubscribe",
          description: "Unsubscribes a {noun} from a {product} list.",
        },
      ],
    },
    {
      noun: "template",
      gloss: "An email {noun} with reusable layout and placeholders.",
      fields: [
        ["name!", "string", "Name"],
        ["html!", "string", "Content"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "list",
      gloss: "An audience {noun} (mailing list) of subscribers.",
      id: ["list_id", "string", "ID of the list"],
      fields: [
        ["name!", "string", "Name"],
        ["from_email", "email", "Default sender"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "segment",
      gloss: "A {noun} is a filtered part of a list (e.g. opened in the last 30 days).",
      parent: { noun: "list", fields: [["list_id", "string", "ID of the audience list"]] },
      fields: [
        ["name!", "string", "Name"],
        ["conditions!", "object", "Who is in it"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "automation",
      gloss: "An {noun} (drip sequence) sends a series of emails triggered by a signup or behaviour.",
      fields: [
        ["name!", "string", "Name"],
        ["trigger!", "string", "What starts it"],
      ],
      verbs: ["list", "get"],
      custom: [
        { verb: "start", name: "start automation", description: "Starts a paused {product} {noun}." },
        { verb: "pause", name: "pause automation", description: "Pauses a {product} {noun}." },
      ],
    },
  ],
  products: [
    { key: "mailchimp", label: "Mailchimp", style: "snake" },
    { key: "sendgrid", label: "SendGrid", style: "snake", rename: { subscriber: "contact" } },
    { key: "brevo", label: "Brevo", style: "camel", rename: { subscriber: "contact" } },
    { key: "convertkit", label: "ConvertKit", style: "kebab", rename: { campaign: "broadcast" } },
    {
      key: "klaviyo",
      label: "Klaviyo",
      style: "snake",
      rename: { automation: "flow", subscriber: "profile" },
    },
    {
      key: "customer io",
      label: "Customer.io",
      style: "camel",
      rename: { subscriber: "person", automation: "journey" },
    },
  ],
};
