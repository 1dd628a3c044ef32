import type { Command } from "commander";
import type { CatalogQuery, NamespaceQuery } from "../client/management-client.js";
import { CliError } from "./cli-error.js";
import { clientAction, readJsonFile } from "./command-action.js";
import type { CliIo, CommandContext } from "./context.js";
import { renderTable } from "./table.js";

type Kind = "tools" | "resources" | "prompts";

/** Any catalog entry, as far as the commands read one: a name and the fields its table shows. */
type Entry = { name: string } & Record<string, unknown>;

/** What the commands need of each kind's calls; the client types each kind exactly. */
interface EntryCalls {
  list(query: CatalogQuery): Promise<readonly Entry[]>;
  get(name: string, query: NamespaceQuery): Promise<Entry>;
  /** The file's JSON, as read: the router validates it. */
  add(entry: never): Promise<Entry>;
  remove(name: string, query: NamespaceQuery): Promise<unknown>;
}

interface EntryOptions {
  namespace?: string;
  labelFilter?: string;
}

const kinds: Record<Kind, { one: string; columns: string[]; row(entry: Entry): unknown[] }> = {
  tools: { one: "tool", columns: ["NAME", "TYPE", "URI"], row: (t) => [t.name, t.type, t.uri] },
  resources: {
    one: "resource",
    columns: ["NAME", "LOCATION", "TYPE"],
    row: (r) => [r.name, r.location, r.type],
  },
  prompts: { one: "prompt", columns: ["NAME", "DESCRIPTION"], row: (p) => [p.name, p.description] },
};

function entriesOf(context: CommandContext, kind: Kind): EntryCalls {
  return context.client[kind] as unknown as EntryCalls;
}

/** `trestle tools|resources|prompts list|show|add|import|remove`: the catalog's entries. */
export function addCatalogCommands(program: Command, io: CliIo): void {
  for (const kind of ["tools", "resources", "prompts"] as const) {
    const { one, columns, row } = kinds[kind];
    const group = program.command(kind).description(`Manage the catalog's ${kind}`);
    const namespaced = (command: Command) =>
      command.option("-n, --namespace <ns>", "the namespace (the default namespace when absent)");

    namespaced(group.command("list").description(`List ${kind}`))
      .option("-l, --label-filter <expr>", "only entries whose labels match, e.g. 'team=ops & !beta'")
      .action(
        clientAction<EntryOptions>(io, async (context, _args, options) => {
          const items = await entriesOf(context, kind).list({
            namespace: options.namespace,
            labelFilter: options.labelFilter,
          });
          context.print(items, () => renderTable(columns, items.map(row)));
        }),
      );

    namespaced(group.command("show").description(`Show one ${one} as JSON`).argument("<name>")).action(
      clientAction<EntryOptions>(io, async (context, [name], options) => {
        const item = await entriesOf(context, kind).get(name as string, { namespace: options.namespace });
        io.stdout.write(`${JSON.stringify(item, null, 2)}\n`);
      }),
    );

    group
      .command("add")
      .description(`Add the ${one} a JSON file holds`)
      .argument("<file>")
      .action(
        clientAction<EntryOptions>(io, async (context, [file]) => {
          const item = await entriesOf(context, kind).add(readJsonFile(file as string) as never);
          context.print(item, () => `added ${item.name}`);
        }),
      );

    group
      .command("import")
      .description(`Add every ${one} of a JSON file holding an array`)
      .argument("<file>")
      .action(
        clientAction<EntryOptions>(io, async (context, [file]) => {
          const items = readJsonFile(file as string);
          if (!Array.isArray(items)) throw new CliError(`${file} must hold a JSON array`, 2);
          const added: Entry[] = [];
          for (const item of items) added.push(await entriesOf(context, kind).add(item as never));
          context.print(added, () => `imported ${added.length} ${kind}`);
        }),
      );

    namespaced(group.command("remove").description(`Remove a ${one}`).argument("<name>")).action(
      clientAction<EntryOptions>(io, async (context, [name], options) => {
        await entriesOf(context, kind).remove(name as string, { namespace: options.namespace });
        context.print({ removed: name }, () => `removed ${name}`);
      }),
    );
  }
}

/** `trestle namespaces list|create|delete`. */
export function addNamespaceCommands(program: Command, io: CliIo): void {
  const group = program.command("namespaces").description("Manage namespaces (each one an MCP endpoint)");
  const endpoint = (url: string, name: string) => `${url}${name ? `/${name}` : ""}/mcp`;
  group
    .command("list")
    .description("List namespaces and their MCP endpoints")
    .action(
      clientAction(io, async (context) => {
        const items = await context.client.namespaces.list();
        context.print(items, () =>
          renderTable(
            ["NAME", "ENDPOINT", "DESCRIPTION"],
            items.map((n) => [n.name || "(default)", endpoint(context.url, n.name), n.description]),
          ),
        );
      }),
    );
  group
    .command("create")
    .description("Create a namespace")
    .argument("<name>")
    .option("-d, --description <text>", "what the namespace is for")
    .action(
      clientAction<{ description?: string }>(io, async (context, [name], options) => {
        const created = await context.client.namespaces.create({
          name: name as string,
          ...(options.description ? { description: options.description } : {}),
        });
        context.print(created, () => `created ${name}: ${endpoint(context.url, name as string)}`);
      }),
    );
  group
    .command("delete")
    .description("Delete a namespace")
    .argument("<name>")
    .option("--cascade", "remove the entries it holds too (refused otherwise when it holds any)")
    .action(
      clientAction<{ cascade?: boolean }>(io, async (context, [name], options) => {
        const deleted = await context.client.namespaces.delete(name as string, {
          ...(options.cascade ? { cascade: true } : {}),
        });
        context.print(deleted, () => `deleted ${name}`);
      }),
    );
}
