import { useState } from "preact/hooks";
import type { Forward } from "../api/types";
import { useApi, useLoad } from "../components/api-context";
import { Alert, Badge, Empty, PageHeader } from "../components/bits";
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
          <table aria-label="Forwards">
            <thead>
              <tr>
                <th>Forward</th>
                <th>Namespace</th>
                <th>Upstream</th>
                <th>Status</th>
                <th>Imported</th>
                <th>Last error</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((f) => {
                const key = `${f.namespace}/${f.name}`;
                const i = f.status.imported;
                return (
                  <tr key={key}>
                    <td class="mono">
                      {f.name}
                      {f.prefix ? <div class="small muted">prefix {f.prefix}</div> : null}
                    </td>
                    <td>{namespaceLabel(f.namespace)}</td>
                    <td class="mono small">{upstreamText(f)}</td>
                    <td>
                      <Badge tone={STATE_TONE[f.status.state]}>{f.status.state}</Badge>
                      {f.status.server && (
                        <div class="small muted">
                          {f.status.server.name} {f.status.server.version}
                        </div>
                      )}
                    </td>
                    <td class="small">
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
                    </td>
                    <td class="small">
                      {failures[key] ? (
                        <span class="error-text">{failures[key]}</span>
                      ) : (
                        (f.status.error ?? "")
                      )}
                    </td>
                    <td>
                      <button
                        type="button"
                        disabled={busy[key] === true}
                        aria-label={`Refresh ${f.name}`}
                        onClick={() => void refresh(f)}
                      >
                        {busy[key] ? "Refreshing…" : "Refresh"}
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
