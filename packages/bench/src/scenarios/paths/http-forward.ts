import { type RunningConfiguration, smokeCall, startConfiguration } from "../../configurations.js";
import { type RouterProcess, startRouter } from "../../router-process.js";
import { addForward, httpForward } from "./forwards.js";
import { type PathComparisonOptions, runPathComparison } from "./path-comparison.js";
import { PATH_SECTION_TITLES, type PathSection, ratioHeadline } from "./path-section.js";

const SUBJECT = "trestle serve → HTTP forward → bound-mcp";

/** A Streamable HTTP MCP server forwarded by the router against the same server called directly. */
export async function runHttpForward(options: PathComparisonOptions): Promise<PathSection> {
  let router: RouterProcess | undefined;
  let bound: RunningConfiguration | undefined;
  try {
    [router, bound] = await Promise.all([startRouter(), startConfiguration("bound-mcp")]);
    if (bound.target.kind !== "mcp") throw new Error("bound-mcp has no MCP URL");
    await addForward(router.url, httpForward("http-echo", bound.target.url));
    const url = `${router.url}/mcp`;
    await smokeCall(url);
    const rows = await runPathComparison(
      [
        { label: "bound-mcp, called directly", target: bound.target, serverPid: bound.serverPid },
        {
          label: SUBJECT,
          target: { kind: "mcp", url, tool: "echo", openStream: true },
          serverPid: router.pid,
        },
      ],
      options,
    );
    return {
      name: "http-forward",
      title: PATH_SECTION_TITLES["http-forward"],
      method:
        "The bare MCP SDK server of `bound-mcp` (stateful, JSON responses) added to `trestle serve --memory-store` " +
        "as a Streamable HTTP forward (`POST /api/v1/forwards`, no prefix), against the load generator calling " +
        "that server directly. The forwarded row's *server* CPU is the router's alone; the upstream's CPU is the " +
        "same work as the direct row's.",
      rows,
      concurrency: options.concurrency,
      rounds: options.rounds,
      latencyRows: [],
      headlines: [
        ratioHeadline(
          "throughput trestle HTTP forward / bound-mcp called directly",
          rows,
          SUBJECT,
          undefined,
          options.concurrency,
        ),
      ],
    };
  } finally {
    await Promise.allSettled([router?.stop(), bound?.stop()]);
  }
}
