import { Code, TrestleError } from "@trestle/core";

/** Per-call processes one target may run at once, unless the transport is told otherwise. */
export const DEFAULT_MAX_PER_CALL_PROCESSES = 8;

/** Calls of one target that may wait for a per-call process slot, per process allowed. */
const QUEUED_PER_PROCESS = 4;

/** How many per-call processes of one target may run, and how many calls may wait for one. */
export interface PerCallLimit {
  /** Processes of one target at once. Default {@link DEFAULT_MAX_PER_CALL_PROCESSES}. */
  maxProcesses?: number;
  /** Calls of one target waiting for a free process slot; more fail at once. Default: 4 × `maxProcesses`. */
  maxQueued?: number;
}

/** Slots for per-call processes, counted per target. */
export interface SpawnLimit {
  /**
   * Takes a slot of `targetId`, waiting in a bounded queue (first come, first served) while all are taken; the
   * returned function gives it back (call it exactly once).
   *
   * @throws TrestleError `ResourceExhausted` when the queue is full (saying so with `label`); the signal's reason
   * when it aborts while waiting (the call's deadline or cancellation).
   */
  acquire(targetId: string, label: string, signal: AbortSignal): Promise<() => void>;
}

interface Waiter {
  grant(): void;
}

interface Slots {
  running: number;
  queue: Waiter[];
}

/** Creates a {@link SpawnLimit}. */
export function createSpawnLimit(limit: PerCallLimit = {}): SpawnLimit {
  const maxProcesses = limit.maxProcesses ?? DEFAULT_MAX_PER_CALL_PROCESSES;
  const maxQueued = limit.maxQueued ?? maxProcesses * QUEUED_PER_PROCESS;
  const byTarget = new Map<string, Slots>();

  function releaser(targetId: string, slots: Slots): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = slots.queue.shift();
      if (next) {
        // The slot passes straight to the next waiter: `running` stays as it is.
        next.grant();
        return;
      }
      slots.running--;
      if (slots.running === 0) byTarget.delete(targetId);
    };
  }

  return {
    acquire(targetId, label, signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      let slots = byTarget.get(targetId);
      if (!slots) {
        slots = { running: 0, queue: [] };
        byTarget.set(targetId, slots);
      }
      const own = slots;
      if (own.running < maxProcesses) {
        own.running++;
        return Promise.resolve(releaser(targetId, own));
      }
      if (own.queue.length >= maxQueued) {
        return Promise.reject(
          new TrestleError(
            `The MCP server ${label} already runs ${maxProcesses} per-call processes for this forward and ${maxQueued} calls are waiting for one; try again later`,
            Code.ResourceExhausted,
          ),
        );
      }
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          grant() {
            signal.removeEventListener("abort", onAbort);
            resolve(releaser(targetId, own));
          },
        };
        const onAbort = () => {
          const at = own.queue.indexOf(waiter);
          if (at >= 0) own.queue.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        own.queue.push(waiter);
      });
    },
  };
}
