import type { CategorySpec } from "../catalog-spec.js";

/** Email. */
export const EMAIL: CategorySpec = {
  category: "email",
  entities: [
    {
      noun: "email",
      gloss: "An {noun} message in the mailbox, with sender, recipients, subject, body and attachments.",
      id: ["message_id", "string", "ID of the message"],
      fields: [
        ["from?", "email", "Only mail from this sender"],
        ["subject?", "string", "Only mail with this in the subject"],
        ["unread?", "boolean", "Only unread mail"],
        ["label?", "string", "Only mail with this label or in this folder"],
      ],
      verbs: ["list", "get", "delete", "search", "archive"],
      custom: [
        {
          verb: "send",
          name: "send email",
          onItem: false,
          description: "Sends an {noun} from the connected {product} account.",
          args: [
            ["to!", "email[]", "Recipients"],
            ["cc", "email[]", "Copied recipients"],
            ["subject!", "string", "Subject line"],
            ["body!", "string", "Body, plain text or HTML"],
            ["attachments", "object", "Files to attach"],
          ],
        },
        {
          verb: "reply",
          name: "reply to email",
          description: "Replies to an {noun} in {product}, keeping it in the same thread.",
          args: [
            ["body!", "string", "Body of the reply"],
            ["reply_all", "boolean", "Reply to every recipient"],
          ],
        },
        {
          verb: "forward",
          name: "forward email",
          description: "Forwards an {noun} to other recipients.",
          args: [["to!", "email[]", "Recipients"]],
        },
        {
          verb: "mark read",
          name: "mark email as read",
          description: "Marks an {noun} read or unread in {product}.",
          args: [["read!", "boolean", "Read (true) or unread (false)"]],
        },
        {
          verb: "download attachment",
          name: "download email attachment",
          readOnly: true,
          description: "Downloads one attachment of a {product} {noun}.",
          args: [["attachment_id!", "string", "ID of the attachment"]],
        },
      ],
    },
    {
      noun: "draft",
      gloss: "A {noun} is an unsent email saved for later.",
      fields: [
        ["to", "email[]", "Recipients"],
        ["subject", "string", "Subject line"],
        ["body", "string", "Body"],
      ],
      verbs: ["list", "create", "update", "delete"],
      custom: [{ verb: "send", name: "send draft", description: "Sends a saved {product} {noun}." }],
    },
    {
      noun: "label",
      gloss: "A {noun} (folder) that organises mail in {product}.",
      fields: [["name!", "string", "Name of the label"]],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "filter",
      gloss: "A mail {noun} (rule) acts automatically on incoming messages that match its criteria.",
      fields: [
        ["criteria!", "object", "Which messages it matches"],
        ["action!", "object", "What it does: label, archive, forward, delete"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "thread",
      gloss: "A mail {noun} (conversation) groups an email and its replies.",
      fields: [["query?", "string", "Only threads matching this search"]],
      verbs: ["list", "get", "delete"],
    },
    {
      noun: "signature",
      gloss: "An email {noun} appended to the messages you send.",
      fields: [["html!", "string", "Signature content"]],
      verbs: ["get", "update"],
    },
    {
      noun: "vacation responder",
      gloss: "The {noun} (out-of-office auto-reply) answers incoming mail while you are away.",
      fields: [
        ["enabled!", "boolean", "On or off"],
        ["message!", "string", "Reply text"],
        ["start", "date-time", "From"],
        ["end", "date-time", "Until"],
      ],
      verbs: ["get", "update"],
    },
    {
      noun: "mail contact",
      gloss: "A {noun} in the address book.",
      fields: [
        ["name!", "string", "Name"],
        ["email!?", "email", "Email"],
        ["phone", "string", "Phone"],
      ],
      verbs: ["list", "get", "create", "update", "delete", "search"],
    },
  ],
  products: [
    { key: "gmail", label: "Gmail", style: "snake" },
    { key: "outlook", label: "Outlook", style: "camel", rename: { label: "folder", filter: "inbox rule" } },
    { key: "fastmail", label: "Fastmail", style: "kebab", rename: { label: "mailbox" } },
    { key: "zoho mail", label: "Zoho Mail", style: "snake", rename: { label: "folder" } },
    { key: "proton mail", label: "Proton Mail", style: "snake", rename: { label: "folder" } },
  ],
};
