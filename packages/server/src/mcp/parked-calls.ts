import { randomUUID } from "node:crypto";
import type { InputAnswers, InputRequest, InputRequired, InputResponse } from "@trestle/core";
import { inputResponseFrom } from "./input-relay.js";

/**
 * What a call held open for a stateless client comes to next: its end, or the questions its backend asks (a
 * legacy upstream's sampling, elicitation or roots request, which waits for the answer while the call runs).
 */
export type CallTurn<R> = { done: R } | { asks: InputRequired; park: string };

interface Question {
  input: InputRequest;
  answer(response: InputResponse): void;
}

interface Parked<R> {
  /** Questions not answered yet, by the key the client sees. */
  open: Map<string, Question>;
  /** The next turn once every open question has an answer. */
  waiting: ((turn: CallTurn<R>) => void) | undefined;
  /** The call, running. */
  call: Promise<R>;
  abort: AbortController;
  /** Runs only while the call waits for its client's answers (from a turn with questions to the resume). */
  expiry: NodeJS.Timeout | undefined;
}

/** Options for {@link createParkedCalls}. */
export interface ParkedCallsOptions {
  /** How long a call may wait for its client's answers before it is cancelled. */
  holdMs: number;
  /** Most calls held at once on this router; a call past it is cancelled instead. */
  maxHeld: number;
}

/**
 * Calls whose backend asked a stateless client a question while it runs. Such a call cannot be repeated (the
 * backend holds its state in the running call), so the router holds it, answers the client `input_required`
 * with the questions, and continues the call when the client repeats its request with the answers. Only the
 * router holding the call can continue it: the sealed request state names it.
 */
export interface ParkedCalls {
  /**
   * Starts `run` with an input listener and an abort signal of its own, and resolves with its first turn: its
   * result, or the questions it asked (the call keeps running, held under `park`).
   */
  start<R>(
    run: (onInputRequest: (input: InputRequest) => Promise<InputResponse>, signal: AbortSignal) => Promise<R>,
    signal?: AbortSignal,
  ): Promise<CallTurn<R>>;
  /**
   * Gives a held call its client's answers and resolves with its next turn; `undefined` when no call is held
   * under `park` (it ended, timed out, or another router holds it). Questions left without an answer are asked
   * again.
   */
  resume<R>(park: string, answers: InputAnswers): Promise<CallTurn<R>> | undefined;
  /** Cancels the call held under `park`, if any. */
  cancel(park: string, reason: string): void;
  /** Calls held now. */
  readonly size: number;
  /** Cancels every held call. */
  close(): void;
}

/** Creates the registry of held calls. */
export function createParkedCalls(options: ParkedCallsOptions): ParkedCalls {
  const held = new Map<string, Parked<unknown>>();

  function release(park: string, parked: Parked<unknown>): void {
    clearTimeout(parked.expiry);
    parked.expiry = undefined;
    if (held.get(park) === parked) held.delete(park);
  }

  /** The next turn of a held call: its end, or the questions open once no more arrive in this tick. */
  function nextTurn<R>(park: string, parked: Parked<R>): Promise<CallTurn<R>> {
    return new Promise((resolve) => {
      parked.waiting = resolve;
      if (parked.open.size > 0) flush(park, parked);
    });
  }

  function flush<R>(park: string, parked: Parked<R>): void {
    // Questions asked together (a backend awaiting several at once) go to the client in one result.
    setImmediate(() => {
      const resolve = parked.waiting;
      if (!resolve || parked.open.size === 0) return;
      parked.waiting = undefined;
      const requests: Record<string, InputRequest> = {};
      for (const [key, question] of parked.open) requests[key] = question.input;
      // From now on the call waits for the client: it may wait so long, no longer.
      clearTimeout(parked.expiry);
      parked.expiry = setTimeout(() => {
        parked.abort.abort(new Error("The client did not answer the backend's question in time"));
        release(park, parked as Parked<unknown>);
      }, options.holdMs);
      parked.expiry.unref();
      resolve({ asks: { requests }, park });
    });
  }

  return {
    start(run, signal) {
      const park = randomUUID();
      const abort = new AbortController();
      // The first request's client going away before the first turn cancels the call; later, nothing does
      // but the hold time (the client has its answer and will come back with another request).
      const onAbort = () => abort.abort(signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      let counter = 0;
      const parked: Parked<unknown> = {
        open: new Map(),
        waiting: undefined,
        call: Promise.resolve(undefined),
        abort,
        expiry: undefined,
      };
      const onInputRequest = (input: InputRequest) =>
        new Promise<InputResponse>((answer) => {
          if (!held.has(park) && held.size >= options.maxHeld) {
            answer({ action: "cancel" });
            return;
          }
          held.set(park, parked);
          parked.open.set(`input-${++counter}`, { input, answer });
          if (parked.waiting) flush(park, parked);
        });
      const first = nextTurn(park, parked);
      parked.call = run(onInputRequest, abort.signal).finally(() => release(park, parked));
      parked.call.then(
        (result) => {
          const resolve = parked.waiting;
          parked.waiting = undefined;
          resolve?.({ done: result });
        },
        () => undefined,
      );
      const turn = Promise.race([first, parked.call.then((result) => ({ done: result }))]);
      void turn.finally(() => signal?.removeEventListener("abort", onAbort)).catch(() => undefined);
      return turn as never;
    },
    resume(park, answers) {
      const parked = held.get(park);
      if (!parked) return undefined;
      // The client came back: the call runs on without a deadline of the router's until it asks again.
      clearTimeout(parked.expiry);
      parked.expiry = undefined;
      for (const [key, response] of Object.entries(answers.responses)) {
        const question = parked.open.get(key);
        if (!question) continue;
        parked.open.delete(key);
        question.answer(inputResponseFrom(question.input.kind, response));
      }
      const next = nextTurn(park, parked);
      return Promise.race([next, parked.call.then((result) => ({ done: result }))]) as never;
    },
    cancel(park, reason) {
      const parked = held.get(park);
      if (!parked) return;
      parked.abort.abort(new Error(reason));
      release(park, parked);
    },
    get size() {
      return held.size;
    },
    close() {
      for (const [park, parked] of held) {
        parked.abort.abort(new Error("The router is closing"));
        release(park, parked);
      }
    },
  };
}
