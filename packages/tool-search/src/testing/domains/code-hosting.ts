import type { CategorySpec, FieldTuple } from "../catalog-spec.js";

const REPO: readonly FieldTuple[] = [
  ["owner", "string", "Account or organization that owns the repository"],
  ["repo", "string", "Name of the repository"],
];

/** Code hosting: repositories, issues, pull requests, branches, releases. */
export const CODE_HOSTING: CategorySpec = {
  category: "code hosting",
  entities: [
    {
      noun: "repository",
      plural: "repositories",
      gloss: "A {noun} holds a project's source code, its history and settings.",
      id: ["repo", "string", "Name of the repository"],
      fields: [
        ["name!", "string", "Name of the new repository"],
        ["description", "string", "Short description shown on the repository page"],
        ["private?", "boolean", "Whether only collaborators can see it"],
        ["default_branch", "string", "Branch checked out by default"],
        ["topics", "string[]", "Topics used to classify the repository"],
      ],
      verbs: ["list", "get", "create", "update", "delete", "search", "archive"],
      custom: [
        {
          verb: "fork",
          description: "Forks a {product} {noun} into your account or an organization.",
          args: [["organization", "string", "Organization to fork into; your account when absent"]],
        },
        {
          verb: "transfer",
          description: "Transfers ownership of a {product} {noun} to another user or organization.",
          args: [["new_owner!", "string", "User or organization receiving the repository"]],
          destructive: true,
        },
      ],
    },
    {
      noun: "issue",
      gloss: "An {noun} tracks a bug report, task or feature request in a repository.",
      parent: { noun: "repository", fields: REPO },
      id: ["issue_number", "integer", "Number of the issue within the repository"],
      fields: [
        ["title!", "string", "Title of the issue"],
        ["body", "string", "Text of the issue, in Markdown"],
        ["state?", "enum:open|closed", "Whether the issue is open or closed"],
        ["labels?", "string[]", "Label names to apply"],
        ["assignees?", "string[]", "Logins of the people assigned"],
        ["milestone?", "integer", "Number of the milestone it belongs to"],
      ],
      verbs: ["list", "get", "create", "update", "search"],
      custom: [
        {
          verb: "close",
          description: "Closes an open {noun} in {where}, as completed or not planned.",
          args: [["reason", "enum:completed|not_planned", "Why the issue is closed"]],
        },
        { verb: "reopen", description: "Reopens a closed {noun} in {where}." },
        {
          verb: "lock",
          description: "Locks the conversation on a {product} {noun} so only collaborators can comment.",
          args: [
            ["lock_reason", "enum:off-topic|too heated|resolved|spam", "Why the conversation is locked"],
          ],
        },
        {
          verb: "add labels",
          name: "add labels to issue",
          description: "Adds labels to an {noun} in {where}, keeping the ones it has.",
          args: [["labels!", "string[]", "Label names to add"]],
        },
        {
          verb: "comment",
          name: "comment on issue",
          description: "Posts a comment on a {product} {noun}.",
          args: [["body!", "string", "Text of the comment, in Markdown"]],
        },
      ],
    },
    {
      noun: "pull request",
      gloss: "A {noun} proposes merging the commits of one branch into another, with review and checks.",
      parent: { noun: "repository", fields: REPO },
      id: ["pull_number", "integer", "Number of the pull request"],
      fields: [
        ["title!", "string", "Title of the pull request"],
        ["head!", "string", "Branch that holds the changes"],
        ["base!", "string", "Branch the changes should be merged into"],
        ["body", "string", "Description of the change, in Markdown"],
        ["draft?", "boolean", "Whether it is a draft"],
        ["state?", "enum:open|closed|merged", "State of the pull request"],
      ],
      verbs: ["list", "get", "create", "update"],
      custom: [
        {
          verb: "merge",
          description: "Merges a {noun} of {where} into its base branch.",
          args: [["merge_method", "enum:merge|squash|rebase", "How the commits are combined"]],
        },
        {
          verb: "request review",
          name: "request review for pull request",
          description: "Asks people or teams to review a {product} {noun}.",
          args: [["reviewers!", "string[]", "Logins of the requested reviewers"]],
        },
        {
          verb: "list files",
          name: "list pull request files",
          description: "Lists the files a {noun} changes, with additions and deletions per file.",
          readOnly: true,
        },
        {
          verb: "approve",
          description: "Submits an approving review on a {product} {noun}.",
          args: [["body", "string", "Optional review comment"]],
        },
      ],
    },
    {
      noun: "branch",
      plural: "branches",
      gloss: "A {noun} is a movable line of development in a repository.",
      parent: { noun: "repository", fields: REPO },
      id: ["branch", "string", "Name of the branch"],
      fields: [
        ["name!", "string", "Name of the new branch"],
        ["from_ref!", "string", "Commit SHA or branch to start from"],
        ["protected?", "boolean", "Whether the branch is protected"],
      ],
      verbs: ["list", "get", "create", "delete"],
      custom: [
        {
          verb: "protect",
          name: "protect branch",
          description:
            "Turns on branch protection for a {product} {noun}: required reviews and status checks before merging.",
          args: [["required_approvals", "integer", "Approvals needed before merging"]],
        },
      ],
    },
    {
      noun: "commit",
      gloss: "A {noun} is one recorded change to a repository's files, with its author and message.",
      parent: { noun: "repository", fields: REPO },
      id: ["sha", "string", "SHA of the commit"],
      fields: [
        ["author?", "string", "Only commits by this author"],
        ["path?", "string", "Only commits touching this file path"],
        ["since?", "date-time", "Only commits after this time"],
      ],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "compare",
          name: "compare commits",
          onItem: false,
          readOnly: true,
          description: "Compares two commits, branches or tags of {where} and returns the diff between them.",
          args: [
            ["base!", "string", "The older ref"],
            ["head!", "string", "The newer ref"],
          ],
        },
      ],
    },
    {
      noun: "release",
      gloss: "A {noun} publishes a tagged version of the software with release notes and binaries.",
      parent: { noun: "repository", fields: REPO },
      fields: [
        ["tag_name!", "string", "Tag the release points at"],
        ["name", "string", "Title of the release"],
        ["body", "string", "Release notes, in Markdown"],
        ["prerelease?", "boolean", "Whether it is a pre-release"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "file",
      gloss: "A {noun} in the repository's tree at a given branch or commit.",
      parent: { noun: "repository", fields: REPO },
      id: ["path", "string", "Path of the file in the repository"],
      fields: [
        ["ref", "string", "Branch, tag or commit; the default branch when absent"],
        ["content!", "string", "New content of the file"],
        ["message!", "string", "Commit message"],
      ],
      verbs: ["get", "update", "delete"],
    },
    {
      noun: "workflow run",
      gloss: "A {noun} is one execution of a CI workflow triggered by a push, a schedule or by hand.",
      parent: { noun: "repository", fields: REPO },
      id: ["run_id", "integer", "ID of the workflow run"],
      fields: [
        ["status?", "enum:queued|in_progress|completed|failure|success", "Status of the run"],
        ["branch?", "string", "Branch the run was triggered on"],
      ],
      verbs: ["list", "get"],
      custom: [
        { verb: "rerun", name: "rerun workflow run", description: "Re-runs a failed {noun} in {where}." },
        { verb: "cancel", name: "cancel workflow run", description: "Cancels a queued or running {noun}." },
        {
          verb: "download logs",
          name: "download workflow run logs",
          readOnly: true,
          description: "Downloads the logs of a {noun}, as an archive of the job outputs.",
        },
      ],
    },
    {
      noun: "label",
      gloss: "A {noun} categorises issues and pull requests by name and colour.",
      parent: { noun: "repository", fields: REPO },
      id: ["name", "string", "Name of the label"],
      fields: [
        ["name!", "string", "Name of the label"],
        ["color", "string", "Colour as hex, without #"],
        ["description", "string", "What the label means"],
      ],
      verbs: ["list", "create", "update", "delete"],
    },
    {
      noun: "milestone",
      gloss: "A {noun} groups issues and pull requests toward a target date, like a version.",
      parent: { noun: "repository", fields: REPO },
      id: ["milestone_number", "integer", "Number of the milestone"],
      fields: [
        ["title!", "string", "Title"],
        ["due_on", "date-time", "Due date"],
        ["state?", "enum:open|closed", "State"],
      ],
      verbs: ["list", "get", "create", "update", "delete"],
    },
    {
      noun: "collaborator",
      gloss: "A {noun} is a person with access to a repository, and a permission level.",
      parent: { noun: "repository", fields: REPO },
      id: ["username", "string", "Login of the person"],
      fields: [["permission?", "enum:read|triage|write|maintain|admin", "Access level"]],
      verbs: ["list"],
      custom: [
        {
          verb: "add",
          name: "add collaborator",
          description: "Invites a person to a {product} repository with a permission level.",
          args: [["permission", "enum:read|triage|write|maintain|admin", "Access level"]],
        },
        {
          verb: "remove",
          name: "remove collaborator",
          description: "Removes a person's access to a {product} repository.",
        },
      ],
    },
    {
      noun: "tag",
      gloss: "A git {noun} names a commit, usually a released version.",
      parent: { noun: "repository", fields: REPO },
      id: ["tag", "string", "Name of the tag"],
      fields: [
        ["tag!", "string", "Name of the tag"],
        ["sha!", "string", "Commit it points at"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "repository secret",
      gloss: "A {noun} is an encrypted value that CI workflows of a repository can read.",
      parent: { noun: "repository", fields: REPO },
      id: ["secret_name", "string", "Name of the secret"],
      fields: [["value!", "string", "The secret value"]],
      verbs: ["list", "delete"],
      custom: [
        {
          verb: "set",
          name: "set repository secret",
          description: "Creates or updates an encrypted CI {noun} in {product}.",
          args: [["value!", "string", "The secret value"]],
        },
      ],
    },
    {
      noun: "code",
      plural: "code",
      gloss: "Source {noun} in the repositories {product} hosts.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "search",
          name: "search code",
          onItem: false,
          readOnly: true,
          description:
            "Searches source code across {product} repositories for a string or symbol, with file paths and matching lines.",
          args: [
            ["query!", "string", "Text or symbol to find"],
            ["language", "string", "Only files in this language"],
            ["repo", "string", "Only this repository"],
          ],
        },
      ],
    },
    {
      noun: "review comment",
      gloss: "A {noun} is feedback attached to a line of a pull request's diff.",
      parent: {
        noun: "pull request",
        fields: [...REPO, ["pull_number", "integer", "Number of the pull request"]],
      },
      id: ["comment_id", "integer", "ID of the comment"],
      fields: [
        ["body!", "string", "Text of the comment"],
        ["path!", "string", "File the comment is on"],
        ["line!", "integer", "Line of the diff"],
      ],
      verbs: ["list", "create", "update", "delete"],
    },
    {
      noun: "deploy key",
      gloss: "A {noun} is an SSH key that grants a server access to a single repository.",
      parent: { noun: "repository", fields: REPO },
      id: ["key_id", "integer", "ID of the key"],
      fields: [
        ["title!", "string", "Name of the key"],
        ["key!", "string", "Public SSH key"],
        ["read_only", "boolean", "Whether it can only pull"],
      ],
      verbs: ["list", "create", "delete"],
    },
  ],
  products: [
    { key: "github", label: "GitHub", style: "snake" },
    {
      key: "gitlab",
      label: "GitLab",
      style: "snake",
      rename: { "pull request": "merge request", repository: "project", repositories: "projects" },
    },
    { key: "bitbucket", label: "Bitbucket", style: "camel", without: ["workflow run"] },
    { key: "gitea", label: "Gitea", style: "kebab", without: ["workflow run", "release"] },
    {
      key: "azure repos",
      label: "Azure Repos",
      style: "pascal",
      without: ["issue", "workflow run"],
    },
    { key: "codeberg", label: "Codeberg", style: "snake", without: ["workflow run", "repository secret"] },
  ],
};
