import type { ManagementClient } from "./management-client.js";
import { CliError } from "./management-client.js";
import { renderTable } from "./table.js";

/** The options `trestle forwards` reads. */
export interface ForwardsCommandOptions {
  namespace?: string | undefined;
  prefix?: string | undefined;
  mode?: string | undefined;
  env?: string[] | undefined;
  header?: string[] | undefined;
  http?: string | undefined;
  json?: boolean | undefined;
}

/** How `trestle forwards` is used. */
export const FORWARDS_USAGE =
  "trestle forwards list|show NAME|remove NAME|refresh NAME   [--namespace NS]\n" +
  "  trestle forwards add NAME [--namespace NS] [--prefix P] [--mode pooled|per-call] [--env K=V]... -- COMMAND [ARG...]\n" +
  "  trestle forwards add NAME [--namespace NS] [--prefix P] --http URL [--header K=V]...\n" +
  "  trestle forwards update NAME …the options of add…   (new upstream or prefix; connected before anything changes)";

interface ForwardView {
  name: string;
  namespace: string;
  upstream: { kind: string; program?: string; server?: string };
  status: {
    state: string;
    imported: { tools: number; resources: number; resourceTemplates: number; prompts: number };
    skipped: { kind: string; upstreamName: string; reason: string }[];
    error?: string;
  };
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

/** `trestle forwards …`: forwarded MCP servers. `command` is what follows `--` (the server's argv). */
export async function forwardsCommand(
  client: ManagementClient,
  positionals: readonly string[],
  options: ForwardsCommandOptions,
): Promise<void> {
  const [action, name, ...command] = positionals;
  const namespace = options.namespace ?? "";
  const query = `?namespace=${encodeURIComponent(namespace)}`;
  const out = (data: unknown, text: string) =>
    process.stdout.write(`${options.json ? JSON.stringify(data, null, 2) : text}\n`);
  const path = (suffix = "") => `/api/v1/forwards/${encodeURIComponent(name ?? "")}${suffix}${query}`;
  switch (action) {
    case "list": {
      const items = await client.request<ForwardView[]>("GET", `/api/v1/forwards${query}`);
      out(
        items,
        renderTable(
          ["NAME", "NAMESPACE", "STATE", "UPSTREAM", "TOOLS", "RESOURCES", "PROMPTS"],
          items.map((f) => [
            f.name,
            f.namespace || "(default)",
            f.status.state,
            f.upstream.program ?? f.upstream.server,
            String(f.status.imported.tools),
            String(f.status.imported.resources + f.status.imported.resourceTemplates),
            String(f.status.imported.prompts),
          ]),
        ),
      );
      return;
    }
    case "show":
    case "refresh":
    case "remove": {
      if (!name) throw new CliError(`trestle forwards ${action} NAME`, 2);
      const view =
        action === "show"
          ? await client.request<ForwardView>("GET", path())
          : action === "refresh"
            ? await client.request<ForwardView>("POST", path("/refresh"))
            : await client.request<ForwardView>("DELETE", path());
      out(view, action === "remove" ? `removed ${view.name} and what it imported` : summary(view));
      return;
    }
    case "add":
    case "update": {
      if (!name) throw new CliError(`Usage:\n  ${FORWARDS_USAGE}`, 2);
      if (command.length > 0 === (options.http !== undefined)) {
        throw new CliError(
          `trestle forwards ${action} needs either --http URL or -- COMMAND [ARG...], not both`,
          2,
        );
      }
      const env = pairs(options.env, "env");
      const headers = pairs(options.header, "header");
      const upstream = options.http
        ? { kind: "http", url: options.http, ...(headers ? { headers } : {}) }
        : {
            kind: "stdio",
            command: command[0],
            args: command.slice(1),
            ...(env ? { env } : {}),
            ...(options.mode ? { mode: options.mode } : {}),
          };
      const body = { name, namespace, ...(options.prefix ? { prefix: options.prefix } : {}), upstream };
      const view =
        action === "add"
          ? await client.request<ForwardView>("POST", "/api/v1/forwards", body)
          : await client.request<ForwardView>("PUT", path(), body);
      out(view, summary(view));
      return;
    }
    default:
      throw new CliError(`Unknown action '${action ?? ""}' for forwards\n\nUsage:\n  ${FORWARDS_USAGE}`, 2);
  }
}
