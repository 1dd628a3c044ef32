import {
  type CallOptions,
  Code,
  type CodeOutput,
  cancellationOf,
  type Interceptor,
  type ServiceTarget,
  type TransportRequest,
  type TransportResponse,
  TrestleError,
} from "@trestle/core";

/** How many calls one capability service (all its instances together) may take at once. */
export interface ConcurrencyLimit {
  /** Calls that may run at once; a positive integer. */
  maxConcurrentCalls: number;
  /** Calls that may wait, first in first out, for a free slot; beyond them a call fails at once. 0 = none wait. */
  maxQueuedCalls: number;
  /**
   * The deadline, in milliseconds, the transport gives a unary call that sets no `timeoutMs` (provisioning, tools,
   * resources). The time a call waits in the queue counts against it: a call that waited 3 s of a 10 s deadline
   * has 7 s left on the wire. Without it, a call without its own deadline waits as long as it takes.
   */
  unaryTimeoutMs?: number;
  /** The same for code execution streams. */
  streamTimeoutMs?: number;
}

/** Slots and waiters of one service. */
interface ServiceSlots {
  active: number;
  /** FIFO: a Set iterates in insertion order and lets a waiter that gives up leave from anywhere in O(1). */
  waiting: Set<Waiter>;
}

interface Waiter {
  /** Hands the waiter a slot that is already counted as active. */
  grant(): void;
}

/** A slot taken for one call: give it back exactly once when the call ends. */
export interface Slot {
  /** How long the call waited for the slot, in milliseconds. */
  waitedMs: number;
  release(): void;
}

/** The slots of every limited service; one pool is shared by every transport the limit applies to. */
export interface SlotPool {
  /**
   * Takes a slot of the target's service, waiting in line for one if need be.
   *
   * @throws TrestleError `ResourceExhausted` when the queue is full or the deadline passes while waiting,
   * `Canceled` when the signal aborts first.
   */
  acquire(
    target: ServiceTarget,
    limit: ConcurrencyLimit,
    options: CallOptions | undefined,
    deadlineMs: number | undefined,
  ): Promise<Slot>;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function describeLimit(limit: ConcurrencyLimit): string {
  return `at its limit of ${plural(limit.maxConcurrentCalls, "concurrent call")} and ${limit.maxQueuedCalls} queued`;
}

/** Creates the slots of the services `limitsFor` limits (asked again when a slot is released: limits may change). */
export function createSlotPool(limitsFor: (target: ServiceTarget) => ConcurrencyLimit | undefined): SlotPool {
  const slotsByService = new Map<string, ServiceSlots>();

  function releaseOne(serviceName: string, slots: ServiceSlots, limit: ConcurrencyLimit): void {
    slots.active--;
    // Hand freed slots to waiters in arrival order; a lowered limit lets the queue drain more slowly.
    for (const waiter of slots.waiting) {
      if (slots.active >= limit.maxConcurrentCalls) break;
      slots.waiting.delete(waiter);
      slots.active++;
      waiter.grant();
    }
    if (slots.active === 0 && slots.waiting.size === 0) slotsByService.delete(serviceName);
  }

  async function acquire(
    target: ServiceTarget,
    limit: ConcurrencyLimit,
    options: CallOptions | undefined,
    deadlineMs: number | undefined,
  ): Promise<Slot> {
    const cancellation = cancellationOf(options);
    if (cancellation?.aborted) throw TrestleError.from(cancellation.reason, Code.Canceled);
    const name = target.serviceName;
    let slots = slotsByService.get(name);
    if (!slots) {
      slots = { active: 0, waiting: new Set() };
      slotsByService.set(name, slots);
    }
    const held = slots;
    let released = false;
    const slot = (waitedMs: number): Slot => ({
      waitedMs,
      release() {
        if (released) return;
        released = true;
        releaseOne(name, held, limitsFor(target) ?? limit);
      },
    });
    if (held.active < limit.maxConcurrentCalls && held.waiting.size === 0) {
      held.active++;
      return slot(0);
    }
    if (held.waiting.size >= limit.maxQueuedCalls) {
      throw new TrestleError(describeLimit(limit), Code.ResourceExhausted);
    }
    const since = Date.now();
    return new Promise<Slot>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const leave = (error: TrestleError) => {
        held.waiting.delete(waiter);
        if (timer) clearTimeout(timer);
        cancellation?.offAbort(onAbort);
        if (held.active === 0 && held.waiting.size === 0) slotsByService.delete(name);
        reject(error);
      };
      const onAbort = () => leave(TrestleError.from(cancellation?.reason, Code.Canceled));
      const waiter: Waiter = {
        grant() {
          if (timer) clearTimeout(timer);
          cancellation?.offAbort(onAbort);
          resolve(slot(Math.max(1, Date.now() - since)));
        },
      };
      held.waiting.add(waiter);
      cancellation?.onAbort(onAbort);
      if (deadlineMs !== undefined) {
        timer = setTimeout(
          () =>
            leave(
              new TrestleError(
                `${describeLimit(limit)}; the call's deadline of ${deadlineMs} ms passed while it waited for a free slot`,
                Code.ResourceExhausted,
              ),
            ),
          deadlineMs,
        );
        timer.unref?.();
      }
    });
  }

  return { acquire };
}

/** The call's options with the deadline it has left after waiting, when it waited at all. */
export function remainingOptions<O extends CallOptions | undefined>(
  options: O,
  slot: Slot,
  deadlineMs: number | undefined,
): O | CallOptions {
  if (slot.waitedMs === 0 || deadlineMs === undefined) return options;
  return { ...options, timeoutMs: Math.max(1, deadlineMs - slot.waitedMs) };
}

/**
 * An interceptor that holds each call to a service until one of the service's slots is free: at most
 * `maxConcurrentCalls` calls to a service run at once, across all its instances and every transport this
 * interceptor is part of; up to `maxQueuedCalls` more wait in arrival order; any further call fails at once with
 * `ResourceExhausted` ("… at its limit of N concurrent calls and M queued"), so that a flood to one slow service
 * is refused early instead of piling up, and never holds calls to other services. A waiting call leaves the
 * queue when its signal aborts (`Canceled`) or its deadline passes while it waits (`ResourceExhausted`, since
 * the service was never asked); the time it waited counts against its deadline on the wire.
 *
 * Tool calls, resource reads, prompts and provisioning count while they run; a code execution stream counts
 * from its first read until it ends, fails or its consumer stops. Health probes are never held. Services for
 * which `limitsFor` returns `undefined` are not limited; `limitsFor` is asked on every call, so it should be
 * cheap. Use one interceptor for every transport, so that the limits hold across them.
 *
 * @example
 * ```ts
 * const limits = new Map([["slow-search", { maxConcurrentCalls: 4, maxQueuedCalls: 100 }]]);
 * const limit = concurrencyLimit((target) => limits.get(target.serviceName));
 * const grpc = withInterceptors(createGrpcTransport(), [limit]);
 * ```
 */
export function concurrencyLimit(
  limitsFor: (target: ServiceTarget) => ConcurrencyLimit | undefined,
): Interceptor {
  const pool = createSlotPool(limitsFor);
  return (next) =>
    <R extends TransportRequest>(request: R): TransportResponse<R> => {
      if (request.method === "probeHealth") return next(request);
      const limit = limitsFor(request.target);
      if (!limit) return next(request);
      const { options } = request;
      if (request.method === "executeCode") {
        const deadlineMs = options.timeoutMs ?? limit.streamTimeoutMs;
        async function* held(): AsyncGenerator<CodeOutput> {
          const slot = await pool.acquire(request.target, limit as ConcurrencyLimit, options, deadlineMs);
          try {
            yield* next({
              ...request,
              options: remainingOptions(options, slot, deadlineMs),
            }) as AsyncIterable<CodeOutput>;
          } finally {
            slot.release();
          }
        }
        return held() as unknown as TransportResponse<R>;
      }
      const deadlineMs = options.timeoutMs ?? limit.unaryTimeoutMs;
      const unary = async () => {
        const slot = await pool.acquire(request.target, limit, options, deadlineMs);
        try {
          return await (next({
            ...request,
            options: remainingOptions(options, slot, deadlineMs),
          }) as Promise<unknown>);
        } finally {
          slot.release();
        }
      };
      return unary() as TransportResponse<R>;
    };
}
