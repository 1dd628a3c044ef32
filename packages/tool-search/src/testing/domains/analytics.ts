import type { CategorySpec } from "../catalog-spec.js";

/** Product and web analytics, advertising. */
export const ANALYTICS: CategorySpec = {
  category: "analytics",
  entities: [
    {
      noun: "report",
      gloss: "An analytics {noun} of users, sessions, page views and conversions over a date range.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "run report",
          name: "run report",
          onItem: false,
          readOnly: true,
          description: "Runs a {product} {noun} with dimensions and metrics over a date range.",
          args: [
            ["metrics!", "string[]", "e.g. activeUsers, sessions"],
            ["dimensions", "string[]", "e.g. country, pagePath"],
            ["start_date!", "date", "Start"],
            ["end_date!", "date", "End"],
          ],
        },
        {
          verb: "get realtime",
          name: "get realtime users",
          onItem: false,
          readOnly: true,
          description: "Returns how many people are on the site or app right now, per page and country.",
        },
      ],
    },
    {
      noun: "event",
      gloss: "A tracked {noun} (a user action like signup or purchase) with properties.",
      fields: [
        ["event_name!?", "string", "Name of the event"],
        ["user_id!", "string", "Who did it"],
        ["properties", "object", "Event properties"],
      ],
      verbs: ["list"],
      custom: [
        {
          verb: "track",
          name: "track event",
          onItem: false,
          description: "Sends a custom {noun} for a user to {product}.",
          args: [
            ["event_name!", "string", "Name"],
            ["user_id!", "string", "User"],
            ["properties", "object", "Properties"],
          ],
        },
      ],
    },
    {
      noun: "funnel",
      gloss: "A {noun} measures how many users go through a sequence of steps, and where they drop off.",
      fields: [["steps!", "string[]", "Event names, in order"]],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "cohort",
      gloss: "A {noun} is a group of users who share a trait, used for retention analysis.",
      fields: [["definition!", "object", "Who belongs to it"]],
      verbs: ["list", "create"],
    },
    {
      noun: "dashboard",
      gloss: "An analytics {noun} of saved charts.",
      fields: [["name!", "string", "Name"]],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "user profile",
      gloss: "A {noun} shows one user's properties and the events they did.",
      id: ["distinct_id", "string", "User"],
      fields: [],
      verbs: ["get", "delete"],
      custom: [
        {
          verb: "get activity",
          name: "get user activity",
          readOnly: true,
          description: "Returns the event stream of one user in {product}.",
        },
      ],
    },
    {
      noun: "annotation",
      gloss: "An {noun} marks a date on charts, e.g. a release or campaign launch.",
      fields: [
        ["date!", "date", "Date"],
        ["text!", "string", "Note"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "retention",
      plural: "retention",
      gloss: "How many users come back after their first visit.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get retention",
          name: "get retention",
          onItem: false,
          readOnly: true,
          description:
            "Returns the share of users who return day by day or week by week after they start, in {product}.",
          args: [
            ["start_event!", "string", "First event"],
            ["return_event!", "string", "Return event"],
          ],
        },
      ],
    },
  ],
  products: [
    { key: "google analytics", label: "Google Analytics", style: "snake", without: ["funnel", "cohort"] },
    { key: "mixpanel", label: "Mixpanel", style: "snake" },
    { key: "amplitude", label: "Amplitude", style: "camel" },
    { key: "posthog", label: "PostHog", style: "snake" },
    { key: "segment", label: "Segment", style: "camel", without: ["funnel", "cohort", "report"] },
    { key: "plausible", label: "Plausible", style: "kebab", without: ["funnel", "cohort", "event"] },
    { key: "heap", label: "Heap", style: "snake" },
  ],
};
