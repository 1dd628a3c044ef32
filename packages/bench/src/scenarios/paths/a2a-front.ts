import { a2aAnswerText } from "../../a2a-answer.js";
import { spawnNode, stopChild, waitForOutput } from "../../child-process.js";
import { startTrestle } from "../../configurations.js";
import { distScript } from "../../paths.js";
import { type PathComparisonOptions, runPathComparison } from "./path-comparison.js";
import { PATH_SECTION_TITLES, type PathSection, ratioHeadline } from "./path-section.js";

const SUBJECT = "A2A front → gRPC echo capability";

/**
 * Every A2A message starts a task the router keeps in its store, and a principal may hold 1,000 by default: the
 * benchmark's anonymous client sends hundreds of thousands within the retention, so the bound is lifted.
 */
const MAX_TASKS = "1000000000";

/** Sends one `SendMessage` calling the echo tool; throws unless the echo comes back. */
async function smokeMessage(url: string): Promise<void> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: {
          messageId: "smoke",
          role: "ROLE_USER",
          parts: [{ data: { tool: "echo", arguments: { text: "smoke" } } }],
        },
      },
    }),
  });
  const text = a2aAnswerText(await response.json());
  if (text !== "smoke") throw new Error(`the echo did not come back from ${url}: '${text}'`);
}

/**
 * The router's A2A front calling a gRPC tool (an A2A v1.0 `SendMessage` with a data part naming the echo tool, the
 * call made through the call service to the echo capability) against a bare `@a2a-js/sdk` agent answering the
 * same message in-process.
 */
export async function runA2aFront(options: PathComparisonOptions): Promise<PathSection> {
  const bare = spawnNode(distScript("servers/bound-a2a-server.js"), []);
  const trestle = await startTrestle("grpc", { env: { TRESTLE_MAX_TASKS_PER_PRINCIPAL: MAX_TASKS } }).catch(
    async (error: unknown) => {
      await stopChild(bare);
      throw error;
    },
  );
  try {
    const match = await waitForOutput(bare, /"listening":(\d+)/, 60_000);
    const bareUrl = `http://127.0.0.1:${match[1]}/`;
    const routerUrl = `${trestle.router.url}/a2a`;
    await Promise.all([smokeMessage(bareUrl), smokeMessage(routerUrl)]);
    const rows = await runPathComparison(
      [
        {
          label: "bare @a2a-js/sdk agent, echo in-process",
          target: { kind: "a2a", url: bareUrl, tool: "echo" },
          serverPid: bare.pid as number,
        },
        {
          label: SUBJECT,
          target: { kind: "a2a", url: routerUrl, tool: "echo" },
          serverPid: trestle.router.pid,
        },
      ],
      options,
    );
    return {
      name: "a2a",
      title: PATH_SECTION_TITLES.a2a,
      method:
        "The load generator sends A2A v1.0 `SendMessage` over JSON-RPC (`A2A-Version: 1.0`, keep-alive " +
        'connections), the message\'s data part `{tool: "echo", arguments: {text}}`, and reads the echo from the ' +
        "completed task's artifact. The router (`trestle serve --memory-store`, the echo capability registered " +
        "over gRPC, its tool in the catalog) turns it into a call of the echo tool and keeps the task in its store; " +
        "the bare agent (`src/servers/bound-a2a-server.ts`: `@a2a-js/sdk` 1.3's JSON-RPC handler on `node:http`, " +
        "tasks in its in-memory store) publishes the same events (task, artifact, completed) with the echo made " +
        "in-process. The router's tasks per principal are unbounded here (`TRESTLE_MAX_TASKS_PER_PRINCIPAL`).",
      rows,
      concurrency: options.concurrency,
      rounds: options.rounds,
      latencyRows: [],
      headlines: [
        ratioHeadline(
          "throughput A2A front → gRPC / bare @a2a-js/sdk agent",
          rows,
          SUBJECT,
          undefined,
          options.concurrency,
        ),
      ],
    };
  } finally {
    await Promise.allSettled([stopChild(bare), trestle.stop()]);
  }
}
