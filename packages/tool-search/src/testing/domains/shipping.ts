import type { CategorySpec } from "../catalog-spec.js";

/** Parcel shipping. */
export const SHIPPING: CategorySpec = {
  category: "shipping",
  entities: [
    {
      noun: "shipment",
      gloss: "A {noun} is a parcel sent with a carrier from one address to another.",
      fields: [
        ["from_address!", "object", "Sender address"],
        ["to_address!", "object", "Recipient address"],
        ["parcel!", "object", "Weight and dimensions"],
        ["service_level", "string", "e.g. express, ground"],
      ],
      verbs: ["list", "get", "create"],
      custom: [
        {
          verb: "track",
          name: "track shipment",
          readOnly: true,
          description: "Returns where a {product} parcel is now and its delivery events (tracking).",
        },
        {
          verb: "buy label",
          name: "buy shipping label",
          description: "Buys a postage label for a {product} {noun} and returns the printable PDF.",
          args: [["rate_id!", "string", "Chosen rate"]],
        },
        {
          verb: "schedule pickup",
          name: "schedule pickup",
          description: "Books a courier pickup of a {product} {noun} at the sender's address.",
          args: [["pickup_date!", "date", "Date"]],
        },
      ],
    },
    {
      noun: "rate",
      gloss: "A shipping {noun} (quote) for a parcel with a carrier's service.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get rates",
          name: "get shipping rates",
          onItem: false,
          readOnly: true,
          description:
            "Compares what each {product} service would charge and how long it would take to ship a parcel.",
          args: [
            ["from_postal_code!", "string", "Origin postal code"],
            ["to_postal_code!", "string", "Destination postal code"],
            ["weight_kg!", "number", "Weight"],
          ],
        },
      ],
    },
    {
      noun: "address",
      plural: "addresses",
      gloss: "A postal {noun}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "validate",
          name: "validate address",
          onItem: false,
          readOnly: true,
          description: "Checks that a postal address is deliverable with {product} and suggests corrections.",
          args: [["address!", "object", "Street, city, postal code, country"]],
        },
      ],
    },
    {
      noun: "return label",
      gloss: "A prepaid {noun} the customer uses to send a parcel back.",
      fields: [["shipment_id!?", "string", "Original shipment"]],
      verbs: ["list", "create"],
    },
    {
      noun: "customs declaration",
      gloss: "A {noun} lists contents, value and origin for international parcels.",
      fields: [
        ["items!", "object", "Contents"],
        ["contents_type!", "enum:merchandise|gift|documents|sample", "Type"],
      ],
      verbs: ["create", "get"],
    },
    {
      noun: "manifest",
      gloss: "A {noun} (end-of-day form) hands the day's parcels to the carrier.",
      fields: [["ship_date!", "date", "Date"]],
      verbs: ["list", "create"],
    },
    {
      noun: "service point",
      gloss: "A {noun} (parcel shop, locker) where customers pick up parcels.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "find",
          name: "find service points",
          onItem: false,
          readOnly: true,
          description: "Finds {product} pickup points and parcel lockers near an address.",
          args: [["postal_code!", "string", "Postal code"]],
        },
      ],
    },
  ],
  products: [
    { key: "fedex", label: "FedEx", style: "snake" },
    { key: "ups", label: "UPS", style: "snake" },
    { key: "dhl", label: "DHL", style: "camel" },
    { key: "shippo", label: "Shippo", style: "snake" },
    { key: "easypost", label: "EasyPost", style: "camel" },
    { key: "postnord", label: "PostNord", style: "kebab" },
    { key: "sendcloud", label: "Sendcloud", style: "snake" },
    { key: "usps", label: "USPS", style: "camel" },
  ],
};
