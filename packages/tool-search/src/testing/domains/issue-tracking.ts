import type { CategorySpec, FieldTuple } from "../catalog-spec.js";

const PROJECT_KEY: readonly FieldTuple[] = [["project_key", "string", "Key of the project, e.g. ENG"]];

/** Issue trackers and project management. */
export const ISSUE_TRACKING: CategorySpec = {
  category: "issue tracking",
  entities: [
    {
      noun: "issue",
      gloss:
        "An {noun} (a ticket) is a unit of work — bug, story or task — with a status, assignee and priority.",
      parent: { noun: "project", fields: PROJECT_KEY },
      id: ["issue_key", "string", "Key of the issue, e.g. ENG-42"],
      fields: [
        ["summary!", "string", "One-line summary"],
        ["description", "string", "Full description"],
        ["issue_type!?", "enum:bug|story|task|epic", "Kind of issue"],
        ["priority?", "enum:lowest|low|medium|high|highest", "Priority"],
        ["assignee?", "string", "User the issue is assigned to"],
        ["status?", "string", "Workflow status, e.g. In Progress"],
        ["due_date", "date", "When it is due"],
      ],
      verbs: ["list", "get", "create", "update", "delete", "search", "count"],
      custom: [
        {
          verb: "transition",
          name: "transition issue",
          description:
            "Moves an {noun} to another workflow status in {product} (e.g. To Do → In Progress → Done).",
          args: [["status!", "string", "Target status"]],
        },
        {
          verb: "assign",
          name: "assign issue",
          description: "Assigns a {product} {noun} to a user, or unassigns it.",
          args: [["assignee!", "string", "User to assign; empty to unassign"]],
        },
        {
          verb: "link",
          name: "link issues",
          description: "Links two {plural} in {product} (blocks, relates to, duplicates).",
          args: [
            ["target_issue_key!", "string", "The other issue"],
            ["link_type!", "enum:blocks|relates|duplicates", "Kind of link"],
          ],
        },
        {
          verb: "log work",
          name: "log work on issue",
          description: "Records time spent on an {noun} in {product} (a worklog entry).",
          args: [
            ["time_spent!", "string", "Duration, e.g. 2h 30m"],
            ["comment", "string", "What was done"],
          ],
        },
      ],
    },
    {
      noun: "comment",
      gloss: "A {noun} on an issue, visible to everyone who can see the issue.",
      parent: { noun: "issue", fields: [["issue_key", "string", "Key of the issue"]] },
      fields: [["body!", "string", "Text of the comment"]],
      verbs: ["list", "create", "update", "delete"],
    },
    {
      noun: "project",
      gloss: "A {noun} groups issues of one team or product, with its own workflow.",
      id: ["project_key", "string", "Key of the project"],
      fields: [
        ["name!", "string", "Name of the project"],
        ["lead", "string", "User who leads the project"],
        ["description", "string", "What the project is about"],
      ],
      verbs: ["list", "get", "create", "archive"],
    },
    {
      noun: "sprint",
      gloss: "A {noun} is a fixed time box, usually two weeks, in which a team completes a set of issues.",
      parent: { noun: "board", fields: [["board_id", "integer", "ID of the board"]] },
      fields: [
        ["name!", "string", "Name of the sprint"],
        ["start_date", "date-time", "When it starts"],
        ["end_date", "date-time", "When it ends"],
        ["goal", "string", "What the sprint should achieve"],
        ["state?", "enum:future|active|closed", "State of the sprint"],
      ],
      verbs: ["list", "get", "create", "update"],
      custom: [
        {
          verb: "add issues",
          name: "add issues to sprint",
          description: "Moves {product} issues into a {noun}.",
          args: [["issue_keys!", "string[]", "Issues to move"]],
        },
      ],
    },
    {
      noun: "board",
      gloss: "A {noun} shows issues as cards in columns (Kanban or Scrum).",
      id: ["board_id", "integer", "ID of the board"],
      fields: [
        ["name!", "string", "Name of the board"],
        ["type?", "enum:scrum|kanban", "Kind of board"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "label",
      gloss: "A {noun} is a tag used to categorise issues.",
      fields: [
        ["name!", "string", "Label text"],
        ["color", "string", "Colour as hex, e.g. #ff0000"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "attachment",
      gloss: "An {noun} is a file uploaded to an issue.",
      parent: { noun: "issue", fields: [["issue_key", "string", "Key of the issue"]] },
      fields: [
        ["file_name!", "string", "Name of the file"],
        ["content_base64!", "string", "File content, Base64-encoded"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "version",
      gloss: "A {noun} (release, fix version) that issues are planned for.",
      parent: { noun: "project", fields: PROJECT_KEY },
      fields: [
        ["name!", "string", "Name, e.g. 2.4.0"],
        ["release_date", "date", "Planned release date"],
        ["released?", "boolean", "Whether it is released"],
      ],
      verbs: ["list", "get", "create", "update"],
      custom: [
        { verb: "release", name: "release version", description: "Marks a {product} {noun} as released." },
      ],
    },
    {
      noun: "component",
      gloss: "A {noun} is a part of a project (e.g. backend, mobile app) that issues are filed against.",
      parent: { noun: "project", fields: PROJECT_KEY },
      fields: [
        ["name!", "string", "Name"],
        ["lead", "string", "Default assignee"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "saved filter",
      gloss: "A {noun} is a stored issue query that people reuse and subscribe to.",
      fields: [
        ["name!", "string", "Name"],
        ["query!", "string", "The query, e.g. assignee = currentUser()"],
        ["favourite?", "boolean", "Only starred filters"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "watcher",
      gloss: "A {noun} gets notified of every change to an issue.",
      parent: { noun: "issue", fields: [["issue_key", "string", "Key of the issue"]] },
      id: ["user", "string", "The user"],
      fields: [],
      verbs: ["list"],
      custom: [
        {
          verb: "add",
          name: "add watcher",
          description: "Subscribes a user to notifications about a {product} issue.",
        },
        {
          verb: "remove",
          name: "remove watcher",
          description: "Stops a user's notifications about a {product} issue.",
        },
      ],
    },
    {
      noun: "workflow",
      gloss: "A {noun} defines the statuses an issue moves through and the transitions between them.",
      fields: [["name?", "string", "Name"]],
      verbs: ["list", "get"],
    },
  ],
  products: [
    { key: "jira", label: "Jira", style: "snake" },
    {
      key: "linear",
      label: "Linear",
      style: "camel",
      without: ["board", "attachment"],
      rename: { sprint: "cycle" },
    },
    {
      key: "asana",
      label: "Asana",
      style: "snake",
      rename: { issue: "task", sprint: "milestone", board: "section" },
      without: ["label"],
    },
    {
      key: "trello",
      label: "Trello",
      style: "camel",
      rename: { issue: "card", project: "workspace" },
      without: ["sprint"],
    },
    { key: "clickup", label: "ClickUp", style: "kebab", rename: { issue: "task", project: "space" } },
    { key: "youtrack", label: "YouTrack", style: "snake", without: ["board"] },
    { key: "monday", label: "monday.com", style: "dot", rename: { issue: "item" }, without: ["sprint"] },
    { key: "shortcut", label: "Shortcut", style: "snake", rename: { issue: "story" } },
    { key: "plane", label: "Plane", style: "kebab", rename: { issue: "work item" }, without: ["board"] },
  ],
};
