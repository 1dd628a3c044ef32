import type { CategorySpec } from "../catalog-spec.js";

/** Monitoring, alerting and incident response. */
export const MONITORING: CategorySpec = {
  category: "monitoring",
  entities: [
    {
      noun: "monitor",
      gloss: "A {noun} watches a metric, log query or endpoint and alerts when a threshold is crossed.",
      fields: [
        ["name!", "string", "Name of the monitor"],
        ["query!", "string", "Metric or log query it evaluates"],
        ["threshold!", "number", "Value that triggers the alert"],
        ["notify", "string[]", "Channels or people to notify"],
        ["muted?", "boolean", "Whether notifications are muted"],
      ],
      verbs: ["list", "get", "create", "update", "delete"],
      custom: [
        {
          verb: "mute",
          name: "mute monitor",
          description: "Silences a {product} {noun} for a while, e.g. during maintenance.",
          args: [["until", "date-time", "When notifications resume"]],
        },
      ],
    },
    {
      noun: "incident",
      gloss: "An {noun} is an outage or degradation that someone must respond to.",
      fields: [
        ["title!", "string", "What is wrong"],
        ["severity!?", "enum:sev1|sev2|sev3|sev4", "How bad it is"],
        ["service?", "string", "Affected service"],
        ["status?", "enum:triggered|acknowledged|resolved", "State of the incident"],
      ],
      verbs: ["list", "get", "create", "update"],
      custom: [
        {
          verb: "acknowledge",
          name: "acknowledge incident",
          description: "Acknowledges a {product} {noun} so escalation stops.",
        },
        {
          verb: "resolve",
          name: "resolve incident",
          description: "Marks a {product} {noun} as resolved.",
          args: [["resolution", "string", "What fixed it"]],
        },
        {
          verb: "escalate",
          name: "escalate incident",
          description: "Escalates an {noun} to the next level of the escalation policy.",
        },
      ],
    },
    {
      noun: "metric",
      gloss: "A {noun} is a named time series, like CPU usage or request latency.",
      id: ["metric_name", "string", "Name of the metric"],
      fields: [["prefix?", "string", "Only metrics whose name starts with this"]],
      verbs: ["list"],
      custom: [
        {
          verb: "query",
          name: "query metrics",
          onItem: false,
          readOnly: true,
          description: "Runs a {product} metrics query over a time range and returns the data points.",
          args: [
            ["query!", "string", "The metrics query"],
            ["from!", "date-time", "Start of the range"],
            ["to!", "date-time", "End of the range"],
          ],
        },
      ],
    },
    {
      noun: "log",
      gloss: "{product} {noun} lines collected from hosts and services.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "search",
          name: "search logs",
          onItem: false,
          readOnly: true,
          description: "Searches {product} logs with a query over a time range, newest first.",
          args: [
            ["query!", "string", "Log query, e.g. service:api status:error"],
            ["from", "date-time", "Start of the range"],
            ["to", "date-time", "End of the range"],
          ],
        },
      ],
    },
    {
      noun: "dashboard",
      gloss: "A {noun} arranges graphs of metrics on one page.",
      fields: [
        ["title!", "string", "Title of the dashboard"],
        ["widgets", "object", "Graph definitions"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "on-call schedule",
      gloss: "An {noun} says who is on call, and when, for a team.",
      id: ["schedule_id", "string", "ID of the schedule"],
      fields: [["team?", "string", "Team of the schedule"]],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "who is on call",
          name: "get current on call",
          onItem: false,
          readOnly: true,
          description: "Returns who is on call right now in {product}, per schedule or team.",
          args: [["team", "string", "Only this team"]],
        },
      ],
    },
    {
      noun: "downtime",
      gloss: "A {noun} (maintenance window, silence) mutes alerts for a scope during planned work.",
      fields: [
        ["scope!", "string", "Hosts or services affected"],
        ["start!", "date-time", "Start"],
        ["end!", "date-time", "End"],
        ["message", "string", "Why"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "synthetic test",
      gloss:
        "A {noun} checks an API endpoint or a browser journey from several locations every few minutes (uptime check).",
      fields: [
        ["name!", "string", "Name"],
        ["url!", "uri", "What to check"],
        ["frequency_seconds", "integer", "How often"],
        ["locations", "string[]", "Where from"],
      ],
      verbs: ["list", "get", "create", "delete"],
      custom: [
        {
          verb: "run",
          name: "run synthetic test",
          description: "Runs a {product} {noun} now and returns the result.",
        },
      ],
    },
    {
      noun: "slo",
      gloss:
        "A service level objective ({noun}) targets an availability or latency over a window, with an error budget.",
      id: ["slo_id", "string", "ID of the SLO"],
      fields: [
        ["name!", "string", "Name"],
        ["target!", "number", "Target, e.g. 99.9"],
        ["window", "enum:7d|30d|90d", "Rolling window"],
      ],
      verbs: ["list", "get", "create", "delete"],
      custom: [
        {
          verb: "get error budget",
          name: "get slo error budget",
          readOnly: true,
          description: "Returns how much of an {noun}'s error budget is left and how fast it burns.",
        },
      ],
    },
    {
      noun: "status page incident",
      gloss: "A {noun} tells customers about an outage on the public status page.",
      fields: [
        ["title!", "string", "Headline"],
        ["message!", "string", "What customers see"],
        ["status?", "enum:investigating|identified|monitoring|resolved", "Stage"],
      ],
      verbs: ["list", "create", "update"],
    },
  ],
  products: [
    { key: "datadog", label: "Datadog", style: "snake", without: ["on-call schedule", "incident"] },
    {
      key: "pagerduty",
      label: "PagerDuty",
      style: "snake",
      without: ["metric", "log", "dashboard", "monitor"],
    },
    {
      key: "opsgenie",
      label: "Opsgenie",
      style: "camel",
      rename: { incident: "alert" },
      without: ["metric", "log", "dashboard", "monitor"],
    },
    {
      key: "grafana",
      label: "Grafana",
      style: "kebab",
      rename: { monitor: "alert rule" },
      without: ["incident"],
    },
    {
      key: "new relic",
      label: "New Relic",
      style: "camel",
      rename: { monitor: "alert condition" },
      without: ["on-call schedule"],
    },
    {
      key: "sentry",
      label: "Sentry",
      style: "snake",
      without: ["monitor", "metric", "log", "dashboard", "on-call schedule", "incident"],
      extra: [
        {
          noun: "error",
          gloss:
            "An {noun} groups exceptions with the same stack trace that an application reported, with counts.",
          parent: { noun: "project", fields: [["project_slug", "string", "Slug of the project"]] },
          id: ["issue_id", "string", "ID of the error group"],
          fields: [
            ["status?", "enum:unresolved|resolved|ignored", "State of the error group"],
            ["environment?", "string", "Environment, e.g. production"],
          ],
          verbs: ["list", "get", "update", "search"],
          custom: [
            {
              verb: "get latest event",
              name: "get error latest event",
              readOnly: true,
              description: "Returns the most recent occurrence of an {noun}: stack trace, tags, breadcrumbs.",
            },
            { verb: "resolve", name: "resolve error", description: "Marks a {product} {noun} as resolved." },
          ],
        },
      ],
    },
    {
      key: "honeycomb",
      label: "Honeycomb",
      style: "snake",
      without: ["on-call schedule", "incident", "status page incident"],
    },
    {
      key: "incident io",
      label: "incident.io",
      style: "kebab",
      without: ["metric", "log", "dashboard", "monitor", "synthetic test"],
    },
  ],
};
