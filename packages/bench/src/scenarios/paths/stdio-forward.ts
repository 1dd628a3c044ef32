import { type RunningConfiguration, smokeCall, startConfiguration } from "../../configurations.js";
import { type RouterProcess, startRouter } from "../../router-process.js";
import { addForward, descendantCommands, stdioEchoForward } from "./forwards.js";
import { type PathComparisonOptions, runPathComparison } from "./path-comparison.js";
import { PATH_SECTION_TITLES, type PathSection, ratioHeadline } from "./path-section.js";

const SUBJECT = "trestle serve → sandboxed stdio forward";

/**
 * A stdio MCP server forwarded by the router (`trestle serve`, the forward run in the sandbox the router gives
 * stdio forwards by default) against `mcp-proxy` fronting the same server (issue 19's target: ≥ 1.5 ×).
 */
export async function runStdioForward(options: PathComparisonOptions): Promise<PathSection> {
  let router: RouterProcess | undefined;
  let proxy: RunningConfiguration | undefined;
  try {
    [router, proxy] = await Promise.all([startRouter(), startConfiguration("mcp-proxy")]);
    await addForward(router.url, stdioEchoForward("stdio-echo"));
    const url = `${router.url}/mcp`;
    await smokeCall(url);
    const sandboxed = descendantCommands(router.pid).includes("bwrap");
    const rows = await runPathComparison(
      [
        { label: "mcp-proxy → stdio server", target: proxy.target, serverPid: proxy.serverPid },
        {
          label: SUBJECT,
          target: { kind: "mcp", url, tool: "echo", openStream: true },
          serverPid: router.pid,
        },
      ],
      options,
    );
    return {
      name: "stdio-forward",
      title: PATH_SECTION_TITLES["stdio-forward"],
      method:
        "The stdio echo server of the peers (`src/servers/stdio-echo-server.ts`, MCP SDK 1.32) added to " +
        "`trestle serve --memory-store` as a forward (`POST /api/v1/forwards`, no prefix), the router running it " +
        `as it does by default (${sandboxed ? "under bubblewrap: a `bwrap` process was among the router's descendants" : "**no `bwrap` process was among the router's descendants: the forward ran unsandboxed here**"}), ` +
        "against mcp-proxy 6.2.0 (stateful Streamable HTTP) fronting the same server. The MCP client is the " +
        "load generator's session client in both.",
      rows,
      concurrency: options.concurrency,
      rounds: options.rounds,
      latencyRows: [],
      headlines: [
        ratioHeadline(
          "throughput trestle stdio forward / mcp-proxy",
          rows,
          SUBJECT,
          1.5,
          options.concurrency,
        ),
      ],
    };
  } finally {
    await Promise.allSettled([router?.stop(), proxy?.stop()]);
  }
}
