import type { CategorySpec } from "../catalog-spec.js";

/** Smart home. */
export const SMART_HOME: CategorySpec = {
  category: "smart home",
  entities: [
    {
      noun: "light",
      gloss: "A smart {noun} (bulb) that can be switched, dimmed and coloured.",
      fields: [["room?", "string", "Room"]],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "turn on",
          name: "turn on light",
          description: "Switches a {product} {noun} on, optionally at a brightness and colour.",
          args: [
            ["brightness", "integer", "0 to 100"],
            ["color", "string", "Colour name or hex"],
          ],
        },
        { verb: "turn off", name: "turn off light", description: "Switches a {product} {noun} off." },
      ],
    },
    {
      noun: "thermostat",
      gloss: "A {noun} that heats or cools a room to a target temperature.",
      fields: [],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "set temperature",
          name: "set thermostat temperature",
          description: "Sets the target temperature of a {product} {noun}.",
          args: [["celsius!", "number", "Target temperature"]],
        },
      ],
    },
    {
      noun: "scene",
      gloss: "A {noun} sets several devices at once, like 'movie night'.",
      fields: [],
      verbs: ["list"],
      custom: [{ verb: "activate", name: "activate scene", description: "Activates a {product} {noun}." }],
    },
    {
      noun: "lock",
      gloss: "A smart door {noun}.",
      fields: [],
      verbs: ["list", "get"],
      custom: [
        { verb: "lock", name: "lock door", description: "Locks a {product} door {noun}." },
        { verb: "unlock", name: "unlock door", description: "Unlocks a {product} door {noun}." },
      ],
    },
    {
      noun: "sensor",
      gloss: "A {noun} reports temperature, humidity, motion, doors or energy.",
      fields: [["kind?", "enum:temperature|humidity|motion|contact|power", "Kind"]],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "get history",
          name: "get sensor history",
          readOnly: true,
          description: "Returns a {noun}'s readings over a time range.",
          args: [["since!", "date-time", "Start"]],
        },
      ],
    },
    {
      noun: "automation",
      gloss: "An {noun} (routine) runs actions when a trigger fires, like lights on at sunset.",
      fields: [
        ["name!", "string", "Name"],
        ["trigger!", "object", "When"],
        ["actions!", "object", "What"],
      ],
      verbs: ["list", "create", "delete"],
      custom: [
        { verb: "enable", name: "enable automation", description: "Turns an {noun} on." },
        { verb: "disable", name: "disable automation", description: "Turns an {noun} off." },
      ],
    },
    {
      noun: "camera",
      gloss: "A security {noun}.",
      fields: [],
      verbs: ["list"],
      custom: [
        {
          verb: "get snapshot",
          name: "get camera snapshot",
          readOnly: true,
          description: "Returns a current image from a {noun}.",
        },
      ],
    },
  ],
  products: [
    { key: "home assistant", label: "Home Assistant", style: "snake" },
    { key: "smartthings", label: "SmartThings", style: "camel" },
    { key: "hue", label: "Philips Hue", style: "snake", without: ["thermostat", "lock"] },
    { key: "nest", label: "Google Nest", style: "camel", without: ["light", "scene", "lock"] },
    { key: "homey", label: "Homey", style: "kebab" },
  ],
};
