import { randomUUID } from "node:crypto";
import type { InputAnswers, InputRequest, InputRequired, InputResponse } from "@trestle/core";
import { inputResponseFrom } from "./input-relay.js";

/**
 * What a call held open for a stateless client comes to next: its end, or the questions its backend asks (a
 * legacy upstream's sampling, elicitation or roots request, which waits for the answer while the call runs).
 */
export type CallTurn<R> = { done: R } | { asks: InputRequired; park: string };

/** What a parked call runs: its listener for the backend's questions, and its own abort signal. */
export type ParkedRun<R> = (
  onInputRequest: (input: InputRequest) => Promise<InputResponse>,
  signal: AbortSignal,
) => Promise<R>;

interface Question {
  input: InputRequest;
  answer(response: InputResponse): void;
}

interface Parked<R> {
  /** The principal whose request started the call: only it may answer the call's questions. */
  owner: string;
  /**
   * The key the client's state names while the call waits for its answers: a new one each turn, forgotten once
   * used, so a state answers one turn once.
   */
  key: string | undefined;
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
   * Starts `run` for `owner` (the principal whose request it is) with an input listener and an abort signal of its
   * own, and resolves with its first turn: its result, or the questions it asked (the call keeps running, held
   * under `park`).
   */
  start<R>(owner: string, run: ParkedRun<R>, signal?: AbortSignal): Promise<CallTurn<R>>;
  /**
   * Gives a held call its client's answers and resolves with its next turn; `undefined` when no call of `owner`
   * waits under `park`: it ended, timed out, another router holds it, the key was used already (each turn's key
   * answers once), or another principal started it (answered exactly as an unknown key). Questions left without an
   * answer are asked again, under a new key.
   */
  resume<R>(park: string, owner: string, answers: InputAnswers): Promise<CallTurn<R>> | undefined;
  /** Cancels the call held under `park`, if any. */
  cancel(park: string, reason: string): void;
  /** Calls held now. */
  readonly size: number;
  /** Cancels every held call. */
  close(): void;
}

/** Creates the registry of held calls. */
export function createParkedCalls(options: ParkedCallsOptions): ParkedCalls {
  /** Calls that wait for their client's answers, by the key of their current turn. */
  const waiting = new Map<string, Parked<unknown>>();
  /** Every held call: those waiting and those running on with answers. */
  const live = new Set<Parked<unknown>>();

  function forgetKey(parked: Parked<unknown>): void {
    if (parked.key !== undefined && waiting.get(parked.key) === parked) waiting.delete(parked.key);
    parked.key = undefined;
  }

  function release(parked: Parked<unknown>): void {
    clearTimeout(parked.expiry);
    parked.expiry = undefined;
    forgetKey(parked);
    live.delete(parked);
  }

  /** The next turn of a held call: its end, or the questions open once no more arrive in this tick. */
  function nextTurn<R>(parked: Parked<R>): Promise<CallTurn<R>> {
    return new Promise((resolve) => {
      parked.waiting = resolve;
      if (parked.open.size > 0) flush(parked);
    });
  }

  function flush<R>(parked: Parked<R>): void {
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
        release(parked as Parked<unknown>);
      }, options.holdMs);
      parked.expiry.unref();
      // A key of this turn's own: the state that carries it answers this turn, once.
      const park = randomUUID();
      parked.key = park;
      waiting.set(park, parked as Parked<unknown>);
      resolve({ asks: { requests }, park });
    });
  }

  return {
    start(owner, run, signal) {
      const abort = new AbortController();
      // The first request's client going away before the first turn cancels the call; later, nothing does
      // but the hold time (the client has its answer and will come back with another request).
      const onAbort = () => abort.abort(signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      let counter = 0;
      const parked: Parked<unknown> = {
        owner,
        key: undefined,
        open: new Map(),
        waiting: undefined,
        call: Promise.resolve(undefined),
        abort,
        expiry: undefined,
      };
      const onInputRequest = (input: InputRequest) =>
        new Promise<InputResponse>((answer) => {
          if (!live.has(parked) && live.size >= options.maxHeld) {
            answer({ action: "cancel" });
            return;
          }
          live.add(parked);
          parked.open.set(`input-${++counter}`, { input, answer });
          if (parked.waiting) flush(parked);
        });
      const first = nextTurn(parked);
      parked.call = run(onInputRequest, abort.signal).finally(() => release(parked));
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
    resume(park, owner, answers) {
      const parked = waiting.get(park);
      // Another principal's call is answered exactly as one that is not held.
      if (!parked || parked.owner !== owner) return undefined;
      forgetKey(parked);
      // The client came back: the call runs on without a deadline of the router's until it asks again.
      clearTimeout(parked.expiry);
      parked.expiry = undefined;
      for (const [key, response] of Object.entries(answers.responses)) {
        const question = parked.open.get(key);
        if (!question) continue;
        parked.open.delete(key);
        question.answer(inputResponseFrom(question.input.kind, response));
      }
      const next = nextTurn(parked);
      return Promise.race([next, parked.call.then((result) => ({ done: result }))]) as never;
    },
    cancel(park, reason) {
      const parked = waiting.get(park);
      if (!parked) return;
      parked.abort.abort(new Error(reason));
      release(parked);
    },
    get size() {
      return live.size;
    },
    close() {
      for (const parked of [...live]) {
        parked.abort.abort(new Error("The router is closing"));
        release(parked);
      }
    },
  };
}
