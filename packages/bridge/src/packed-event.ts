import type { ToolCallEvent } from "@trestle/core/events";
import {
  byteLength,
  CUT_TRIES,
  type CutPlan,
  cutToFit,
  type MeasuredEvent,
  MIN_STRING_BYTES,
  mapStrings,
  markerJsonBytes,
  planEventBound,
  replacedWhole,
  replaceWholeCounted,
  truncationMarker,
} from "./event-size.js";

/**
 * Payload strings at least this long go into a packed event's bytes even when they are kept whole; a shorter one
 * stays in its skeleton as it is. V8 makes a substring this long or longer a slice of its parent (and a
 * concatenation a pair of its parts), so keeping it could keep a whole payload; a shorter one is a string of its own.
 */
const PACK_FROM_LENGTH = 13;

/** Where a packed string went in the bytes: the index of its span. */
class PackedRef {
  constructor(readonly span: number) {}
}

/** Numbers a span takes in `PackedEvent.#spans`: start, kept bytes, ASCII (1) or not (0), the string's bytes. */
const SPAN = 4;

/**
 * A large event as the history keeps it while nobody reads it: its payload strings cut to the bound as
 * `boundEventSizeMeasured` would cut them, but copied as bytes into one buffer of their own instead of being
 * serialised. Serialising a 16 KiB event costs about 25 µs on Node 20 (its JSON escaping goes a character at a
 * time), twice a call when calls carry large payloads, for a history most routers never read; copying the kept
 * bytes costs a few. The event is built from the bytes when it is read, and only then serialised to check the
 * bound exactly: the plan counts each string's bytes, not the escapes its JSON adds (quotes, backslashes, control
 * characters), so a read may cut further, as `boundEventSizeMeasured` does when its first cut comes out too large.
 * Its {@link bytes} are what it holds (its skeleton measured, escapes aside): the history's budget is memory.
 */
export class PackedEvent {
  /** About the size of the event as JSON, escapes aside: what the history counts against its budget. */
  readonly bytes: number;
  /** The event with each packed string replaced by a {@link PackedRef}; every other value as it was. */
  readonly #skeleton: Record<string, unknown>;
  readonly #present: readonly string[];
  readonly #data: Buffer;
  readonly #spans: Float64Array;
  /** The plan's budget a string, which the first read keeps (and a tighter read halves). */
  readonly #keep: number;
  readonly #maxBytes: number;

  private constructor(
    skeleton: Record<string, unknown>,
    present: readonly string[],
    data: Buffer,
    spans: Float64Array,
    keep: number,
    bytes: number,
    maxBytes: number,
  ) {
    this.#skeleton = skeleton;
    this.#present = present;
    this.#data = data;
    this.#spans = spans;
    this.#keep = keep;
    this.bytes = bytes;
    this.#maxBytes = maxBytes;
  }

  /**
   * Packs `plan` (whose `keep` is defined): each string cut to `keep` bytes, never inside a character. Undefined
   * when a string to pack holds a lone surrogate, which UTF-8 cannot carry (JSON writes it as an escape).
   */
  static pack(plan: CutPlan & { keep: number }, maxBytes: number): PackedEvent | undefined {
    const { record, present, lengths, keep } = plan;
    let capacity = 0;
    for (const n of lengths) capacity += Math.min(n, keep);
    const data = Buffer.allocUnsafeSlow(capacity);
    const spans: number[] = [];
    let offset = 0;
    let next = 0;
    let stringBytes = 0;
    let keptBytes = 0;
    let malformed = false;
    const leaf = (text: string): unknown => {
      const bytes = lengths[next++] as number;
      stringBytes += bytes;
      if (text.length < PACK_FROM_LENGTH && bytes <= keep) {
        keptBytes += bytes;
        return text;
      }
      const ascii = bytes === text.length;
      if (!ascii && !(text as string & { isWellFormed(): boolean }).isWellFormed()) malformed = true;
      const wanted = Math.min(bytes, keep);
      // latin1 writes one byte a character: an ASCII text's bytes, copied. utf8 writes only characters that fit
      // whole, surrogate pairs included.
      const written = data.write(text, offset, wanted, ascii ? "latin1" : "utf8");
      spans.push(offset, written, ascii ? 1 : 0, bytes);
      offset += written;
      keptBytes += written;
      return new PackedRef(spans.length / SPAN - 1);
    };
    const skeleton: Record<string, unknown> = { ...record };
    // mapStrings visits strings in the order planEventBound measured them.
    for (const field of present) skeleton[field] = mapStrings(record[field], 0, leaf, markDeep);
    if (malformed) return undefined;
    const packed = new Float64Array(spans);
    let markers = 0;
    for (let s = 0; s < packed.length; s += SPAN) {
      const cutOff = (packed[s + 3] as number) - (packed[s + 1] as number);
      if (cutOff > 0) markers += markerJsonBytes(cutOff);
    }
    const fixed = plan.size - stringBytes;
    return new PackedEvent(skeleton, present, data, packed, keep, fixed + keptBytes + markers, maxBytes);
  }

  /**
   * The event, built anew on every read (nothing parsed is kept), its JSON within the bound: the strings as packed,
   * then, while escapes make the JSON too large, cut to half as much again (as `boundEventSizeMeasured` tries), and
   * at last the payload replaced whole.
   */
  unpack(): ToolCallEvent {
    for (
      let keep = this.#keep, tries = 0;
      keep >= MIN_STRING_BYTES && tries < CUT_TRIES;
      keep = Math.floor(keep / 2), tries++
    ) {
      const event = this.#build(keep);
      if (Buffer.byteLength(JSON.stringify(event)) <= this.#maxBytes) return event;
    }
    return this.#replacedWhole();
  }

  /** The event with each packed string decoded, cut to at most `keep` bytes and marked where it was cut. */
  #build(keep: number): ToolCallEvent {
    const event: Record<string, unknown> = { ...this.#skeleton };
    const string = (ref: PackedRef) => this.#string(ref.span * SPAN, keep);
    for (const field of this.#present) event[field] = unpackStrings(this.#skeleton[field], string);
    return event as unknown as ToolCallEvent;
  }

  /** The string of the span at `s`, at most `keep` of its packed bytes, never ending inside a character. */
  #string(s: number, keep: number): string {
    const spans = this.#spans;
    const data = this.#data;
    const start = spans[s] as number;
    const packed = spans[s + 1] as number;
    const bytes = spans[s + 3] as number;
    let kept = Math.min(packed, keep);
    let text: string;
    if (spans[s + 2] === 1) text = data.toString("latin1", start, start + kept);
    else {
      // Back to the first byte of a character: a continuation byte is 10xxxxxx.
      while (kept > 0 && kept < packed && ((data[start + kept] as number) & 0xc0) === 0x80) kept--;
      text = data.toString("utf8", start, start + kept);
    }
    return kept < bytes ? `${text}${truncationMarker(bytes - kept)}` : text;
  }

  /** The payload fields replaced whole, as `boundEventSizeMeasured` does last; their strings counted as packed. */
  #replacedWhole(): ToolCallEvent {
    const event: Record<string, unknown> = { ...this.#skeleton };
    for (const field of this.#present) {
      let strings = 0;
      const blank = (ref: PackedRef) => {
        strings += this.#spans[ref.span * SPAN + 3] as number;
        return "";
      };
      const skeleton = unpackStrings(this.#skeleton[field], blank);
      event[field] = replaceWholeCounted(skeleton, byteLength(skeleton) + strings);
    }
    return event as unknown as ToolCallEvent;
  }
}

/** Nesting past MAX_DEPTH, marked as a cut marks it. */
const markDeep = (value: object) => truncationMarker(byteLength(value));

/** A copy of a packed skeleton's `value` with each {@link PackedRef} mapped by `string`. */
function unpackStrings(value: unknown, string: (ref: PackedRef) => string): unknown {
  if (value instanceof PackedRef) return string(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => unpackStrings(item, string));
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value))
    copy[key] = unpackStrings((value as Record<string, unknown>)[key], string);
  return copy;
}

/**
 * An event bounded for a history that nobody reads yet: measured whole when it fits, a {@link PackedEvent} when
 * its payload must be cut, and as `boundEventSizeMeasured` bounds it when the payload is many small parts or holds
 * a lone surrogate.
 */
export function boundForHistory(event: ToolCallEvent, maxBytes: number): MeasuredEvent | PackedEvent {
  const plan = planEventBound(event, maxBytes);
  if ("measured" in plan) return plan.measured;
  if (plan.keep === undefined) return replacedWhole(plan);
  return PackedEvent.pack(plan as CutPlan & { keep: number }, maxBytes) ?? cutToFit(plan, maxBytes);
}
