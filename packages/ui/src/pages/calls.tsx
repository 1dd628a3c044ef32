import { useEffect, useMemo, useState } from "preact/hooks";
import type { ApiClient } from "../api/api-client";
import { ApiError } from "../api/api-client";
import { useApi, useLoad } from "../components/api-context";
import { Alert, Badge, Empty, PageHeader } from "../components/bits";
import { type Column, DataTable } from "../components/data-table";
import {
  addCallEvent,
  type CallFilter,
  type CallRow,
  callsFromEvents,
  matchesFilter,
  NO_FILTER,
  summarize,
} from "../logic/call-log";
import { formatDuration, formatTime, namespaceLabel } from "../logic/format";

/** Events of the router's history the page starts from. */
const HISTORY_EVENTS = 500;
/** Wait before the live stream is opened again after it dropped. */
const RECONNECT_MS = 2_000;

/** The calls table: when, where, which tool, who, how it ended, how long, and the error of a failed call. */
const CALL_COLUMNS: readonly Column<CallRow>[] = [
  { header: "Started", class: "mono small", cell: (row) => formatTime(row.startedAt) },
  { header: "Namespace", cell: (row) => namespaceLabel(row.namespace) },
  {
    header: "Tool",
    class: "mono",
    cell: (row) => (
      <>
        {row.toolName}
        {row.kind === "code-execution" && <div class="small muted">code execution</div>}
      </>
    ),
  },
  { header: "Principal", cell: (row) => row.principal },
  {
    header: "Outcome",
    cell: (row) => (
      <Badge tone={row.outcome === "ok" ? "good" : row.outcome === "error" ? "bad" : "warn"}>
        {row.outcome === "error" ? "failed" : row.outcome}
      </Badge>
    ),
  },
  {
    header: "Duration",
    cell: (row) => (row.durationMs !== undefined ? formatDuration(row.durationMs) : ""),
  },
  { header: "Error", class: "small", title: (row) => row.errorCategory, cell: (row) => row.error ?? "" },
];

type StreamStatus = "connecting" | "live" | "reconnecting" | "stopped";

/**
 * Follows the router's tool-call events: the history first, then the live stream, resumed after the last event
 * seen so that nothing between the two is lost; reconnects when the stream drops; stops on a refused token.
 */
function useCallTail(client: ApiClient, report: (error: unknown) => string, round: number) {
  const [rows, setRows] = useState<CallRow[]>([]);
  const [status, setStatus] = useState<StreamStatus>("connecting");
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let lastEventId: string | undefined;
    const follow = async () => {
      setStatus("connecting");
      try {
        const history = await client.toolCallHistory({ limit: HISTORY_EVENTS });
        if (signal.aborted) return;
        setRows(callsFromEvents(history));
        const last = history[history.length - 1];
        if (last) lastEventId = `${last.eventId}:${last.type}`;
        setError(undefined);
      } catch (failure) {
        if (signal.aborted) return;
        setError(report(failure));
        if (failure instanceof ApiError && failure.unauthorized) return setStatus("stopped");
      }
      while (!signal.aborted) {
        try {
          for await (const { id, event } of client.toolCalls(signal, {
            lastEventId,
            onOpen: () => setStatus("live"),
          })) {
            if (id) lastEventId = id;
            setRows((current) => addCallEvent(current, event));
          }
        } catch (failure) {
          if (signal.aborted) return;
          if (failure instanceof ApiError && failure.unauthorized) {
            report(failure);
            return setStatus("stopped");
          }
        }
        if (signal.aborted) return;
        setStatus("reconnecting");
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    };
    void follow();
    return () => controller.abort();
  }, [client, round]);
  return { rows, setRows, status, error };
}

const STATUS_TEXT: Record<StreamStatus, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  stopped: "Stopped",
};

/** The live tail of tool calls with the router's history, filtered by namespace, tool, principal and outcome. */
export function CallsPage() {
  const { client, report } = useApi();
  const namespaces = useLoad((api) => api.listNamespaces(), []);
  const [round, setRound] = useState(0);
  const tail = useCallTail(client, report, round);
  const [filter, setFilter] = useState<CallFilter>(NO_FILTER);
  const shown = useMemo(() => tail.rows.filter((r) => matchesFilter(r, filter)), [tail.rows, filter]);
  const summary = summarize(shown);
  const set = (key: keyof CallFilter) => (event: Event) =>
    setFilter({ ...filter, [key]: (event.target as HTMLInputElement).value });

  return (
    <section>
      <PageHeader title="Calls">
        <span class={`stream-status stream-${tail.status}`} role="status" aria-label="Live tail">
          {STATUS_TEXT[tail.status]}
        </span>
        <button type="button" onClick={() => tail.setRows([])}>
          Clear
        </button>
        <button type="button" onClick={() => setRound((n) => n + 1)}>
          Reload history
        </button>
      </PageHeader>
      <form class="filters card" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label>
          Namespace
          <select value={filter.namespace} onChange={set("namespace")}>
            <option value="">all</option>
            {(namespaces.data ?? []).map((ns) => (
              <option key={ns.name} value={ns.name === "" ? "(default)" : ns.name}>
                {namespaceLabel(ns.name)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tool
          <input type="search" value={filter.tool} onInput={set("tool")} placeholder="any" />
        </label>
        <label>
          Principal
          <input type="search" value={filter.principal} onInput={set("principal")} placeholder="anyone" />
        </label>
        <label>
          Outcome
          <select value={filter.outcome} onChange={set("outcome")}>
            <option value="">any</option>
            <option value="ok">ok</option>
            <option value="error">failed</option>
            <option value="running">running</option>
          </select>
        </label>
      </form>
      {tail.error && <Alert>{tail.error}</Alert>}
      <p class="summary muted">
        {summary.calls === 1 ? "1 call" : `${summary.calls} calls`}, {summary.failed} failed,{" "}
        {summary.running} running
        {summary.medianMs !== undefined && `; median ${formatDuration(summary.medianMs)}`}
        {summary.slowestMs !== undefined && `, slowest ${formatDuration(summary.slowestMs)}`}
      </p>
      {shown.length === 0 ? (
        <Empty>
          {tail.rows.length === 0 ? "No calls yet: they appear here as they happen." : "No call matches."}
        </Empty>
      ) : (
        <div class="card">
          <DataTable
            label="Tool calls"
            columns={CALL_COLUMNS}
            rows={shown}
            rowKey={(row) => row.eventId}
            rowData={(row) => ({ "data-tool": row.toolName, "data-outcome": row.outcome })}
          />
        </div>
      )}
    </section>
  );
}
