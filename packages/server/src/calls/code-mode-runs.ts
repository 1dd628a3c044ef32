import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Caller } from "./caller.js";

/** Request metadata naming where an engine relays a program's tool calls (see `@trestle/service-exec`). */
export const TOOL_CHANNEL_URL_METADATA = "x-trestle-tool-channel";
/** Request metadata carrying the run's capability: the engine keeps it, the program never sees it. */
export const RUN_TOKEN_METADATA = "x-trestle-run-token";
/**
 * Request metadata with the run's concurrency limit (`concurrent=<n>`), so that an engine holds back a program's
 * calls past it rather than relay them to be refused. (The number of calls is the router's to count: its refusal
 * names the setting.)
 */
export const TOOL_LIMITS_METADATA = "x-trestle-tool-limits";
/** Where, under the router's listener, engines reach the code-mode endpoint. */
export const CODE_MODE_PATH = "/internal/code-mode/v1";

/** Bounds on one program's tool calls. */
export interface CodeModeLimits {
  /** Tool calls one program may make. */
  maxCallsPerRun: number;
  /** Tool calls one program may have going at once. */
  maxConcurrentCallsPerRun: number;
  /** Longest a run's capability lives, even if the engine never reports the run's end. */
  maxRunMs: number;
}

/** A run a capability stands for: whose it is, and its limits. */
export interface CodeModeRun {
  /** The run's id, recorded on the events of the run and of every tool call it makes (`codeRun`). */
  readonly id: string;
  /** The principal and namespace the program calls as: the caller of the code execution tool. */
  readonly caller: Caller;
  /** Aborted when the run ends: its calls in flight stop. */
  readonly signal: AbortSignal;
  /**
   * Takes a call slot: a release for it, or why the program may make no more calls now (a message for the
   * program).
   */
  admit(): { release: () => void } | { refusal: string };
}

/** A run that began: what to send its engine, and how to end it. */
export interface BegunRun {
  readonly id: string;
  /** The request metadata for the engine: the callback address and the run's capability. */
  readonly metadata: Readonly<Record<string, string>>;
  /** Ends the run: its capability stops working at once. Idempotent. */
  end(): void;
}

/** The runs this replica holds the capabilities of. */
export interface CodeModeRuns {
  /** Mints a run for `caller`; `undefined` when programs get no tools (turned off, or no address to call back). */
  begin(caller: Caller): BegunRun | undefined;
  /** The run `token` stands for, while it lasts. */
  find(token: string): CodeModeRun | undefined;
  /** Ends every run. */
  close(): void;
}

/** The digest a run is kept under: the token itself is held by no map (a heap dump shows no live capability). */
function digestOf(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/**
 * Creates the registry of code-mode runs. Each run gets a capability: 32 random bytes, unguessable, valid until
 * the run ends or `maxRunMs` passes, bound to the caller (principal and namespace) and the run's limits, and held
 * only by this replica (the callback address is this replica's own). The engine gets it in the execution
 * request's metadata and presents it with each call it relays; it is never logged, never put on an event, and
 * never handed to the program.
 */
export function createCodeModeRuns(options: {
  limits: CodeModeLimits;
  /** The base URL engines call back (`http://host:port`); `undefined` while there is none. */
  callbackUrl: () => string | undefined;
  enabled: boolean;
}): CodeModeRuns {
  const runs = new Map<string, { run: CodeModeRun; end: () => void }>();
  const { limits } = options;

  return {
    begin(caller) {
      const base = options.callbackUrl();
      if (!options.enabled || !base) return undefined;
      const token = randomBytes(32).toString("base64url");
      const key = digestOf(token);
      const id = randomUUID();
      const aborter = new AbortController();
      let calls = 0;
      let inFlight = 0;
      const run: CodeModeRun = {
        id,
        caller,
        signal: aborter.signal,
        admit() {
          if (aborter.signal.aborted) return { refusal: "the run has ended" };
          if (calls >= limits.maxCallsPerRun) {
            return {
              refusal: `Too many tool calls: a program may make ${limits.maxCallsPerRun} (codeMode.maxCallsPerRun)`,
            };
          }
          if (inFlight >= limits.maxConcurrentCallsPerRun) {
            return {
              refusal: `Too many tool calls at once: a program may have ${limits.maxConcurrentCallsPerRun} going (codeMode.maxConcurrentCallsPerRun)`,
            };
          }
          calls++;
          inFlight++;
          let released = false;
          return {
            release: () => {
              if (released) return;
              released = true;
              inFlight--;
            },
          };
        },
      };
      const timer = setTimeout(() => end(), limits.maxRunMs);
      timer.unref();
      const end = () => {
        if (!runs.delete(key)) return;
        clearTimeout(timer);
        aborter.abort();
      };
      runs.set(key, { run, end });
      return {
        id,
        metadata: {
          [TOOL_CHANNEL_URL_METADATA]: `${base.replace(/\/+$/, "")}${CODE_MODE_PATH}`,
          [RUN_TOKEN_METADATA]: token,
          [TOOL_LIMITS_METADATA]: `concurrent=${limits.maxConcurrentCallsPerRun}`,
        },
        end,
      };
    },
    find(token) {
      return runs.get(digestOf(token))?.run;
    },
    close() {
      for (const { end } of [...runs.values()]) end();
    },
  };
}
