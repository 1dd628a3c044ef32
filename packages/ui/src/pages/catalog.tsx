import { useMemo, useState } from "preact/hooks";
import type { Prompt, Resource, Tool } from "../api/types";
import { useLoad } from "../components/api-context";
import { Alert, Empty, PageHeader } from "../components/bits";
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
                rows={found.tools.map((t) => ({
                  key: t.name,
                  name: t.name,
                  detail: t.description ?? "",
                  where: `${t.type} · ${t.uri}`,
                  labels: t.labels,
                }))}
              />
              <EntryTable
                title="Resources"
                total={entries.data?.resources.length ?? 0}
                rows={found.resources.map((r) => ({
                  key: r.location,
                  name: r.name,
                  detail: r.description ?? "",
                  where: `${r.type} · ${r.location}`,
                  labels: r.labels,
                }))}
              />
              <EntryTable
                title="Prompts"
                total={entries.data?.prompts.length ?? 0}
                rows={found.prompts.map((p) => ({
                  key: p.name,
                  name: p.name,
                  detail: p.description ?? "",
                  where: (p.arguments ?? []).map((a) => a.name).join(", "),
                  labels: p.labels,
                }))}
              />
            </>
          )}
        </div>
      </div>
    </section>
  );
}

interface Row {
  key: string;
  name: string;
  detail: string;
  where: string;
  labels: Record<string, string> | undefined;
}

function EntryTable({ title, total, rows }: { title: string; total: number; rows: Row[] }) {
  return (
    <div class="card">
      <h2>
        {title} <span class="count">{rows.length === total ? total : `${rows.length} of ${total}`}</span>
      </h2>
      {rows.length === 0 ? (
        <Empty>{total === 0 ? `No ${title.toLowerCase()} in this namespace.` : "Nothing matches."}</Empty>
      ) : (
        <table aria-label={title}>
          <thead>
            <tr>
              <th>Name</th>
              <th>Description</th>
              <th>{title === "Prompts" ? "Arguments" : "Service · location"}</th>
              <th>Labels</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key}>
                <td class="mono">{row.name}</td>
                <td>{row.detail}</td>
                <td class="mono small">{row.where}</td>
                <td>
                  {Object.entries(row.labels ?? {}).map(([k, v]) => (
                    <span key={k} class="label">
                      {k}={v}
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
