import type { ToolCallEvent } from "@trestle/core/events";

/** The default bound on one event's size, serialised as JSON: 16 KiB. */
export const DEFAULT_EVENT_MAX_BYTES = 16 * 1024;

/** The marker that replaces what was cut: `…[truncated N bytes]`, N counted in UTF-8 bytes. */
export function truncationMarker(bytes: number): string {
  return `…[truncated ${bytes} bytes]`;
}

/** Nesting deeper than this is replaced by a marker: a payload's shape is for the capability, not the event. */
const MAX_DEPTH = 16;
/** The fewest bytes a string is cut to, however many strings share the budget. */
export const MIN_STRING_BYTES = 32;
/** Cuts tried, each keeping half the last, before a payload that still does not fit is replaced whole. */
export const CUT_TRIES = 4;
/** The fields of an event that carry a call's payload; the others are small and fixed. */
const PAYLOAD_FIELDS = ["arguments", "headers", "body", "code", "content", "errorMessage"] as const;

/** The UTF-8 size of `value` as JSON. */
export function byteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "");
}

const encoder = new TextEncoder();

/**
 * What a cut event's JSON carries in place of the marker's "…" while it is serialised: a control character, which
 * `JSON.stringify` writes as the six characters `\u0001`, then swapped for `\u2026` (six as well, the same "…" to a
 * JSON reader). A "…" in the string itself would make it, and the whole JSON, two bytes a character in V8: twice
 * the memory to copy, and a slower path to encode into bytes.
 */
const STAND_IN = "\u0001";
/** A stand-in and what follows it, as `JSON.stringify` writes them; the bytes at 2-5 become `2026`. */
const STAND_IN_JSON = "\\u0001[truncated ";
const MARKER_JSON = "\\u2026[truncated ";
/** The marker's size in a cut event's JSON: `\u2026` is six bytes there. */
export const markerJsonBytes = (bytes: number) => truncationMarker(bytes).length + 5;

/** `text` cut to at most `keepBytes` UTF-8 bytes (never inside a character) and marked, when it is longer. */
function cutString(text: string, keepBytes: number, ellipsis: string): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= keepBytes) return text;
  // One byte a character: cut by index, without encoding the text to find where.
  if (bytes === text.length)
    return `${text.slice(0, keepBytes)}${ellipsis}[truncated ${bytes - keepBytes} bytes]`;
  // encodeInto stops before a character that does not fit whole, surrogate pairs included.
  const { read, written } = encoder.encodeInto(text, new Uint8Array(keepBytes));
  return `${text.slice(0, read)}${ellipsis}[truncated ${bytes - written} bytes]`;
}

/**
 * A copy of `value` with each string mapped by `leaf`, and each object or array nested MAX_DEPTH deep mapped by
 * `deeper` (what lies below it is not walked).
 */
export function mapStrings(
  value: unknown,
  depth: number,
  leaf: (text: string) => unknown,
  deeper: (value: object) => unknown,
): unknown {
  if (typeof value === "string") return leaf(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return deeper(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, depth + 1, leaf, deeper));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = mapStrings(item, depth + 1, leaf, deeper);
  return copy;
}

/** The lengths of the strings {@link mapStrings} maps in `value`, in its order (a packed event relies on it). */
function stringLengths(value: unknown, depth: number, into: number[]): void {
  if (typeof value === "string") into.push(Buffer.byteLength(value));
  else if (value !== null && typeof value === "object" && depth < MAX_DEPTH) {
    for (const item of Array.isArray(value) ? value : Object.values(value))
      stringLengths(item, depth + 1, into);
  }
}

const blank = () => "";
const asItIs = (value: object) => value;

/**
 * The longest a payload string may stay so that the event fits `maxBytes` (cutting only strings longer than it),
 * computed once from the strings' lengths (sorted longest first here); `undefined` when even cutting every string
 * to the minimum would not fit (the payload is many small parts). JSON escapes are not counted: the result is
 * checked by serialising.
 */
function stringBudget(lengths: number[], size: number, maxBytes: number): number | undefined {
  lengths.sort((a, b) => b - a);
  // In bytes, as the budget is, and as a cut event's JSON writes it.
  const marker = markerJsonBytes(size);
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
  return replaceWholeCounted(value, byteLength(value));
}

/** {@link replaceWhole}, its marker counting `bytes`. */
export function replaceWholeCounted(value: unknown, bytes: number): unknown {
  const marker = truncationMarker(bytes);
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

/** An event bounded by {@link boundEventSizeMeasured}, with the size of its JSON in UTF-8 bytes. */
export interface MeasuredEvent {
  /** The bounded event. A cut one is made on first read: the history keeps a large event as its JSON alone. */
  readonly event: ToolCallEvent;
  readonly bytes: number;
  /**
   * The event's JSON, the text measured (a cut event's markers with their "…" written `\u2026`): what a subscriber
   * that sends events on writes, without serialising them again.
   */
  readonly json: string;
  /**
   * The event's JSON as bytes, in memory of their own (exactly `bytes`, not a slice of a shared pool), from the JSON
   * made to measure it. A cut event's markers write their "…" as `\u2026`, so that an ASCII payload's JSON is ASCII.
   */
  encode(): Buffer;
}

/** `json` in memory of its own, `bytes` long (its UTF-8 size); ASCII (one byte a character) copied as it is. */
function ownBytes(json: string, bytes: number): Buffer {
  const out = Buffer.allocUnsafeSlow(bytes);
  out.write(json, bytes === json.length ? "latin1" : "utf8");
  return out;
}

/** An event measured from its JSON as it stands: under the bound, replaced whole, or cut with "…" and parsed back. */
class WholeEvent implements MeasuredEvent {
  readonly #json: string;
  readonly bytes: number;
  constructor(
    readonly event: ToolCallEvent,
    json: string,
  ) {
    this.#json = json;
    this.bytes = Buffer.byteLength(json);
  }
  get json(): string {
    return this.#json;
  }
  encode(): Buffer {
    return ownBytes(this.#json, this.bytes);
  }
}

function measured(event: ToolCallEvent): MeasuredEvent {
  return new WholeEvent(event, JSON.stringify(event) ?? "");
}

/** {@link STAND_IN_JSON} as bytes, to find in an encoded event. */
const STAND_IN_BYTES = Buffer.from(STAND_IN_JSON);

/**
 * `record` with its `present` payload fields read from `parse()`'s result: the other fields as they are, in their
 * order, and each payload field a getter that parses once (for all of them) and then becomes a plain property;
 * writing one replaces it. `record` itself is not kept: only its small fields are.
 */
function withPayloadParsed(
  record: Record<string, unknown>,
  present: readonly string[],
  parse: () => Record<string, unknown>,
): ToolCallEvent {
  const event: Record<string, unknown> = {};
  let parsed: Record<string, unknown> | undefined;
  const define = (key: string, value: unknown) =>
    Object.defineProperty(event, key, { value, writable: true, enumerable: true, configurable: true });
  for (const key of Object.keys(record)) {
    const value = record[key];
    // JSON drops an undefined field; so does this event, as a parsed one would.
    if (value === undefined) continue;
    if (!present.includes(key)) event[key] = value;
    else
      Object.defineProperty(event, key, {
        enumerable: true,
        configurable: true,
        get: () => {
          parsed ??= parse();
          define(key, parsed[key]);
          return parsed[key];
        },
        set: (replacement: unknown) => define(key, replacement),
      });
  }
  return event as unknown as ToolCallEvent;
}

/**
 * A cut event, measured from its JSON with {@link STAND_IN} for each marker's "…": that JSON is encoded and each
 * stand-in's `0001` overwritten with `2026` in the bytes. The event's payload fields are parsed from that JSON only
 * when one of them is read: fresh strings, where a copy cut with `slice` would hold each whole payload string it was
 * cut from. Its other fields (ids, names, type, outcome: small, never cut) are the event's own, so that a
 * subscriber that routes or filters events by them (the SSE route: type and id) parses nothing.
 */
class CutEvent implements MeasuredEvent {
  readonly event: ToolCallEvent;
  /** The JSON with the markers' "…", made on first read (the history keeps only the bytes). */
  #markedJson: string | undefined;
  readonly #json: string;
  readonly bytes: number;
  constructor(standInJson: string, record: Record<string, unknown>, present: readonly string[]) {
    this.#json = standInJson;
    this.bytes = Buffer.byteLength(standInJson);
    this.event = withPayloadParsed(record, present, () => JSON.parse(this.json) as Record<string, unknown>);
  }
  get json(): string {
    this.#markedJson ??= this.#json.replaceAll(STAND_IN_JSON, MARKER_JSON);
    return this.#markedJson;
  }
  encode(): Buffer {
    const out = ownBytes(this.#json, this.bytes);
    for (let at = out.indexOf(STAND_IN_BYTES); at !== -1; at = out.indexOf(STAND_IN_BYTES, at + 6))
      out.write("2026", at + 2, "latin1");
    return out;
  }
}

/** How many times `needle` occurs in `text`. */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/**
 * A copy of `record` with the strings of its `present` payload fields cut to `keepBytes`, each cut marked with
 * `ellipsis` before `[truncated N bytes]`, and `onMark` called once for each mark made.
 */
function cutPayload(
  record: Record<string, unknown>,
  present: readonly string[],
  keepBytes: number,
  ellipsis: string,
  onMark: () => void,
): ToolCallEvent {
  const leaf = (text: string) => {
    const cut = cutString(text, keepBytes, ellipsis);
    if (cut !== text) onMark();
    return cut;
  };
  const deeper = (value: object) => {
    onMark();
    return `${ellipsis}[truncated ${byteLength(value)} bytes]`;
  };
  const copy: Record<string, unknown> = { ...record };
  for (const field of present) copy[field] = mapStrings(record[field], 0, leaf, deeper);
  return copy as unknown as ToolCallEvent;
}

const noMarkCount = () => {};

/**
 * `record` cut to `keepBytes` a string and measured, from a copy marked with {@link STAND_IN} (see
 * {@link CutEvent}). When the payload itself holds the stand-in's text (more of it than marks were made), a copy
 * with "…" is serialised instead.
 */
function cutMeasured(
  record: Record<string, unknown>,
  present: readonly string[],
  keepBytes: number,
): MeasuredEvent {
  let marks = 0;
  const json = JSON.stringify(cutPayload(record, present, keepBytes, STAND_IN, () => marks++)) ?? "";
  if (occurrences(json, STAND_IN_JSON) === marks) return new CutEvent(json, record, present);
  // Parsed back, as a cut event is read: strings of their own, not slices of the payload's.
  const withEllipsis = JSON.stringify(cutPayload(record, present, keepBytes, "…", noMarkCount)) ?? "";
  return new WholeEvent(JSON.parse(withEllipsis) as ToolCallEvent, withEllipsis);
}

/**
 * How an event over the bound is to be cut: its payload fields, the UTF-8 lengths of their strings in the order
 * {@link mapStrings} visits them, its size as JSON (counted from a skeleton when the strings alone are over the
 * bound), and the longest a string may stay (`undefined`: the payload is many small parts, replaced whole).
 */
export interface CutPlan {
  readonly record: Record<string, unknown>;
  readonly present: readonly string[];
  readonly lengths: readonly number[];
  readonly size: number;
  readonly keep: number | undefined;
}

/** The event measured whole when it fits `maxBytes`, else how to cut it. */
export function planEventBound(
  event: ToolCallEvent,
  maxBytes: number,
): { measured: MeasuredEvent } | CutPlan {
  const record = event as unknown as Record<string, unknown>;
  const present = PAYLOAD_FIELDS.filter((field) => record[field] !== undefined);
  const lengths: number[] = [];
  for (const field of present) stringLengths(record[field], 0, lengths);
  const stringBytes = lengths.reduce((sum, n) => sum + n, 0);
  let size: number;
  if (stringBytes <= maxBytes) {
    const whole = measured(event);
    if (whole.bytes <= maxBytes) return { measured: whole };
    size = whole.bytes;
  } else {
    // The strings alone are over the bound (a string's JSON is at least its bytes): the event is not serialised
    // whole, only what surrounds them (a large payload was serialised twice a call, 16 KiB or more each time).
    const skeleton: Record<string, unknown> = { ...record };
    for (const field of present) skeleton[field] = mapStrings(record[field], 0, blank, asItIs);
    size = byteLength(skeleton) + stringBytes;
  }
  return { record, present, lengths, size, keep: stringBudget([...lengths], size, maxBytes) };
}

/** The payload fields of `plan` replaced whole by their markers, measured. */
export function replacedWhole(plan: CutPlan): MeasuredEvent {
  const copy: Record<string, unknown> = { ...plan.record };
  for (const field of plan.present) copy[field] = replaceWhole(plan.record[field]);
  return measured(copy as unknown as ToolCallEvent);
}

/**
 * {@link boundEventSize}, with the bounded event's JSON and its size in bytes: the event is serialised once to
 * measure it, and the caller that keeps it by size (the event history) need not serialise it again.
 */
export function boundEventSizeMeasured(
  event: ToolCallEvent,
  maxBytes: number = DEFAULT_EVENT_MAX_BYTES,
): MeasuredEvent {
  const plan = planEventBound(event, maxBytes);
  return "measured" in plan ? plan.measured : cutToFit(plan, maxBytes);
}

/** The event of `plan` cut to fit `maxBytes`, serialised to check it. */
export function cutToFit(plan: CutPlan, maxBytes: number): MeasuredEvent {
  const { record, present, keep } = plan;
  // Escapes can make the cut event a little larger than planned: a few tighter tries, then the payload goes whole.
  for (
    let k = keep, tries = 0;
    k !== undefined && k >= MIN_STRING_BYTES && tries < CUT_TRIES;
    k = Math.floor(k / 2), tries++
  ) {
    const cut = cutMeasured(record, present, k);
    if (cut.bytes <= maxBytes) return cut;
  }
  return replacedWhole(plan);
}
