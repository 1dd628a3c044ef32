import type { ToolCallEvent } from "../api/types";

/** How a call ended, or that it has not yet. */
export type CallOutcome = "running" | "ok" | "error";

/** One call as the tail shows it: its STARTED event and, once it ended, its COMPLETED or FAILED one. */
export interface CallRow {
  eventId: string;
  toolName: string;
  toolType: string;
  kind: "tool" | "code-execution";
  namespace: string;
  principal: string;
  startedAt: number;
  outcome: CallOutcome;
  durationMs?: number;
  /** Why it failed (the router's message, redacted at its source). */
  error?: string;
  errorCategory?: string;
  serviceAddress?: string;
}

/** The filters of the calls page; an empty field filters nothing. */
export interface CallFilter {
  namespace: string;
  tool: string;
  principal: string;
  outcome: "" | CallOutcome;
}

/** A filter that keeps every call. */
export const NO_FILTER: CallFilter = { namespace: "", tool: "", principal: "", outcome: "" };

/** The most calls the tail keeps: older ones go, so a busy router cannot fill the page's memory. */
export const MAX_CALLS = 500;

/**
 * Adds one event to `rows` (newest call first) and answers the new list: a STARTED event adds a row, a terminal
 * event completes its row (or adds one, when its STARTED event came before the page listened). The same event
 * twice changes nothing. At most `max` rows are kept.
 */
export function addCallEvent(rows: readonly CallRow[], event: ToolCallEvent, max = MAX_CALLS): CallRow[] {
  const at = rows.findIndex((r) => r.eventId === event.eventId);
  const existing = at >= 0 ? rows[at] : undefined;
  const base: CallRow = existing ?? {
    eventId: event.eventId,
    toolName: event.toolName,
    toolType: event.toolType,
    kind: event.kind,
    namespace: event.namespace ?? "",
    principal: event.principal ?? "",
    startedAt: event.type === "started" ? event.timestamp : event.timestamp - event.duration,
    outcome: "running",
  };
  let row: CallRow;
  if (event.type === "started") {
    if (existing) return [...rows];
    row = { ...base, ...(event.serviceAddress ? { serviceAddress: event.serviceAddress } : {}) };
  } else if (event.type === "completed") {
    row = { ...base, outcome: "ok", durationMs: event.duration };
  } else {
    row = {
      ...base,
      outcome: "error",
      durationMs: event.duration,
      error: event.errorMessage,
      errorCategory: event.errorCategory,
    };
  }
  if (!row.principal && event.principal) row = { ...row, principal: event.principal };
  const next = existing ? rows.map((r, i) => (i === at ? row : r)) : insertByStart(rows, row);
  return next.slice(0, max);
}

/** Inserts `row` keeping the newest start first (events may arrive a little out of order). */
function insertByStart(rows: readonly CallRow[], row: CallRow): CallRow[] {
  const index = rows.findIndex((r) => r.startedAt < row.startedAt);
  return index < 0 ? [...rows, row] : [...rows.slice(0, index), row, ...rows.slice(index)];
}

/** The rows of many events, oldest event first (as the history answers them). */
export function callsFromEvents(events: readonly ToolCallEvent[], max = MAX_CALLS): CallRow[] {
  let rows: CallRow[] = [];
  for (const event of events) rows = addCallEvent(rows, event, Number.POSITIVE_INFINITY);
  return rows.slice(0, max);
}

/**
 * True when `row` passes `filter`: the namespace and outcome must be equal, the tool and principal are found by
 * part, case-insensitively. The default namespace is written `""` in events and chosen as `(default)`.
 */
export function matchesFilter(row: CallRow, filter: CallFilter): boolean {
  if (filter.namespace !== "") {
    const wanted = filter.namespace === "(default)" ? "" : filter.namespace;
    if (row.namespace !== wanted) return false;
  }
  if (filter.outcome !== "" && row.outcome !== filter.outcome) return false;
  if (filter.tool && !row.toolName.toLowerCase().includes(filter.tool.toLowerCase())) return false;
  if (filter.principal && !row.principal.toLowerCase().includes(filter.principal.toLowerCase())) return false;
  return true;
}

/** Counts of what `rows` shows: calls, failures, and the median and slowest duration of the finished ones. */
export function summarize(rows: readonly CallRow[]): {
  calls: number;
  failed: number;
  running: number;
  medianMs?: number;
  slowestMs?: number;
} {
  const durations = rows
    .map((r) => r.durationMs)
    .filter((d): d is number => d !== undefined)
    .sort((a, b) => a - b);
  const middle = durations.length > 0 ? durations[Math.floor((durations.length - 1) / 2)] : undefined;
  return {
    calls: rows.length,
    failed: rows.filter((r) => r.outcome === "error").length,
    running: rows.filter((r) => r.outcome === "running").length,
    ...(middle !== undefined ? { medianMs: middle } : {}),
    ...(durations.length > 0 ? { slowestMs: durations[durations.length - 1] as number } : {}),
  };
}
