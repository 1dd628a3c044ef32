import type { ToolCallEvent, ToolCallEventSink } from "@trestle/core";
import { boundEventSizeMeasured, DEFAULT_EVENT_MAX_BYTES } from "./event-size.js";

/** Options for {@link createEventHub}. */
export interface EventHubOptions {
  /** How many events the history keeps; the oldest go first. Default 1 000; 0 keeps none. */
  historySize?: number;
  /** How long the history keeps an event, in milliseconds. Default one hour. */
  historyMaxAgeMs?: number;
  /**
   * Bytes the history may hold in all (events serialised as JSON); the oldest go first. Default 8 MiB. With
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
   * Delivers each later event to `listener`, in order. A listener that returns a promise gets the next event
   * once it settles; events arriving meanwhile wait in its buffer (the oldest dropped when it is full), so a
   * slow listener never holds up `emit`. What a listener throws or rejects with is ignored.
   */
  subscribe(
    listener: (event: ToolCallEvent) => void | Promise<void>,
    options?: SubscribeOptions,
  ): Subscription;
  /** Async-iterable subscription with a bounded buffer, for SSE streams. */
  stream(options?: EventStreamOptions): EventStream;
  /** Events still in the history, oldest first. */
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

/**
 * One event of the history: built at once (`event`), or kept as the function that builds it (`build`) until the
 * history is read. `bytes` is its size as JSON when built at once, the caller's estimate otherwise.
 */
interface HistoryEntry {
  event?: ToolCallEvent | undefined;
  build?: (() => ToolCallEvent) | undefined;
  at: number;
  bytes: number;
}

interface Subscriber {
  offer(event: ToolCallEvent): void;
}

/**
 * Creates an {@link EventHub}.
 *
 * @example
 * ```ts
 * const hub = createEventHub({ historySize: 500 });
 * const bridge = createInvokerBridge({ resolver, transports, events: hub });
 * for await (const event of hub.stream({ signal })) sse.send(event.type, event.eventId, event);
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
  /**
   * The history, oldest first from `head`: each entry an event, or how to build it when the history is first
   * read. Dropping the oldest moves `head` rather than shifting the array (a full history drops one entry per
   * call, and `shift()` of a thousand entries cost about 2 µs a call); the dropped slots are cut off in one go once
   * they are half of the array.
   */
  let recent: (HistoryEntry | undefined)[] = [];
  let head = 0;
  let recentBytes = 0;
  const recentCount = () => recent.length - head;

  function dropOldest(): void {
    const oldest = recent[head];
    recent[head] = undefined;
    head++;
    if (oldest) recentBytes -= oldest.bytes;
    if (head >= 64 && head * 2 >= recent.length) {
      recent = recent.slice(head);
      head = 0;
    }
  }

  function prune(now: number): void {
    while (recentCount() > historySize || (recentCount() > 0 && recentBytes > historyMaxBytes)) dropOldest();
    while (recentCount() > 0 && now - (recent[head]?.at ?? now) > historyMaxAgeMs) dropOldest();
  }

  function emit(raw: ToolCallEvent): void {
    try {
      const now = clock();
      // Bounded once, here: the history, SSE subscribers and the debug log all see the same bounded event.
      const { event, bytes } = boundEventSizeMeasured(raw, eventMaxBytes);
      if (historySize > 0) {
        recent.push({ event, at: now, bytes });
        recentBytes += bytes;
      }
      prune(now);
      for (const subscriber of subscribers) subscriber.offer(event);
    } catch {
      // emit must never throw into a tool call.
    }
  }

  function emitLater(build: () => ToolCallEvent, estimatedBytes: number): boolean {
    // Someone reads events as they happen: they want this one now.
    if (subscribers.size > 0) return false;
    if (historySize === 0) return true;
    // A large call is bounded now rather than held whole until the history is read.
    if (estimatedBytes > eventMaxBytes) return false;
    try {
      const now = clock();
      recent.push({ build, at: now, bytes: estimatedBytes });
      recentBytes += estimatedBytes;
      prune(now);
    } catch {
      // emitLater must never throw into a tool call.
    }
    return true;
  }

  /** The entry's event, built (and bounded) on first read; an entry whose build fails is left out. */
  function eventOf(entry: HistoryEntry): ToolCallEvent | undefined {
    if (entry.event) return entry.event;
    const build = entry.build;
    entry.build = undefined;
    try {
      if (build) entry.event = boundEventSizeMeasured(build(), eventMaxBytes).event;
    } catch {
      // A build that throws loses its event, as an emit that throws would have.
    }
    return entry.event;
  }

  function subscribe(
    listener: (event: ToolCallEvent) => void | Promise<void>,
    subscribeOptions: SubscribeOptions = {},
  ): Subscription {
    const queue = new DroppingQueue<ToolCallEvent>(subscribeOptions.bufferSize ?? defaultBuffer);
    const filter = subscribeOptions.filter;
    // True while a listener's promise is pending: events then wait in the queue.
    let busy = false;
    let active = true;

    /** Calls the listener; returns its promise when it is still working, so delivery waits for it. */
    function deliver(event: ToolCallEvent): Promise<void> | undefined {
      try {
        const returned = listener(event);
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
      offer(event) {
        if (!active || (filter && !safeTest(filter, event))) return;
        if (busy) {
          queue.push(event);
          return;
        }
        const pending = deliver(event);
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
      offer(event) {
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
      for (let i = head; i < recent.length; i++) {
        const event = eventOf(recent[i] as HistoryEntry);
        if (event) events.push(event);
      }
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
