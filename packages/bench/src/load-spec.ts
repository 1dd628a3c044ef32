/** Where the load generator sends its calls. */
export type LoadTarget =
  /** MCP `tools/call` over Streamable HTTP, as an MCP client sends it. */
  | { kind: "mcp"; url: string; tool: string; openStream: boolean; stateless?: boolean }
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
