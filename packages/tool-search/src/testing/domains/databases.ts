import type { CategorySpec } from "../catalog-spec.js";

/** Databases and warehouses. */
export const DATABASES: CategorySpec = {
  category: "databases",
  entities: [
    {
      noun: "query",
      plural: "queries",
      gloss: "{product} runs SQL against the configured database.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "run",
          name: "run query",
          onItem: false,
          description: "Executes a SQL statement on {product} and returns the rows.",
          args: [
            ["sql!", "string", "The SQL statement"],
            ["params", "string[]", "Values for the statement's placeholders"],
            ["max_rows", "integer", "Most rows to return"],
          ],
        },
        {
          verb: "explain",
          name: "explain query",
          onItem: false,
          readOnly: true,
          description:
            "Shows the execution plan {product} would use for a SQL statement, without running it.",
          args: [["sql!", "string", "The SQL statement"]],
        },
      ],
    },
    {
      noun: "table",
      gloss: "A {noun} of rows and typed columns in a schema.",
      parent: { noun: "schema", fields: [["schema", "string", "Schema name, e.g. public"]] },
      id: ["table", "string", "Name of the table"],
      fields: [
        ["name!", "string", "Name of the table"],
        ["columns!", "object", "Column names and types"],
      ],
      verbs: ["list", "create"],
      custom: [
        {
          verb: "describe",
          name: "describe table",
          readOnly: true,
          description: "Returns a {product} {noun}'s columns, types, indexes and constraints.",
        },
        {
          verb: "drop",
          name: "drop table",
          destructive: true,
          description: "Drops a {noun} and all its rows from {product}.",
        },
      ],
    },
    {
      noun: "backup",
      gloss: "A {noun} is a snapshot of a database that can be restored later.",
      fields: [["database!", "string", "Database to back up"]],
      verbs: ["list", "create", "delete"],
      custom: [
        {
          verb: "restore",
          name: "restore backup",
          description: "Restores a {product} database from a {noun}.",
          args: [["target_database", "string", "Database to restore into"]],
        },
      ],
    },
    {
      noun: "database user",
      gloss: "A {noun} (role) that can log in, with its privileges.",
      id: ["username", "string", "Name of the role"],
      fields: [
        ["username!", "string", "Name of the role"],
        ["password!", "string", "Its password"],
      ],
      verbs: ["list", "create", "delete"],
      custom: [
        {
          verb: "grant",
          name: "grant privileges",
          description: "Grants privileges on a table or schema to a {product} {noun}.",
          args: [
            ["privileges!", "string[]", "e.g. SELECT, INSERT"],
            ["on!", "string", "Table or schema"],
          ],
        },
      ],
    },
    {
      noun: "table index",
      plural: "table indexes",
      gloss: "A {noun} speeds up lookups on columns of a table.",
      id: ["index_name", "string", "Name of the index"],
      fields: [
        ["table!?", "string", "Table"],
        ["columns!", "string[]", "Columns indexed"],
        ["unique", "boolean", "Whether values must be unique"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "connection",
      gloss: "A client {noun} (session) to the database server, with the query it runs.",
      id: ["pid", "integer", "Server process of the connection"],
      fields: [
        ["state?", "enum:active|idle|idle in transaction", "State"],
        ["database?", "string", "Database"],
      ],
      verbs: ["list"],
      custom: [
        {
          verb: "kill",
          name: "kill connection",
          destructive: true,
          description: "Terminates a {product} {noun} and rolls back its open transaction.",
        },
        {
          verb: "list slow",
          name: "list slow queries",
          onItem: false,
          readOnly: true,
          description: "Lists the slowest statements {product} ran recently, with call counts and mean time.",
          args: [["min_duration_ms", "integer", "Only statements slower than this"]],
        },
        {
          verb: "list locks",
          name: "list locks",
          onItem: false,
          readOnly: true,
          description: "Lists locks held and awaited in {product}, to find what blocks a query.",
        },
      ],
    },
    {
      noun: "schema",
      gloss: "A {noun} is a namespace of tables and views in a database.",
      id: ["schema", "string", "Name of the schema"],
      fields: [["name!", "string", "Name"]],
      verbs: ["list", "create"],
    },
    {
      noun: "view",
      gloss: "A {noun} is a stored query that can be read like a table.",
      id: ["view", "string", "Name of the view"],
      fields: [
        ["name!", "string", "Name"],
        ["definition!", "string", "SELECT statement"],
      ],
      verbs: ["list", "create"],
    },
  ],
  products: [
    { key: "postgres", label: "PostgreSQL", style: "snake" },
    { key: "mysql", label: "MySQL", style: "snake" },
    { key: "snowflake", label: "Snowflake", style: "camel", without: ["backup"] },
    {
      key: "bigquery",
      label: "BigQuery",
      style: "camel",
      rename: { schema: "dataset" },
      without: ["backup", "database user"],
    },
    { key: "sqlserver", label: "SQL Server", style: "pascal" },
    {
      key: "mongodb",
      label: "MongoDB",
      style: "camel",
      without: ["query", "table"],
      extra: [
        {
          noun: "document",
          gloss: "A {noun} is a JSON-like record stored in a collection.",
          parent: { noun: "collection", fields: [["collection", "string", "Name of the collection"]] },
          fields: [["document!", "object", "The document"]],
          verbs: ["get", "create", "update", "delete", "count"],
          custom: [
            {
              verb: "find",
              name: "find documents",
              onItem: false,
              readOnly: true,
              description: "Finds documents in a {product} collection that match a filter.",
              args: [
                ["filter!", "object", "Query filter"],
                ["limit", "integer", "Most documents to return"],
              ],
            },
            {
              verb: "aggregate",
              name: "aggregate documents",
              onItem: false,
              readOnly: true,
              description: "Runs an aggregation pipeline on a {product} collection.",
              args: [["pipeline!", "object", "Aggregation stages"]],
            },
          ],
        },
      ],
    },
    {
      key: "redis",
      label: "Redis",
      style: "snake",
      without: ["query", "table", "backup", "database user"],
      extra: [
        {
          noun: "key",
          gloss: "A {noun} in the {product} key-value store.",
          id: ["key", "string", "The key"],
          fields: [
            ["value!", "string", "The value"],
            ["ttl_seconds", "integer", "Expiry in seconds"],
          ],
          verbs: ["get", "delete"],
          custom: [
            {
              verb: "set",
              name: "set key",
              description: "Stores a value under a {noun} in {product}, optionally with an expiry.",
              args: [
                ["value!", "string", "The value"],
                ["ttl_seconds", "integer", "Expiry in seconds"],
              ],
            },
            {
              verb: "scan",
              name: "scan keys",
              onItem: false,
              readOnly: true,
              description: "Iterates over {product} keys matching a pattern.",
              args: [["pattern", "string", "Glob pattern, e.g. session:*"]],
            },
            {
              verb: "publish",
              name: "publish message",
              onItem: false,
              description: "Publishes a message on a {product} pub/sub channel.",
              args: [
                ["channel!", "string", "Channel name"],
                ["message!", "string", "The message"],
              ],
            },
          ],
        },
      ],
    },
    {
      key: "elasticsearch",
      label: "Elasticsearch",
      style: "snake",
      without: ["query", "table", "database user"],
      rename: { backup: "snapshot" },
      extra: [
        {
          noun: "index",
          plural: "indices",
          gloss: "An {noun} holds documents searchable by full text.",
          id: ["index", "string", "Name of the index"],
          fields: [["mappings", "object", "Field mappings"]],
          verbs: ["list", "create", "delete"],
          custom: [
            {
              verb: "search",
              name: "search index",
              readOnly: true,
              description: "Runs a query DSL search on an {product} {noun} and returns the hits.",
              args: [["query!", "object", "Query DSL"]],
            },
            {
              verb: "bulk index",
              name: "bulk index documents",
              description: "Indexes many documents into an {product} {noun} in one request.",
              args: [["documents!", "object", "Documents to index"]],
            },
          ],
        },
      ],
    },
    { key: "clickhouse", label: "ClickHouse", style: "snake", without: ["backup"] },
    { key: "supabase", label: "Supabase", style: "camel" },
    { key: "cockroachdb", label: "CockroachDB", style: "kebab" },
  ],
};
