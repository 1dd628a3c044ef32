import { Agent } from "node:http";
import { type LatencySummary, summariseLatencies } from "../latency-summary.js";
import { createMcpHttpClient } from "../mcp-http-client.js";
import { manage } from "../router-process.js";

/** Settings of the tools/list benchmark. */
export interface ToolsListOptions {
  /** Catalog sizes, one namespace each. */
  sizes: readonly number[];
  /** Timed lists per size and kind. */
  repetitions: number;
  log(line: string): void;
}

/** tools/list in a namespace of one size. */
export interface ToolsListMeasurement {
  tools: number;
  /** Pages the router served for the whole list (its page size is 1,000 by default). */
  pages: number;
  /** Tools the client received over all pages (must equal `tools`). */
  received: number;
  /** Fetching the whole list: the first page, then each `nextCursor` until there is none. */
  fullList: LatencySummary;
  /** The first page alone (what a client that does not follow the cursor sees). */
  firstPage: LatencySummary;
  /** The very first full list after the tools were added (the router builds its list then). */
  coldFullListMs: number;
  /** Bytes of JSON over all pages. */
  bytes: number;
  /** Time to add the tools through the management API, ms. */
  addMs: number;
}

/** A tool of realistic size: a description and a three-property schema. */
function catalogTool(namespace: string, index: number) {
  return {
    name: `tool_${String(index).padStart(5, "0")}`,
    namespace,
    description: `Benchmark tool ${index}: looks up a record by id and returns it with its history, as text.`,
    uri: `echo://bench/${index}`,
    type: "echo-grpc",
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", description: "The record's id" },
        limit: { type: "integer", description: "Most history entries to return" },
        verbose: { type: "boolean", description: "Include every field" },
      },
      required: ["id"],
    },
  };
}

async function addTools(routerUrl: string, namespace: string, count: number): Promise<void> {
  let next = 0;
  // A few requests in flight: the management API is not what is measured here.
  const worker = async () => {
    while (next < count) {
      const index = next++;
      await manage(routerUrl, "POST", "/api/v1/tools", catalogTool(namespace, index));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/**
 * Adds 100, 1,000, 10,000 … tools to namespaces of their own through the management API, then times tools/list
 * over MCP: the whole list through every page, and the first page alone.
 */
export async function runToolsList(
  routerUrl: string,
  options: ToolsListOptions,
): Promise<ToolsListMeasurement[]> {
  const results: ToolsListMeasurement[] = [];
  for (const size of options.sizes) {
    const namespace = `list${size}`;
    await manage(routerUrl, "POST", "/api/v1/namespaces", { name: namespace });
    const addStart = performance.now();
    await addTools(routerUrl, namespace, size);
    const addMs = performance.now() - addStart;

    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const client = createMcpHttpClient({ url: `${routerUrl}/${namespace}/mcp`, agent });
    await client.initialize();
    const fullList = async (measureBytes: boolean) => {
      let cursor: string | undefined;
      let pages = 0;
      let received = 0;
      let bytes = 0;
      do {
        const reply = await client.request("tools/list", cursor ? { cursor } : {});
        if (reply.error) throw new Error(`tools/list failed: ${reply.error.message}`);
        const result = reply.result as { tools: unknown[]; nextCursor?: string };
        pages++;
        received += result.tools.length;
        // Only on the cold run: serialising again would add the client's own time to the timed lists.
        if (measureBytes) bytes += JSON.stringify(result).length;
        cursor = result.nextCursor;
      } while (cursor);
      return { pages, received, bytes };
    };
    const coldStart = performance.now();
    const shape = await fullList(false);
    const coldFullListMs = performance.now() - coldStart;
    shape.bytes = (await fullList(true)).bytes;
    const full: number[] = [];
    const first: number[] = [];
    for (let i = 0; i < options.repetitions; i++) {
      let start = performance.now();
      await fullList(false);
      full.push(performance.now() - start);
      start = performance.now();
      await client.request("tools/list", {});
      first.push(performance.now() - start);
    }
    await client.terminate();
    agent.destroy();
    const measurement: ToolsListMeasurement = {
      tools: size,
      ...shape,
      fullList: summariseLatencies(full),
      firstPage: summariseLatencies(first),
      coldFullListMs,
      addMs,
    };
    results.push(measurement);
    options.log(
      `  ${size} tools: added in ${(addMs / 1000).toFixed(1)} s; full list (${shape.pages} pages) p50 ` +
        `${measurement.fullList.p50.toFixed(1)} ms, first page p50 ${measurement.firstPage.p50.toFixed(1)} ms`,
    );
  }
  return results;
}
