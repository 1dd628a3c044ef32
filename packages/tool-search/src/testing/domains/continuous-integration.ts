import type { CategorySpec } from "../catalog-spec.js";

/** CI/CD servers. */
export const CONTINUOUS_INTEGRATION: CategorySpec = {
  category: "continuous integration",
  entities: [
    {
      noun: "pipeline",
      gloss: "A {noun} is the automated build, test and deploy process of a project.",
      fields: [
        ["name!", "string", "Name of the pipeline"],
        ["repository_url!", "uri", "Repository the pipeline builds"],
        ["branch?", "string", "Branch it builds"],
      ],
      verbs: ["list", "get", "create", "delete"],
      custom: [
        {
          verb: "trigger",
          name: "trigger pipeline",
          description: "Starts a new run of a {product} {noun} on a branch or commit.",
          args: [
            ["branch", "string", "Branch to build"],
            ["parameters", "object", "Build parameters"],
          ],
        },
      ],
    },
    {
      noun: "build",
      gloss: "A {noun} is one run of a pipeline, with its status, duration and logs.",
      parent: { noun: "pipeline", fields: [["pipeline_id", "string", "ID of the pipeline"]] },
      id: ["build_number", "integer", "Number of the build"],
      fields: [
        ["status?", "enum:running|passed|failed|canceled", "Status of the build"],
        ["branch?", "string", "Branch that was built"],
      ],
      verbs: ["list", "get"],
      custom: [
        { verb: "cancel", name: "cancel build", description: "Stops a running {noun} in {product}." },
        { verb: "retry", name: "retry build", description: "Runs a failed {product} {noun} again." },
        {
          verb: "get log",
          name: "get build log",
          readOnly: true,
          description: "Returns the console output of a {product} {noun}.",
        },
      ],
    },
    {
      noun: "artifact",
      gloss: "An {noun} is a file a build produced: a binary, a test report, a package.",
      parent: { noun: "build", fields: [["build_number", "integer", "Number of the build"]] },
      fields: [["path?", "string", "Path of the artifact"]],
      verbs: ["list", "get"],
    },
    {
      noun: "environment variable",
      gloss: "An {noun} is a setting or secret passed to every build of a project.",
      parent: { noun: "pipeline", fields: [["pipeline_id", "string", "ID of the pipeline"]] },
      id: ["name", "string", "Name of the variable"],
      fields: [
        ["name!", "string", "Name of the variable"],
        ["value!", "string", "Its value"],
        ["secret", "boolean", "Whether the value is masked in logs"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "runner",
      gloss: "A {noun} (agent) is a machine that picks up and executes build jobs.",
      fields: [
        ["status?", "enum:online|offline|busy", "Status"],
        ["labels?", "string[]", "Runner labels"],
      ],
      verbs: ["list", "get", "delete"],
      custom: [
        {
          verb: "pause",
          name: "pause runner",
          description: "Stops a {product} {noun} from taking new jobs.",
        },
      ],
    },
    {
      noun: "schedule",
      gloss: "A {noun} triggers a pipeline periodically with a cron expression (nightly builds).",
      parent: { noun: "pipeline", fields: [["pipeline_id", "string", "ID of the pipeline"]] },
      fields: [
        ["cron!", "string", "Cron expression, e.g. 0 2 * * *"],
        ["branch!", "string", "Branch to build"],
        ["active", "boolean", "Whether it runs"],
      ],
      verbs: ["list", "create", "update", "delete"],
    },
    {
      noun: "test report",
      gloss: "A {noun} lists the test cases a build ran, with failures and durations.",
      parent: { noun: "build", fields: [["build_number", "integer", "Number of the build"]] },
      fields: [],
      verbs: ["get"],
      custom: [
        {
          verb: "list flaky tests",
          name: "list flaky tests",
          onItem: false,
          readOnly: true,
          description: "Lists tests that sometimes pass and sometimes fail on the same code in {product}.",
        },
      ],
    },
    {
      noun: "cache",
      gloss: "The build {noun} keeps dependencies between runs to make builds faster.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "clear",
          name: "clear cache",
          onItem: false,
          description: "Clears the dependency {noun} of a {product} project so the next build starts clean.",
          args: [["pipeline_id!", "string", "Pipeline"]],
        },
      ],
    },
  ],
  products: [
    { key: "jenkins", label: "Jenkins", style: "snake", rename: { pipeline: "job" } },
    { key: "circleci", label: "CircleCI", style: "snake" },
    { key: "buildkite", label: "Buildkite", style: "camel" },
    { key: "travis", label: "Travis CI", style: "kebab", without: ["artifact"] },
    { key: "argocd", label: "Argo CD", style: "snake", rename: { pipeline: "application", build: "sync" } },
    { key: "teamcity", label: "TeamCity", style: "camel", rename: { pipeline: "build configuration" } },
    { key: "drone", label: "Drone", style: "snake", rename: { pipeline: "repo" }, without: ["artifact"] },
  ],
};
