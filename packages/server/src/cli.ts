#!/usr/bin/env node
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { TrestleError } from "@trestle/core";
import { builtinCallSecrets } from "./builtin-secrets.js";
import type { BuiltinService } from "./builtin-services.js";
import { FORWARDS_USAGE, forwardsCommand } from "./cli/forwards-command.js";
import { CliError, ManagementClient } from "./cli/management-client.js";
import { renderTable } from "./cli/table.js";
import { SERVER_VERSION } from "./version.js";

const USAGE = `trestle ${SERVER_VERSION}: an MCP router

Usage:
  trestle serve [--port N] [--host H] [--data-dir DIR | --database-url URL | --memory-store] [--config FILE]
                [--stateless] [--builtins [--root DIR]... [--builtin-arg SERVICE=ARG]...]
                [--stdio [--namespace NS]] [--log-level L] [--insecure-open]
  trestle tools list|show NAME|add FILE|remove NAME|import FILE   [--namespace NS] [--label-filter EXPR]
  trestle resources list|show NAME|add FILE|remove NAME           [--namespace NS]
  trestle prompts list|show NAME|add FILE|remove NAME             [--namespace NS]
  trestle namespaces list|create NAME|delete NAME
  ${FORWARDS_USAGE}
  trestle services list|show ID|cleanup
  trestle events tail
  trestle exec ENGINE LANGUAGE FILE [ARG...]
  trestle config claude|cursor [--namespace NS]

Without tokens (TRESTLE_TOKENS) every scope is open, so serve listens on loopback only; --insecure-open
(TRESTLE_INSECURE_OPEN=1) allows another address anyway, open to the network.
Client commands talk to --url (env TRESTLE_URL, default http://127.0.0.1:8080) with --token (env TRESTLE_TOKEN).
Add --json for machine-readable output. Exit codes: 0 ok, 1 refused by the router, 2 bad usage, 3 router unreachable.`;

const options = {
  port: { type: "string" },
  host: { type: "string" },
  "data-dir": { type: "string" },
  "database-url": { type: "string" },
  "memory-store": { type: "boolean" },
  config: { type: "string" },
  stateless: { type: "boolean" },
  stdio: { type: "boolean" },
  namespace: { type: "string" },
  builtins: { type: "boolean" },
  root: { type: "string", multiple: true },
  "builtin-arg": { type: "string", multiple: true },
  "log-level": { type: "string" },
  "insecure-open": { type: "boolean" },
  "allowed-host": { type: "string", multiple: true },
  "allowed-origin": { type: "string", multiple: true },
  "forward-header": { type: "string", multiple: true },
  "tls-ca": { type: "string" },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  url: { type: "string" },
  token: { type: "string" },
  json: { type: "boolean" },
  "label-filter": { type: "string" },
  prefix: { type: "string" },
  mode: { type: "string" },
  env: { type: "string", multiple: true },
  header: { type: "string", multiple: true },
  http: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>["values"];

function print(values: Values, data: unknown, table: () => string): void {
  process.stdout.write(`${values.json ? JSON.stringify(data, null, 2) : table()}\n`);
}

function readJsonFile(path: string | undefined): unknown {
  if (!path) throw new CliError("A JSON file is required", 2);
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new CliError(`Cannot read ${path} as JSON: ${(error as Error).message}`, 2);
  }
}

/** Adds `--builtin-arg http=--allow-private` style arguments to the named built-in services. */
function withExtraArgs(services: BuiltinService[], extra: readonly string[]): BuiltinService[] {
  for (const item of extra) {
    const eq = item.indexOf("=");
    const service = services.find((s) => s.name === item.slice(0, eq));
    if (eq <= 0 || !service) {
      throw new CliError(
        `--builtin-arg needs SERVICE=ARG with SERVICE one of ${services.map((s) => s.name).join(", ")}`,
        2,
      );
    }
    service.args.push(item.slice(eq + 1));
  }
  return services;
}

async function serve(values: Values): Promise<void> {
  // Loaded here, not at the top: client commands should start fast and never load the router.
  const [
    { BUILTIN_PRINCIPAL, readConfigFile, resolveConfig },
    { createRouter },
    { defaultBuiltins, startBuiltinServices },
    { serveStdio },
  ] = await Promise.all([
    import("./config.js"),
    import("./router.js"),
    import("./builtin-services.js"),
    import("./mcp/stdio-server.js"),
  ]);
  const list = (v: string[] | undefined) => (v && v.length > 0 ? v.join(",") : undefined);
  const config = resolveConfig({
    ...(values.config ? { file: readConfigFile(values.config) } : {}),
    env: process.env,
    flags: {
      host: values.host,
      port: values.port,
      dataDir: values["data-dir"],
      databaseUrl: values["database-url"],
      memoryStore: values["memory-store"],
      stateless: values.stateless,
      logLevel: values["log-level"],
      insecureOpen: values["insecure-open"],
      allowedHosts: list(values["allowed-host"]),
      allowedOrigins: list(values["allowed-origin"]),
      forwardHeaders: list(values["forward-header"]),
      tlsCaFile: values["tls-ca"],
      tlsCertFile: values["tls-cert"],
      tlsKeyFile: values["tls-key"],
    },
  });
  // The built-ins' own credential, made for this start and held by no one else: register-only, so neither they
  // nor the programs they run could act as an operator. It does not close an open router's scopes.
  const builtinToken = values.builtins ? randomBytes(32).toString("base64url") : undefined;
  // Each built-in's own call secret for this start: its port then answers the router and nothing else.
  const builtinServices = values.builtins
    ? builtinCallSecrets(
        withExtraArgs(
          defaultBuiltins({ fileRoots: values.root ?? [process.cwd()] }),
          // The file service never serves the router's data directory (relative paths: same working directory).
          [...(values["builtin-arg"] ?? []), `file=--exclude=${config.dataDir}`],
        ),
      )
    : undefined;
  const router = await createRouter(config, {
    ...(builtinToken
      ? { internalTokens: [{ name: BUILTIN_PRINCIPAL, token: builtinToken, scopes: ["register"] as const }] }
      : {}),
    ...(builtinServices ? { builtinSecrets: builtinServices.byServiceName } : {}),
  });
  const builtins = builtinServices
    ? startBuiltinServices(builtinServices.services, {
        routerUrl: router.url,
        ...(builtinToken ? { token: builtinToken } : {}),
        logger: router.logger,
      })
    : undefined;

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // In-flight calls finish first, the built-in services behind them still running; then they stop.
    await router.drain();
    await builtins?.stop();
    await router.close();
    process.exit(code);
  };
  process.once("SIGTERM", () => void stop(0));
  process.once("SIGINT", () => void stop(0));
  // Unhandled rejections are logged and serving goes on; an uncaught exception stops the router (see why there).
  const { installProcessSafetyNet } = await import("./process-safety.js");
  installProcessSafetyNet({ logger: router.logger, stop, exitDeadlineMs: config.drainTimeoutMs + 5_000 });

  if (values.stdio) {
    await builtins?.ready.catch((error: Error) =>
      router.logger.error({ err: error }, "a built-in service failed"),
    );
    await serveStdio(
      values.namespace ?? "",
      router.backend,
      {
        serverInfo: { name: "trestle", version: SERVER_VERSION },
        codeExecutionToolName: config.codeExecutionToolName,
        pageSize: config.pageSize,
        forwardHeaders: [],
      },
      router.registry,
    );
    await stop(0);
    return;
  }
  if (builtins) {
    try {
      await builtins.ready;
    } catch (error) {
      router.logger.error({ err: error }, "a built-in service failed to start");
    }
  }
  process.stderr.write(
    `\nTrestle ${SERVER_VERSION} is serving MCP at ${router.url}/mcp (management API at ${router.url}/api/v1)\n` +
      `Connect a client:  claude mcp add --transport http trestle ${router.url}/mcp\n` +
      `Or print a client configuration:  trestle config claude\n\n`,
  );
}

async function entityCommand(
  client: ManagementClient,
  kind: "tools" | "resources" | "prompts",
  positionals: string[],
  values: Values,
) {
  const [action, arg] = positionals;
  const ns = values.namespace ? `namespace=${encodeURIComponent(values.namespace)}` : "";
  const filter = values["label-filter"] ? `labelFilter=${encodeURIComponent(values["label-filter"])}` : "";
  const qs = [ns, filter].filter(Boolean).join("&");
  const q = qs ? `?${qs}` : "";
  switch (action) {
    case "list": {
      const items = await client.request<Record<string, unknown>[]>("GET", `/api/v1/${kind}${q}`);
      print(values, items, () =>
        renderTable(
          kind === "resources"
            ? ["NAME", "LOCATION", "TYPE"]
            : kind === "tools"
              ? ["NAME", "TYPE", "URI"]
              : ["NAME", "DESCRIPTION"],
          items.map((i) =>
            kind === "resources"
              ? [i.name, i.location, i.type]
              : kind === "tools"
                ? [i.name, i.type, i.uri]
                : [i.name, i.description],
          ),
        ),
      );
      return;
    }
    case "show": {
      if (!arg) throw new CliError(`trestle ${kind} show NAME`, 2);
      const item = await client.request("GET", `/api/v1/${kind}/${encodeURIComponent(arg)}${q}`);
      process.stdout.write(`${JSON.stringify(item, null, 2)}\n`);
      return;
    }
    case "add": {
      const item = await client.request<{ name: string }>("POST", `/api/v1/${kind}`, readJsonFile(arg));
      print(values, item, () => `added ${item.name}`);
      return;
    }
    case "import": {
      const items = readJsonFile(arg);
      if (!Array.isArray(items)) throw new CliError(`${arg} must hold a JSON array`, 2);
      const added: unknown[] = [];
      for (const item of items) added.push(await client.request("POST", `/api/v1/${kind}`, item));
      print(values, added, () => `imported ${added.length} ${kind}`);
      return;
    }
    case "remove": {
      if (!arg) throw new CliError(`trestle ${kind} remove NAME`, 2);
      await client.request("DELETE", `/api/v1/${kind}/${encodeURIComponent(arg)}${q}`);
      print(values, { removed: arg }, () => `removed ${arg}`);
      return;
    }
    default:
      throw new CliError(`Unknown action '${action ?? ""}' for ${kind}\n\n${USAGE}`, 2);
  }
}

async function main(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${USAGE}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.version) {
    process.stdout.write(`${SERVER_VERSION}\n`);
    return;
  }
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === "serve") return serve(values);

  const url = values.url ?? process.env.TRESTLE_URL ?? "http://127.0.0.1:8080";
  const client = new ManagementClient(url, values.token ?? process.env.TRESTLE_TOKEN);
  switch (command) {
    case "tools":
    case "resources":
    case "prompts":
      return entityCommand(client, command, rest, values);
    case "forwards":
      return forwardsCommand(client, rest, values);
    case "namespaces": {
      const [action, name] = rest;
      if (action === "list") {
        const items = await client.request<{ name: string; description?: string }[]>(
          "GET",
          "/api/v1/namespaces",
        );
        print(values, items, () =>
          renderTable(
            ["NAME", "ENDPOINT", "DESCRIPTION"],
            items.map((n) => [
              n.name || "(default)",
              `${url}${n.name ? `/${n.name}` : ""}/mcp`,
              n.description,
            ]),
          ),
        );
      } else if (action === "create" && name) {
        print(
          values,
          await client.request("POST", "/api/v1/namespaces", { name }),
          () => `created ${name}: ${url}/${name}/mcp`,
        );
      } else if (action === "delete" && name) {
        print(
          values,
          await client.request("DELETE", `/api/v1/namespaces/${encodeURIComponent(name)}`),
          () => `deleted ${name}`,
        );
      } else throw new CliError(`trestle namespaces list|create NAME|delete NAME`, 2);
      return;
    }
    case "services": {
      const [action, id] = rest;
      if (action === "list") {
        const items = await client.request<{ id: string; health: string; target: Record<string, unknown> }[]>(
          "GET",
          "/api/v1/capabilities",
        );
        print(values, items, () =>
          renderTable(
            ["ID", "SERVICE", "TYPE", "ADDRESS", "PROTOCOL", "HEALTH"],
            items.map((s) => [
              s.id,
              s.target.serviceName,
              s.target.serviceType,
              `${s.target.host}:${s.target.port}`,
              s.target.protocol ?? "grpc",
              s.health,
            ]),
          ),
        );
      } else if (action === "show" && id) {
        process.stdout.write(
          `${JSON.stringify(await client.request("GET", `/api/v1/capabilities/${encodeURIComponent(id)}`), null, 2)}\n`,
        );
      } else if (action === "cleanup") {
        const removed = await client.request<unknown[]>("DELETE", "/api/v1/capabilities/stale");
        print(values, removed, () => `removed ${removed.length} stale service(s)`);
      } else throw new CliError("trestle services list|show ID|cleanup", 2);
      return;
    }
    case "events": {
      if (rest[0] !== "tail") throw new CliError("trestle events tail", 2);
      const controller = new AbortController();
      process.once("SIGINT", () => controller.abort());
      await client
        .stream(
          "/api/v2/tool-calls/notifications",
          (event, data) => {
            if (values.json) process.stdout.write(`${data}\n`);
            else {
              const e = JSON.parse(data) as Record<string, unknown>;
              const detail =
                event === "failed"
                  ? ` ${e.errorCategory}: ${e.errorMessage}`
                  : event === "completed"
                    ? ` ${e.duration} ms`
                    : "";
              process.stdout.write(
                `${new Date(e.timestamp as number).toISOString()} ${event.padEnd(9)} ${e.toolName}${detail}\n`,
              );
            }
          },
          controller.signal,
        )
        .catch((error: Error) => {
          if (error.name !== "AbortError") throw error;
        });
      return;
    }
    case "exec": {
      const [engine, language, file, ...args] = rest;
      if (!engine || !language || !file) throw new CliError("trestle exec ENGINE LANGUAGE FILE [ARG...]", 2);
      const code = readFileSync(file, "utf8");
      const task = await client.request<{ streamUrl: string }>(
        "POST",
        `/api/v2/code-execution-engine/${encodeURIComponent(engine)}/${encodeURIComponent(language)}`,
        { code, arguments: args },
      );
      let exitCode = 0;
      await client.stream(task.streamUrl, (event, data) => {
        const payload = JSON.parse(data) as {
          outputType?: string;
          content?: string[];
          status?: string;
          exitCode?: number;
          message?: string;
        };
        if (event === "error") {
          process.stderr.write(`error: ${payload.message}\n`);
          exitCode = 1;
        } else if (event === "reply") {
          const text = (payload.content ?? []).join("");
          if (payload.outputType === "stdout") process.stdout.write(text);
          else if (payload.outputType === "stderr") process.stderr.write(text);
          else if (!values.json && payload.status) process.stderr.write(`[${payload.status}]\n`);
          if (payload.exitCode !== undefined) exitCode = payload.exitCode;
        }
      });
      process.exitCode = exitCode;
      return;
    }
    case "config": {
      const [client_] = rest;
      const endpoint = `${url}${values.namespace ? `/${values.namespace}` : ""}/mcp`;
      const token = values.token ?? process.env.TRESTLE_TOKEN;
      const headers = token ? { Authorization: `Bearer ${token}` } : undefined;
      if (client_ === "claude") {
        process.stdout.write(
          `${JSON.stringify({ mcpServers: { trestle: { type: "http", url: endpoint, ...(headers ? { headers } : {}) } } }, null, 2)}\n`,
        );
      } else if (client_ === "cursor") {
        process.stdout.write(
          `${JSON.stringify({ mcpServers: { trestle: { url: endpoint, ...(headers ? { headers } : {}) } } }, null, 2)}\n`,
        );
      } else throw new CliError("trestle config claude|cursor", 2);
      return;
    }
    default:
      throw new CliError(`Unknown command '${command}'\n\n${USAGE}`, 2);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof CliError) {
    process.stderr.write(`trestle: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  if (error instanceof TrestleError) {
    process.stderr.write(`trestle: ${error.rawMessage}\n`);
    process.exit(2);
  }
  process.stderr.write(`trestle: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
