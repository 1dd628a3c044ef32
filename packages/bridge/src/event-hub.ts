import type { DeferredToolCallEvents, ToolCallEvent, ToolCallEventSink } from "@trestle/core/events";
import { boundEventSizeMeasured, DEFAULT_EVENT_MAX_BYTES, type MeasuredEvent } from "./event-size.js";
import { boundForHistory, PackedEvent } from "./packed-event.js";

/** Options for {@link createEventHub}. */
export interface EventHubOptions {
  /** How many events the history keeps; the oldest go first. Default 1 000; 0 keeps none. */
  historySize?: number;
  /** How long the history keeps an event, in milliseconds. Default one hour. */
  historyMaxAgeMs?: number;
  /**
   * Bytes the history may hold in all (events serialised as JSON; a packed one counts its kept strings' bytes,
   * escapes aside); the oldest go first. Default 8 MiB. With
   * `historySize` it bounds the history's memory whatever the calls carry. An event offered with `emitLater`
   * counts its caller's estimate until the history is read, and is then built and bounded like any other.
   */
  historyMaxBytes?: number;
  /**
   * Largest event, serialised as JSON: a larger one has its payload (arguments, body, content…) cut, each cut
   * marked `…[truncated N bytes]`, before it reaches the history or any subscriber. Default 16 KiB.
   */
  eventMaxBytes?: number;
  /** Default buffer of each subscriber: events waiting for a slow subscriber beyond this are dropped, oldest first. Default 256. */
  subscriberBuffer?: number;
  /** Milliseconds since the epoch, for history ages; `Date.now` by default. */
  clock?: () => number;
}

/** Told of each event by {@link EventHub.subscribe}: the event, bounded, and the same event as JSON. */
export type ToolCallEventListener = (event: ToolCallEvent, json: string) => void | Promise<void>;

/** Options for {@link EventHub.subscribe}. */
export interface SubscribeOptions {
  /** This subscriber's buffer; the hub's `subscriberBuffer` by default. */
  bufferSize?: number;
  /** Only events for which it returns true are delivered (and count against the buffer). */
  filter?: (event: ToolCallEvent) => boolean;
}

/** A live subscription. */
export interface Subscription {
  /** Stops delivery; events still buffered are discarded. Idempotent. */
  unsubscribe(): void;
  /** How many events this subscriber missed because its buffer was full. */
  readonly dropped: number;
}

/** Options for {@link EventHub.stream}. */
export interface EventStreamOptions {
  /** Ends the stream when it aborts. */
  signal?: AbortSignal;
  /** Events buffered while the reader is busy; beyond it the oldest are dropped. The hub's default otherwise. */
  bufferSize?: number;
  /** Only events for which it returns true are delivered. */
  filter?: (event: ToolCallEvent) => boolean;
}

/** A subscription read with `for await`; it ends when `signal` aborts or the loop exits. */
export type EventStream = AsyncIterable<ToolCallEvent> & {
  /** How many events this stream missed because its reader was slower than the calls. */
  readonly dropped: number;
};

/** Which events {@link EventHub.history} returns. */
export interface HistoryFilter {
  /** At most this many, the most recent. */
  limit?: number;
  toolName?: string;
  type?: ToolCallEvent["type"];
  namespace?: string;
}

/**
 * An in-process {@link ToolCallEventSink} that fans events out to subscribers and keeps a history.
 * `emit` never blocks and never throws: each subscriber has its own bounded buffer, so a slow subscriber
 * never slows a tool call; when its buffer is full it loses its oldest events and counts them.
 */
export interface EventHub extends ToolCallEventSink {
  /**
   * Delivers each later event to `listener`, in order, with its JSON (the text the hub measured it by: a
   * subscriber that writes events out, as an SSE stream does, need not serialise them again). A listener that
   * returns a promise gets the next event once it settles; events arriving meanwhile wait in its buffer (the
   * oldest dropped when it is full), so a slow listener never holds up `emit`. What a listener throws or rejects
   * with is ignored.
   */
  subscribe(listener: ToolCallEventListener, options?: SubscribeOptions): Subscription;
  /** Async-iterable subscription with a bounded buffer, for a reader that pulls events with `for await`. */
  stream(options?: EventStreamOptions): EventStream;
  /**
   * Events still in the history, oldest first. An event of 2 KiB or more as JSON is kept as those bytes and
   * parsed on every read (a new object each time); a smaller one is the object itself. A large event cut while
   * nobody subscribed is kept packed (the bytes of its kept strings, not serialised) and built, cut as a
   * subscriber would have had it, on every read. With a `limit` and no other filter, only the entries returned
   * are built or parsed.
   */
  history(filter?: HistoryFilter): ToolCallEvent[];
}

/** Bytes of events the history keeps by default: 8 MiB. */
export const DEFAULT_HISTORY_MAX_BYTES = 8 * 1024 * 1024;

/** A bounded FIFO that drops its oldest entry when full and counts what it dropped. */
class DroppingQueue<T> {
  private readonly items: T[] = [];
  dropped = 0;
  constructor(private readonly capacity: number) {}
  push(item: T): void {
    if (this.capacity <= 0) {
      this.dropped++;
      return;
    }
    if (this.items.length >= this.capacity) {
      this.items.shift();
      this.dropped++;
    }
    this.items.push(item);
  }
  shift(): T | undefined {
    return this.items.shift();
  }
  get size(): number {
    return this.items.length;
  }
  clear(): void {
    this.items.length = 0;
  }
}

/** The step of an entry whose event is built: `HistoryRing.items` holds the event itself, or its JSON as bytes. */
const BUILT = -1;

/**
 * Events at least this large (as JSON) are kept as their JSON's bytes, outside V8's heap. Kept as objects, the
 * large events of a router whose calls carry large payloads (16 KiB each way: 70 KB a call promoted) were copied by
 * every young collection they outlived and then filled the old generation: garbage collection took 300–450 µs a
 * call. As bytes, the collector sees one small object per event; the history's reader parses them.
 */
const KEEP_AS_BYTES_FROM = 2048;

/**
 * What the history holds for one event: the event, a large one's JSON as bytes or (cut while nobody read events)
 * packed, or the call that builds it.
 */
type HistoryEntry = ToolCallEvent | Buffer | PackedEvent | DeferredToolCallEvents;

/**
 * The history: events, oldest first, each built at once or kept unbuilt (the call's {@link DeferredToolCallEvents}
 * and the event's step) until the history is first read. A ring of parallel arrays rather than an object per
 * event: a router keeps about a thousand events whatever its load, and every object they hold outlives the young
 * collections and is copied by them (the times in a `Float64Array`, as numbers in objects would be one more
 * object each). The arrays grow by doubling up to the history's size, so a large `historySize` costs nothing until
 * the events are there.
 */
class HistoryRing {
  /** Each slot's entry; `undefined` in a free slot. */
  private items: (HistoryEntry | undefined)[] = [];
  /** {@link BUILT}, or the step to build. */
  private steps: number[] = [];
  /** When each entry was offered (the hub's clock). */
  private at = new Float64Array(0);
  /** Each entry's size as JSON when built, its caller's estimate otherwise. */
  private sizes = new Float64Array(0);
  private head = 0;
  count = 0;
  bytes = 0;

  constructor(private readonly limit: number) {}

  /** Adds a built event, kept as bytes when it is large; a packed one as it is. */
  pushBuilt(event: MeasuredEvent | PackedEvent, at: number): void {
    this.push(event instanceof PackedEvent ? event : this.#kept(event), BUILT, at, event.bytes);
  }

  push(item: HistoryEntry, step: number, at: number, bytes: number): void {
    if (this.count === this.items.length) this.grow();
    const slot = this.slot(this.count);
    this.items[slot] = item;
    this.steps[slot] = step;
    this.at[slot] = at;
    this.sizes[slot] = bytes;
    this.count++;
    this.bytes += bytes;
  }

  dropOldest(): void {
    const slot = this.head;
    this.items[slot] = undefined;
    this.bytes -= this.sizes[slot] as number;
    this.head = (slot + 1) % this.items.length;
    this.count--;
  }

  /** When the oldest entry was offered. */
  oldestAt(): number {
    return this.at[this.head] as number;
  }

  /**
   * The entry `index` from the oldest, built and bounded by `bound` on first read, from then on counting its size as
   * JSON instead of the estimate; undefined if its build failed.
   */
  eventAt(index: number, bound: (event: ToolCallEvent) => MeasuredEvent): ToolCallEvent | undefined {
    const slot = this.slot(index);
    const item = this.items[slot];
    const step = this.steps[slot] as number;
    if (step === BUILT) {
      // A new object on every read: parsed bytes are not kept, or the heap would hold the event again.
      if (Buffer.isBuffer(item)) return JSON.parse(item.toString()) as ToolCallEvent;
      return item instanceof PackedEvent ? item.unpack() : (item as ToolCallEvent | undefined);
    }
    this.steps[slot] = BUILT;
    this.items[slot] = undefined;
    let built: MeasuredEvent | undefined;
    try {
      built = bound((item as DeferredToolCallEvents).buildEvent(step));
    } catch {
      // A build that throws loses its event, as an emit that throws would have.
    }
    this.bytes += (built?.bytes ?? 0) - (this.sizes[slot] as number);
    this.sizes[slot] = built?.bytes ?? 0;
    this.items[slot] = built && this.#kept(built);
    return built?.event;
  }

  /** What the ring keeps of a built event: its JSON's bytes when it is large. */
  #kept(measured: MeasuredEvent): ToolCallEvent | Buffer {
    // Bytes of its own, not a slice of a shared pool (which a kept slice would hold whole).
    return measured.bytes < KEEP_AS_BYTES_FROM ? measured.event : measured.encode();
  }

  private slot(index: number): number {
    return (this.head + index) % this.items.length;
  }

  /** Doubles the arrays (up to the limit; one more slot when full), keeping the entries in order from slot 0. */
  private grow(): void {
    const capacity = Math.max(1, Math.min(Math.max(16, this.items.length * 2), this.limit + 1));
    const items: (HistoryEntry | undefined)[] = new Array(capacity).fill(undefined);
    const steps: number[] = new Array(capacity).fill(BUILT);
    const at = new Float64Array(capacity);
    const sizes = new Float64Array(capacity);
    for (let i = 0; i < this.count; i++) {
      const from = this.slot(i);
      items[i] = this.items[from];
      steps[i] = this.steps[from] as number;
      at[i] = this.at[from] as number;
      sizes[i] = this.sizes[from] as number;
    }
    this.items = items;
    this.steps = steps;
    this.at = at;
    this.sizes = sizes;
    this.head = 0;
  }
}

interface Subscriber {
  offer(measured: MeasuredEvent): void;
}

/**
 * Creates an {@link EventHub}.
 *
 * @example
 * ```ts
 * const hub = createEventHub({ historySize: 500 });
 * const bridge = createInvokerBridge({ resolver, transports, events: hub });
 * hub.subscribe((event, json) => sse.send(json, { event: event.type }));
 * for await (const event of hub.stream({ signal })) console.log(event.type, event.toolName);
 * ```
 */
export function createEventHub(options: EventHubOptions = {}): EventHub {
  const historySize = Math.max(0, options.historySize ?? 1_000);
  const historyMaxAgeMs = options.historyMaxAgeMs ?? 3_600_000;
  const defaultBuffer = options.subscriberBuffer ?? 256;
  const historyMaxBytes = Math.max(0, options.historyMaxBytes ?? DEFAULT_HISTORY_MAX_BYTES);
  const eventMaxBytes = options.eventMaxBytes ?? DEFAULT_EVENT_MAX_BYTES;
  const clock = options.clock ?? Date.now;
  const subscribers = new Set<Subscriber>();
  const recent = new HistoryRing(historySize);
  const bound = (event: ToolCallEvent) => boundEventSizeMeasured(event, eventMaxBytes);

  function prune(now: number): void {
    while (recent.count > historySize || (recent.count > 0 && recent.bytes > historyMaxBytes))
      recent.dropOldest();
    while (recent.count > 0 && now - recent.oldestAt() > historyMaxAgeMs) recent.dropOldest();
  }

  function emit(raw: ToolCallEvent): void {
    try {
      const now = clock();
      if (subscribers.size === 0) {
        // Only the history wants it, and may never be read: a large event is cut but not serialised.
        if (historySize > 0) recent.pushBuilt(boundForHistory(raw, eventMaxBytes), now);
        prune(now);
        return;
      }
      // Bounded once, here: the history, SSE subscribers and the debug log all see the same bounded event.
      const measured = boundEventSizeMeasured(raw, eventMaxBytes);
      if (historySize > 0) recent.pushBuilt(measured, now);
      prune(now);
      for (const subscriber of subscribers) subscriber.offer(measured);
    } catch {
      // emit must never throw into a tool call.
    }
  }

  function emitLater(events: DeferredToolCallEvents, step: number, estimatedBytes: number): boolean {
    // Someone reads events as they happen: they want this one now.
    if (subscribers.size > 0) return false;
    if (historySize === 0) return true;
    // A large call is bounded now rather than held whole until the history is read.
    if (estimatedBytes > eventMaxBytes) return false;
    try {
      const now = clock();
      recent.push(events, step, now, estimatedBytes);
      prune(now);
    } catch {
      // emitLater must never throw into a tool call.
    }
    return true;
  }

  function subscribe(listener: ToolCallEventListener, subscribeOptions: SubscribeOptions = {}): Subscription {
    const queue = new DroppingQueue<MeasuredEvent>(subscribeOptions.bufferSize ?? defaultBuffer);
    const filter = subscribeOptions.filter;
    // True while a listener's promise is pending: events then wait in the queue.
    let busy = false;
    let active = true;

    /** Calls the listener; returns its promise when it is still working, so delivery waits for it. */
    function deliver(measured: MeasuredEvent): Promise<void> | undefined {
      try {
        const returned = listener(measured.event, measured.json);
        return returned instanceof Promise ? returned : undefined;
      } catch {
        // A failing listener loses that event, not the subscription.
        return undefined;
      }
    }

    async function drainAfter(pending: Promise<void>): Promise<void> {
      busy = true;
      try {
        for (let wait: Promise<void> | undefined = pending; ; ) {
          if (wait) await wait.catch(() => undefined);
          const next = active ? queue.shift() : undefined;
          if (!next) return;
          wait = deliver(next);
        }
      } finally {
        busy = false;
      }
    }

    const subscriber: Subscriber = {
      offer(measured) {
        if (!active || (filter && !safeTest(filter, measured.event))) return;
        if (busy) {
          queue.push(measured);
          return;
        }
        const pending = deliver(measured);
        if (pending) void drainAfter(pending);
      },
    };
    subscribers.add(subscriber);
    return {
      unsubscribe() {
        active = false;
        subscribers.delete(subscriber);
        queue.clear();
      },
      get dropped() {
        return queue.dropped;
      },
    };
  }

  function stream(streamOptions: EventStreamOptions = {}): EventStream {
    const queue = new DroppingQueue<ToolCallEvent>(streamOptions.bufferSize ?? defaultBuffer);
    const filter = streamOptions.filter;
    const signal = streamOptions.signal;
    let waiting: ((result: IteratorResult<ToolCallEvent>) => void) | undefined;
    let done = false;

    const finish = () => {
      if (done) return;
      done = true;
      subscribers.delete(subscriber);
      signal?.removeEventListener("abort", finish);
      queue.clear();
      const wake = waiting;
      waiting = undefined;
      wake?.({ done: true, value: undefined });
    };
    const subscriber: Subscriber = {
      offer(measured) {
        const event = measured.event;
        if (done || (filter && !safeTest(filter, event))) return;
        const wake = waiting;
        if (wake) {
          waiting = undefined;
          wake({ done: false, value: event });
        } else {
          queue.push(event);
        }
      },
    };
    subscribers.add(subscriber);
    if (signal?.aborted) finish();
    else signal?.addEventListener("abort", finish, { once: true });

    const iterator: AsyncIterator<ToolCallEvent> = {
      next() {
        const event = queue.shift();
        if (event) return Promise.resolve({ done: false, value: event });
        if (done) return Promise.resolve({ done: true, value: undefined });
        return new Promise((resolve) => {
          waiting = resolve;
        });
      },
      return() {
        finish();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
    return {
      [Symbol.asyncIterator]: () => iterator,
      get dropped() {
        return queue.dropped;
      },
    };
  }

  return {
    emit,
    emitLater,
    wantsEvents: () => historySize > 0 || subscribers.size > 0,
    subscribe,
    stream,
    history(filter = {}) {
      prune(clock());
      let events: ToolCallEvent[] = [];
      // With a limit and no other filter, only the entries it returns are built or parsed (a large event is parsed
      // on every read: a history of 8 MiB of them read 100 at a time parses 100).
      const limitOnly =
        filter.limit !== undefined &&
        filter.toolName === undefined &&
        filter.type === undefined &&
        filter.namespace === undefined;
      const from = limitOnly ? Math.max(0, recent.count - Math.max(0, filter.limit as number)) : 0;
      for (let i = from; i < recent.count; i++) {
        const event = recent.eventAt(i, bound);
        if (event) events.push(event);
      }
      // What was built counts its own size now, which may be more than its estimate.
      prune(clock());
      if (filter.toolName !== undefined) events = events.filter((e) => e.toolName === filter.toolName);
      if (filter.type !== undefined) events = events.filter((e) => e.type === filter.type);
      if (filter.namespace !== undefined) events = events.filter((e) => e.namespace === filter.namespace);
      if (filter.limit !== undefined) events = filter.limit > 0 ? events.slice(-filter.limit) : [];
      return events;
    },
  };
}

function safeTest(filter: (event: ToolCallEvent) => boolean, event: ToolCallEvent): boolean {
  try {
    return filter(event);
  } catch {
    return false;
  }
}
