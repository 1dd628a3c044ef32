import type { ToolCallEvent } from "@trestle/core";

/** The default bound on one event's size, serialised as JSON: 16 KiB. */
export const DEFAULT_EVENT_MAX_BYTES = 16 * 1024;

/** The marker that replaces what was cut: `…[truncated N bytes]`, N counted in UTF-8 bytes. */
export function truncationMarker(bytes: number): string {
  return `…[truncated ${bytes} bytes]`;
}

/** Nesting deeper than this is replaced by a marker: a payload's shape is for the capability, not the event. */
const MAX_DEPTH = 16;
/** The fewest bytes a string is cut to, however many strings share the budget. */
const MIN_STRING_BYTES = 32;
/** The fields of an event that carry a call's payload; the others are small and fixed. */
const PAYLOAD_FIELDS = ["arguments", "headers", "body", "code", "content", "errorMessage"] as const;

function byteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}

const encoder = new TextEncoder();

/** `text` cut to at most `keepBytes` UTF-8 bytes (never inside a character) and marked, when it is longer. */
function cutString(text: string, keepBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= keepBytes) return text;
  // One byte a character: cut by index, without encoding the text to find where.
  if (bytes === text.length) return `${text.slice(0, keepBytes)}${truncationMarker(bytes - keepBytes)}`;
  // encodeInto stops before a character that does not fit whole, surrogate pairs included.
  const { read, written } = encoder.encodeInto(text, new Uint8Array(keepBytes));
  return `${text.slice(0, read)}${truncationMarker(bytes - written)}`;
}

/** A copy of `value` with every string longer than `keepBytes` bytes cut, and nesting beyond MAX_DEPTH replaced. */
function cutStrings(value: unknown, keepBytes: number, depth: number): unknown {
  if (typeof value === "string") return cutString(value, keepBytes);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return truncationMarker(byteLength(value));
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, keepBytes, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = cutStrings(item, keepBytes, depth + 1);
  return copy;
}

/** The lengths of the strings in `value`, down to MAX_DEPTH. */
function stringLengths(value: unknown, depth: number, into: number[]): void {
  if (typeof value === "string") into.push(Buffer.byteLength(value));
  else if (value !== null && typeof value === "object" && depth < MAX_DEPTH) {
    for (const item of Array.isArray(value) ? value : Object.values(value))
      stringLengths(item, depth + 1, into);
  }
}

/** A copy of `value` with every string {@link stringLengths} counts emptied: what surrounds them, to measure. */
function blankStrings(value: unknown, depth: number): unknown {
  if (typeof value === "string") return "";
  if (value === null || typeof value !== "object" || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => blankStrings(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = blankStrings(item, depth + 1);
  return copy;
}

/**
 * The longest a payload string may stay so that the event fits `maxBytes` (cutting only strings longer than it),
 * computed once from the strings' lengths (sorted longest first here); `undefined` when even cutting every string
 * to the minimum would not fit (the payload is many small parts). JSON escapes are not counted: the result is
 * checked by serialising.
 */
function stringBudget(lengths: number[], size: number, maxBytes: number): number | undefined {
  lengths.sort((a, b) => b - a);
  // In bytes, as the budget is: the marker's "…" is three.
  const marker = Buffer.byteLength(truncationMarker(size));
  let total = lengths.reduce((sum, n) => sum + n, 0);
  const fixed = size - total;
  // Water-filling: cut the i longest strings to `keep`, the rest untouched.
  for (let i = 1; i <= lengths.length; i++) {
    total -= lengths[i - 1] as number;
    const next = lengths[i] ?? 0;
    const keep = Math.floor((maxBytes - fixed - total) / i) - marker;
    if (keep >= next && keep >= MIN_STRING_BYTES) return Math.min(keep, lengths[0] as number);
    if (keep < MIN_STRING_BYTES && next < MIN_STRING_BYTES) return undefined;
  }
  return undefined;
}

/** The payload field replaced whole, keeping its type: a list or map of many small items, cut at once. */
function replaceWhole(value: unknown): unknown {
  const marker = truncationMarker(byteLength(value));
  if (Array.isArray(value)) return [marker];
  if (value !== null && typeof value === "object") return { "…": marker };
  return marker;
}

/**
 * Bounds one event's size, serialised as JSON, to about `maxBytes`: an event under the bound is returned as it
 * is; a larger one is copied with its payload (arguments, headers, body, code, content, error message) cut, each
 * cut marked `…[truncated N bytes]`. Long strings are shortened first, keeping their beginning; a payload made of
 * many small parts is then replaced whole by its marker. The event's identity and outcome (ids, names, type,
 * duration, error category) are never cut. Only the copy is changed.
 *
 * @example
 * ```ts
 * boundEventSize({ ...started, arguments: { data: "x".repeat(1 << 20) } }, 16_384).arguments;
 * // { data: "xxxx…xxx…[truncated 1044480 bytes]" }
 * ```
 */
export function boundEventSize(
  event: ToolCallEvent,
  maxBytes: number = DEFAULT_EVENT_MAX_BYTES,
): ToolCallEvent {
  return boundEventSizeMeasured(event, maxBytes).event;
}

/** An event bounded by {@link boundEventSizeMeasured}, with its JSON and that JSON's size in UTF-8 bytes. */
export interface MeasuredEvent {
  event: ToolCallEvent;
  /** `JSON.stringify(event)`, made to measure it: a caller that keeps the event as bytes need not make it again. */
  json: string;
  bytes: number;
}

function measured(event: ToolCallEvent): MeasuredEvent {
  const json = JSON.stringify(event) ?? "";
  return { event, json, bytes: Buffer.byteLength(json) };
}

/**
 * {@link boundEventSize}, with the bounded event's JSON and its size in bytes: the event is serialised once to
 * measure it, and the caller that keeps it by size (the event history) need not serialise it again.
 */
export function boundEventSizeMeasured(
  event: ToolCallEvent,
  maxBytes: number = DEFAULT_EVENT_MAX_BYTES,
): MeasuredEvent {
  const record = event as unknown as Record<string, unknown>;
  const present = PAYLOAD_FIELDS.filter((field) => record[field] !== undefined);
  const lengths: number[] = [];
  for (const field of present) stringLengths(record[field], 0, lengths);
  const stringBytes = lengths.reduce((sum, n) => sum + n, 0);
  let size: number;
  if (stringBytes <= maxBytes) {
    const whole = measured(event);
    if (whole.bytes <= maxBytes) return whole;
    size = whole.bytes;
  } else {
    // The strings alone are over the bound (a string's JSON is at least its bytes): the event is not serialised
    // whole, only what surrounds them (a large payload was serialised twice a call, 16 KiB or more each time).
    const skeleton: Record<string, unknown> = { ...record };
    for (const field of present) skeleton[field] = blankStrings(record[field], 0);
    size = byteLength(skeleton) + stringBytes;
  }
  const keep = stringBudget(lengths, size, maxBytes);
  // Escapes can make the cut event a little larger than planned: a few tighter tries, then the payload goes whole.
  for (
    let k = keep, tries = 0;
    k !== undefined && k >= MIN_STRING_BYTES && tries < 4;
    k = Math.floor(k / 2), tries++
  ) {
    const copy: Record<string, unknown> = { ...record };
    for (const field of present) copy[field] = cutStrings(record[field], k, 0);
    const cut = measured(copy as unknown as ToolCallEvent);
    if (cut.bytes <= maxBytes) return cut;
  }
  const copy: Record<string, unknown> = { ...record };
  for (const field of present) copy[field] = replaceWhole(record[field]);
  return measured(copy as unknown as ToolCallEvent);
}
