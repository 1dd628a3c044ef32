import { useMemo, useState } from "preact/hooks";
import type { Prompt, Resource, Tool } from "../api/types";
import { useLoad } from "../components/api-context";
import { Alert, Empty, PageHeader } from "../components/bits";
import { type Column, DataTable } from "../components/data-table";
import { searchCatalog } from "../logic/catalog-search";
import { namespaceLabel } from "../logic/format";

interface Entries {
  tools: Tool[];
  resources: Resource[];
  prompts: Prompt[];
}

/** The namespaces, and the tools, resources and prompts of the one chosen, with a search box over all three. */
export function CatalogPage({ onAddTool }: { onAddTool(namespace: string): void }) {
  const namespaces = useLoad((api) => api.listNamespaces(), []);
  const [namespace, setNamespace] = useState("");
  const [query, setQuery] = useState("");
  const entries = useLoad<Entries>(
    async (api) => {
      const [tools, resources, prompts] = await Promise.all([
        api.listTools(namespace),
        api.listResources(namespace),
        api.listPrompts(namespace),
      ]);
      return { tools, resources, prompts };
    },
    [namespace],
  );
  const found = useMemo(
    () =>
      entries.data && {
        tools: searchCatalog(entries.data.tools, query),
        resources: searchCatalog(entries.data.resources, query),
        prompts: searchCatalog(entries.data.prompts, query),
      },
    [entries.data, query],
  );

  return (
    <section>
      <PageHeader title="Catalog">
        <button type="button" onClick={entries.reload}>
          Refresh
        </button>
        <button type="button" class="primary" onClick={() => onAddTool(namespace)}>
          Add a tool
        </button>
      </PageHeader>
      <div class="catalog">
        <nav class="card namespaces" aria-label="Namespaces">
          <h2>Namespaces</h2>
          {namespaces.error && <Alert>{namespaces.error}</Alert>}
          <ul>
            {(namespaces.data ?? [{ name: "" }]).map((ns) => (
              <li key={ns.name}>
                <button
                  type="button"
                  class={ns.name === namespace ? "link selected" : "link"}
                  aria-pressed={ns.name === namespace}
                  title={ns.description}
                  onClick={() => setNamespace(ns.name)}
                >
                  {namespaceLabel(ns.name)}
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <div class="catalog-main">
          <input
            type="search"
            class="search"
            aria-label="Search tools, resources and prompts"
            placeholder="Search names, descriptions, services, labels…"
            value={query}
            onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          />
          {entries.error && <Alert>{entries.error}</Alert>}
          {entries.loading && !entries.data && <p class="muted">Loading…</p>}
          {found && (
            <>
              <EntryTable
                title="Tools"
                total={entries.data?.tools.length ?? 0}
                rows={found.tools}
                rowKey={(t) => t.name}
                columns={TOOL_COLUMNS}
              />
              <EntryTable
                title="Resources"
                total={entries.data?.resources.length ?? 0}
                rows={found.resources}
                rowKey={(r) => r.location}
                columns={RESOURCE_COLUMNS}
              />
              <EntryTable
                title="Prompts"
                total={entries.data?.prompts.length ?? 0}
                rows={found.prompts}
                rowKey={(p) => p.name}
                columns={PROMPT_COLUMNS}
              />
            </>
          )}
        </div>
      </div>
    </section>
  );
}

/** What every kind of catalog entry has: a name, a description and labels. */
interface Entry {
  name: string;
  description?: string | undefined;
  labels?: Record<string, string> | undefined;
}

/** The catalog's columns around the one that differs by kind (`middle`): name, description, …, labels. */
function entryColumns<E extends Entry>(middle: Column<E>): Column<E>[] {
  return [
    { header: "Name", class: "mono", cell: (e) => e.name },
    { header: "Description", cell: (e) => e.description ?? "" },
    middle,
    {
      header: "Labels",
      cell: (e) =>
        Object.entries(e.labels ?? {}).map(([k, v]) => (
          <span key={k} class="label">
            {k}={v}
          </span>
        )),
    },
  ];
}

const TOOL_COLUMNS = entryColumns<Tool>({
  header: "Service · location",
  class: "mono small",
  cell: (t) => `${t.type} · ${t.uri}`,
});
const RESOURCE_COLUMNS = entryColumns<Resource>({
  header: "Service · location",
  class: "mono small",
  cell: (r) => `${r.type} · ${r.location}`,
});
const PROMPT_COLUMNS = entryColumns<Prompt>({
  header: "Arguments",
  class: "mono small",
  cell: (p) => (p.arguments ?? []).map((a) => a.name).join(", "),
});

/** One kind of entry: a card with its count (of all, when a search hides some) and its table. */
function EntryTable<E>({
  title,
  total,
  rows,
  rowKey,
  columns,
}: {
  title: string;
  total: number;
  rows: E[];
  rowKey: (row: E) => string;
  columns: readonly Column<E>[];
}) {
  return (
    <div class="card">
      <h2>
        {title} <span class="count">{rows.length === total ? total : `${rows.length} of ${total}`}</span>
      </h2>
      {rows.length === 0 ? (
        <Empty>{total === 0 ? `No ${title.toLowerCase()} in this namespace.` : "Nothing matches."}</Empty>
      ) : (
        <DataTable label={title} columns={columns} rows={rows} rowKey={rowKey} />
      )}
    </div>
  );
}
