/** Where the load generator sends its calls. */
export type LoadTarget =
  /** MCP `tools/call` over Streamable HTTP, as an MCP client sends it. */
  | {
      kind: "mcp";
      url: string;
      tool: string;
      openStream: boolean;
      stateless?: boolean;
      /** The `Authorization` header of every request, for a router with tokens or OAuth: `Bearer …`. */
      authorization?: string;
      /**
       * A fixed call instead of the echo: these arguments every time, and the answer's first text must contain
       * `expect` (e.g. `execute_code` running `print(1)`).
       */
      fixed?: { arguments: Record<string, unknown>; expect: string };
    }
  /**
   * A2A v1.0 `SendMessage` over JSON-RPC: a data part `{tool, arguments: {text}}` (how the router's A2A front names
   * the tool to call); the echo is read from the answer's task artifact or message.
   */
  | { kind: "a2a"; url: string; tool: string }
  /** `ToolInvoker/InvokeTool` over grpc-js, through Trestle's gRPC transport. */
  | { kind: "grpc"; host: string; port: number };

/** One run of the load generator. */
export interface LoadSpec {
  target: LoadTarget;
  /** Calls kept in flight at every moment (one connection each). */
  concurrency: number;
  /** Calls before the measured window, not counted. */
  warmupMs: number;
  /** The measured window. */
  durationMs: number;
  /**
   * Send a {@link LoadProgress} over IPC at the start of the measured window, every this many ms during it, and
   * at its end. Absent: no progress reports.
   */
  progressIntervalMs?: number;
  /**
   * Characters added to each call's echoed text (so about as many bytes each way): a capability whose calls carry
   * documents rather than a word. Absent or 0: the short text alone.
   */
  payloadBytes?: number;
}

/** Where a run stands, sent while it runs when {@link LoadSpec.progressIntervalMs} asks for it. */
export interface LoadProgress {
  type: "progress";
  /** Calls answered correctly since the measured window began. */
  calls: number;
  /** Calls that failed since the measured window began. */
  errors: number;
  /** Time since the measured window began, ms. */
  elapsedMs: number;
}

/** What one run measured. */
export interface LoadResult {
  type: "result";
  /** Calls answered correctly inside the measured window. */
  calls: number;
  /** Calls that failed inside the window: transport errors, JSON-RPC errors, `isError` results, wrong echoes. */
  errors: number;
  /** The first few error messages. */
  errorSamples: string[];
  /** Length of the measured window, ms. */
  windowMs: number;
  /** Latency of each call answered in the window, ms. */
  latenciesMs: number[];
  /** Every call answered, warm-up and set-up included (for CPU per call). */
  totalCalls: number;
  /** CPU the load generator itself used, ms. */
  clientCpuMs: number;
}
