/**
 * An MCP client calling the trip agent through the router: the agent's `plan_trip` skill is a tool (`trip_plan_trip`
 * once the forward is added with the prefix `trip_`). The first call ends with the agent's question and a task
 * handle; the second passes the handle back with the answer, in the same A2A task, and gets the plan streamed as
 * progress before the result.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

function textOf(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .flatMap((c) => (c.type === "text" && c.text ? [c.text] : []))
    .join("\n");
}

/** What the conversation produced: the question, each streamed chunk, and the plan. */
export interface TripOverMcp {
  question: string;
  chunks: string[];
  plan: string;
}

export async function planTripOverMcp(routerUrl: string, answer: string): Promise<TripOverMcp> {
  const client = new Client({ name: "trip-example", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${routerUrl}/mcp`)));
  try {
    const first = await client.callTool({ name: "trip_plan_trip", arguments: { message: "Plan me a trip" } });
    // structuredContent: { state: "input-required", task: "<opaque handle>" }
    const { task } = first.structuredContent as { state: string; task: string };
    const chunks: string[] = [];
    const second = await client.callTool(
      { name: "trip_plan_trip", arguments: { message: answer, task } },
      CallToolResultSchema,
      { onprogress: (p) => chunks.push(p.message ?? "") },
    );
    return { question: textOf(first).split("\n")[0] ?? "", chunks, plan: textOf(second) };
  } finally {
    await client.close();
  }
}
