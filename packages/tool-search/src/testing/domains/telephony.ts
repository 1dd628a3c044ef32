import type { CategorySpec } from "../catalog-spec.js";

/** SMS, voice and verification. */
export const TELEPHONY: CategorySpec = {
  category: "telephony",
  entities: [
    {
      noun: "sms",
      plural: "sms messages",
      gloss: "An {noun} text message sent to or from a phone number.",
      id: ["message_sid", "string", "ID of the message"],
      fields: [
        ["to?", "string", "Phone number in E.164 form, e.g. +4712345678"],
        ["from?", "string", "Sending number"],
      ],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "send",
          name: "send sms",
          onItem: false,
          description: "Sends a text message ({noun}) to a mobile phone through {product}.",
          args: [
            ["to!", "string", "Phone number in E.164 form"],
            ["body!", "string", "Text of the message"],
            ["from", "string", "Sending number"],
          ],
        },
      ],
    },
    {
      noun: "call",
      gloss: "A phone {noun} placed or received through {product}.",
      fields: [
        ["to!?", "string", "Number to call"],
        ["from!", "string", "Caller number"],
        ["status?", "enum:queued|ringing|in-progress|completed|failed", "Status"],
      ],
      verbs: ["list", "get", "create"],
      custom: [{ verb: "hang up", name: "hang up call", description: "Ends an active {product} {noun}." }],
    },
    {
      noun: "phone number",
      gloss: "A {noun} rented from {product}, for sending and receiving calls and texts.",
      fields: [
        ["country?", "string", "Country code, e.g. NO"],
        ["area_code?", "string", "Area code"],
      ],
      verbs: ["list", "delete"],
      custom: [
        {
          verb: "buy",
          name: "buy phone number",
          onItem: false,
          description: "Buys (provisions) a new {noun} from {product}.",
          args: [["phone_number!", "string", "The number to buy"]],
        },
      ],
    },
    {
      noun: "verification",
      gloss: "A {noun} sends a one-time code (OTP) by text or voice to prove a user owns a phone number.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "start",
          name: "start verification",
          onItem: false,
          description: "Sends a one-time passcode to a phone number with {product} Verify.",
          args: [
            ["to!", "string", "Phone number"],
            ["channel", "enum:sms|call|email", "How to send the code"],
          ],
        },
        {
          verb: "check",
          name: "check verification",
          onItem: false,
          readOnly: true,
          description: "Checks whether the code a user typed matches the one {product} sent.",
          args: [
            ["to!", "string", "Phone number"],
            ["code!", "string", "Code the user entered"],
          ],
        },
      ],
    },
    {
      noun: "call recording",
      gloss: "A {noun} is the audio of a phone call.",
      fields: [["call_id?", "string", "Only recordings of this call"]],
      verbs: ["list", "get", "delete"],
    },
    {
      noun: "conference",
      gloss: "A {noun} call joins several phone participants.",
      fields: [["status?", "enum:init|in-progress|completed", "Status"]],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "add participant",
          name: "add conference participant",
          description: "Dials a number into a {product} {noun}.",
          args: [["to!", "string", "Number to dial"]],
        },
      ],
    },
    {
      noun: "usage record",
      gloss: "A {noun} counts messages and minutes billed by {product} in a period.",
      fields: [["category?", "string", "e.g. sms, calls"]],
      verbs: ["list"],
    },
  ],
  products: [
    { key: "twilio", label: "Twilio", style: "snake" },
    { key: "vonage", label: "Vonage", style: "camel" },
    { key: "messagebird", label: "MessageBird", style: "kebab", without: ["call"] },
    { key: "plivo", label: "Plivo", style: "snake", without: ["verification"] },
    { key: "sinch", label: "Sinch", style: "camel" },
  ],
};
