import { useState } from "preact/hooks";
import type { Forward } from "../api/types";
import { useApi, useLoad } from "../components/api-context";
import { Alert, Badge, Empty, PageHeader } from "../components/bits";
import { type Column, DataTable } from "../components/data-table";
import { namespaceLabel } from "../logic/format";

const STATE_TONE: Record<Forward["status"]["state"], "good" | "warn" | "bad"> = {
  ready: "good",
  connecting: "warn",
  reconnecting: "warn",
  failed: "bad",
};

function upstreamText(forward: Forward): string {
  const u = forward.upstream;
  if (u.kind === "stdio")
    return `stdio: ${u.program}${u.argumentCount ? ` (+${u.argumentCount} args)` : ""}, ${u.mode}${u.sandbox ? "" : ", unconfined"}`;
  return `${u.kind}: ${u.server}`;
}

/** A forward's key: its namespace and name. */
const forwardKey = (forward: Forward) => `${forward.namespace}/${forward.name}`;

/** What the forwards table shows besides each forward: the refreshes running and the ones that failed, by key. */
interface RefreshState {
  busy: Record<string, boolean>;
  failures: Record<string, string>;
  refresh(forward: Forward): Promise<void>;
}

/** The forwards table: name and prefix, namespace, upstream, state, what it imported, its last error, a refresh. */
function forwardColumns({ busy, failures, refresh }: RefreshState): Column<Forward>[] {
  return [
    {
      header: "Forward",
      class: "mono",
      cell: (f) => (
        <>
          {f.name}
          {f.prefix ? <div class="small muted">prefix {f.prefix}</div> : null}
        </>
      ),
    },
    { header: "Namespace", cell: (f) => namespaceLabel(f.namespace) },
    { header: "Upstream", class: "mono small", cell: upstreamText },
    {
      header: "Status",
      cell: (f) => (
        <>
          <Badge tone={STATE_TONE[f.status.state]}>{f.status.state}</Badge>
          {f.status.server && (
            <div class="small muted">
              {f.status.server.name} {f.status.server.version}
            </div>
          )}
        </>
      ),
    },
    {
      header: "Imported",
      class: "small",
      cell: (f) => {
        const i = f.status.imported;
        return (
          <>
            {i.tools} tools, {i.resources + i.resourceTemplates} resources, {i.prompts} prompts
            {f.status.skipped.length > 0 && (
              <div
                class="muted"
                title={f.status.skipped.map((s) => `${s.upstreamName}: ${s.reason}`).join("\n")}
              >
                {f.status.skipped.length} skipped
              </div>
            )}
            {f.status.importedAt && (
              <div class="muted">at {new Date(f.status.importedAt).toLocaleTimeString()}</div>
            )}
          </>
        );
      },
    },
    {
      header: "Last error",
      class: "small",
      cell: (f) => {
        const failure = failures[forwardKey(f)];
        return failure ? <span class="error-text">{failure}</span> : (f.status.error ?? "");
      },
    },
    {
      header: "",
      cell: (f) => (
        <button
          type="button"
          disabled={busy[forwardKey(f)] === true}
          aria-label={`Refresh ${f.name}`}
          onClick={() => void refresh(f)}
        >
          {busy[forwardKey(f)] ? "Refreshing…" : "Refresh"}
        </button>
      ),
    },
  ];
}

/** The forwards of every namespace with their import status and last error, each with a refresh button. */
export function ForwardsPage() {
  const { client, report } = useApi();
  const forwards = useLoad((api) => api.listForwards(), []);
  const [refreshed, setRefreshed] = useState<Record<string, Forward>>({});
  const [busy, setBusy] = useState<Record<string, boolean>>({});
  const [failures, setFailures] = useState<Record<string, string>>({});

  async function refresh(forward: Forward) {
    const key = `${forward.namespace}/${forward.name}`;
    setBusy((b) => ({ ...b, [key]: true }));
    setFailures(({ [key]: _, ...rest }) => rest);
    try {
      const updated = await client.refreshForward(forward.name, forward.namespace);
      setRefreshed((r) => ({ ...r, [key]: updated }));
    } catch (failure) {
      setFailures((f) => ({ ...f, [key]: report(failure) }));
    } finally {
      setBusy(({ [key]: _, ...rest }) => rest);
    }
  }

  const list = (forwards.data ?? []).map((f) => refreshed[`${f.namespace}/${f.name}`] ?? f);
  return (
    <section>
      <PageHeader title="Forwards">
        <button
          type="button"
          onClick={() => {
            setRefreshed({});
            forwards.reload();
          }}
        >
          Reload list
        </button>
      </PageHeader>
      {forwards.error && <Alert>{forwards.error}</Alert>}
      {forwards.data && list.length === 0 && (
        <Empty>No forwards. Add one with `trestle forwards add` or POST /api/v1/forwards.</Empty>
      )}
      {list.length > 0 && (
        <div class="card">
          <DataTable
            label="Forwards"
            columns={forwardColumns({ busy, failures, refresh })}
            rows={list}
            rowKey={forwardKey}
          />
        </div>
      )}
    </section>
  );
}
