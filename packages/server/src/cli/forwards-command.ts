import type { ForwardReference } from "@trestle/core/catalog";
import type { Command } from "commander";
import type { ForwardView } from "../forwards/forward-view.js";
import { CliError } from "./cli-error.js";
import { clientAction, collect } from "./command-action.js";
import type { CliIo } from "./context.js";
import { withProgress } from "./progress.js";
import { renderTable } from "./table.js";

/** The options `trestle forwards add|update` reads. */
interface ForwardOptions {
  namespace?: string;
  prefix?: string;
  mode?: string;
  env?: string[];
  cwd?: string;
  /** commander's `--no-sandbox`: false when given. */
  sandbox?: boolean;
  writable?: string[];
  header?: string[];
  http?: string;
  a2a?: string;
}

function pairs(list: readonly string[] | undefined, what: string): Record<string, string> | undefined {
  if (!list || list.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const item of list) {
    const at = item.indexOf("=");
    // Only the name is shown: the value is a secret as often as not.
    if (at <= 0) throw new CliError(`--${what} takes NAME=VALUE; '${item.split("=")[0]}' has no '='`, 2);
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

function summary(f: ForwardView): string {
  const i = f.status.imported;
  const counts = `${i.tools} tools, ${i.resources} resources, ${i.resourceTemplates} templates, ${i.prompts} prompts`;
  const lines = [`${f.name} (${f.namespace || "default namespace"}): ${f.status.state}, ${counts}`];
  for (const s of f.status.skipped) lines.push(`  not imported: ${s.kind} '${s.upstreamName}': ${s.reason}`);
  if (f.status.error) lines.push(`  error: ${f.status.error}`);
  return lines.join("\n");
}

/**
 * The forward `add` and `update` send: an upstream from exactly one of `--http URL`, `--a2a BASE_URL` or
 * `-- COMMAND [ARG...]`.
 */
function forwardOf(
  action: string,
  name: string,
  command: string[],
  options: ForwardOptions,
): ForwardReference {
  const given = [command.length > 0, options.http !== undefined, options.a2a !== undefined].filter(Boolean);
  if (given.length !== 1) {
    throw new CliError(
      `trestle forwards ${action} needs exactly one of --http URL, --a2a BASE_URL or -- COMMAND [ARG...]`,
      2,
    );
  }
  if (options.mode !== undefined && options.mode !== "pooled" && options.mode !== "per-call") {
    throw new CliError("--mode is pooled or per-call", 2);
  }
  if ((options.sandbox === false || options.writable?.length || options.cwd) && command.length === 0) {
    throw new CliError("--cwd, --no-sandbox and --writable are for a server run with -- COMMAND [ARG...]", 2);
  }
  const env = pairs(options.env, "env");
  const headers = pairs(options.header, "header");
  const upstream: ForwardReference["upstream"] = options.a2a
    ? { kind: "a2a", url: options.a2a, ...(headers ? { headers } : {}) }
    : options.http
      ? { kind: "http", url: options.http, ...(headers ? { headers } : {}) }
      : {
          kind: "stdio",
          command: command[0] as string,
          args: command.slice(1),
          ...(env ? { env } : {}),
          ...(options.cwd ? { cwd: options.cwd } : {}),
          ...(options.mode ? { mode: options.mode as "pooled" | "per-call" } : {}),
          ...(options.sandbox === false ? { sandbox: false } : {}),
          ...(options.writable?.length ? { writablePaths: options.writable } : {}),
        };
  return {
    name,
    namespace: options.namespace ?? "",
    ...(options.prefix ? { prefix: options.prefix } : {}),
    upstream,
  };
}

/** `trestle forwards …`: existing MCP servers and A2A agents whose catalogs the router imports. */
export function addForwardsCommands(program: Command, io: CliIo): void {
  const group = program
    .command("forwards")
    .description(
      "Manage forwards: existing MCP servers whose tools, resources and prompts the router serves",
    );
  const namespaced = (command: Command) =>
    command.option("-n, --namespace <ns>", "the namespace (the default one when absent; '*' lists all)");

  namespaced(group.command("list").description("List forwards with their import status")).action(
    clientAction<ForwardOptions>(io, async (context, _args, options) => {
      const items = await context.client.forwards.list({ namespace: options.namespace ?? "" });
      context.print(items, () =>
        renderTable(
          ["NAME", "NAMESPACE", "STATE", "UPSTREAM", "TOOLS", "RESOURCES", "PROMPTS"],
          items.map((f) => [
            f.name,
            f.namespace || "(default)",
            f.status.state,
            "program" in f.upstream ? f.upstream.program : f.upstream.server,
            String(f.status.imported.tools),
            String(f.status.imported.resources + f.status.imported.resourceTemplates),
            String(f.status.imported.prompts),
          ]),
        ),
      );
    }),
  );

  for (const action of ["show", "refresh", "remove"] as const) {
    const describe = {
      show: "Show a forward and its import",
      refresh: "List the upstream again and re-import its catalog",
      remove: "Remove a forward and everything it imported",
    }[action];
    namespaced(group.command(action).description(describe).argument("<name>")).action(
      clientAction<ForwardOptions>(io, async (context, [name], options) => {
        const query = { namespace: options.namespace ?? "" };
        const forwards = context.client.forwards;
        const view =
          action === "show"
            ? await forwards.get(name as string, query)
            : action === "refresh"
              ? await withProgress(
                  io.stderr,
                  `refreshing forward ${name}`,
                  forwards.refresh(name as string, query),
                )
              : await forwards.remove(name as string, query);
        context.print(view, () =>
          action === "remove" ? `removed ${view.name} and what it imported` : summary(view),
        );
      }),
    );
  }

  for (const action of ["add", "update"] as const) {
    namespaced(
      group
        .command(action)
        .description(
          action === "add"
            ? "Add a forward: start or reach the server, import its catalog, save it"
            : "Change a forward's upstream or prefix (connected before anything changes)",
        )
        .argument("<name>")
        .argument("[command...]", "after --: the server's program and arguments (stdio upstream)"),
    )
      .option("--prefix <p>", "put before each imported tool's and prompt's name")
      .option("--mode <mode>", "stdio: pooled (one process, shared) or per-call")
      .option("--env <name=value>", "stdio: an environment variable of the server (repeatable)", collect)
      .option("--cwd <dir>", "stdio: the server's working directory (its sandbox shows it, read-only)")
      .option(
        "--writable <path>",
        "stdio: a host path the sandboxed server may write (repeatable; absolute)",
        collect,
      )
      .option(
        "--no-sandbox",
        "stdio: run the server unconfined, able to read the router's environment, files and processes (logged)",
      )
      .option("--http <url>", "the server's Streamable HTTP endpoint (instead of -- COMMAND)")
      .option(
        "--a2a <base-url>",
        "an A2A agent: its card is read from BASE_URL/.well-known/agent-card.json, its skills imported as tools",
      )
      .option("--header <name=value>", "http, a2a: a header sent with every request (repeatable)", collect)
      .action(
        clientAction<ForwardOptions>(io, async (context, [name, command], options) => {
          const forward = forwardOf(action, name as string, (command as string[] | undefined) ?? [], options);
          const work =
            action === "add"
              ? context.client.forwards.add(forward)
              : context.client.forwards.update(name as string, forward, { namespace: forward.namespace });
          // Starting a server and importing its catalog can take a while (a package download): show the wait.
          const view = await withProgress(
            io.stderr,
            `starting forward ${name} and importing its catalog`,
            work,
          );
          context.print(view, () => summary(view));
        }),
      );
  }
}
