import type { Command } from "commander";
import { CliError } from "./cli-error.js";
import { clientAction } from "./command-action.js";
import type { CliIo } from "./context.js";

/** `trestle config claude|cursor`: prints an MCP client's configuration for this router. */
export function addConfigCommand(program: Command, io: CliIo): void {
  program
    .command("config")
    .description("Print an MCP client's configuration for this router (claude or cursor)")
    .argument("<client>", "claude or cursor")
    .option("-n, --namespace <ns>", "the namespace's endpoint instead of the default one")
    .action(
      clientAction<{ namespace?: string }>(io, async (context, [client], options) => {
        const url = `${context.url}${options.namespace ? `/${options.namespace}` : ""}/mcp`;
        const headers = context.token ? { Authorization: `Bearer ${context.token}` } : undefined;
        let server: Record<string, unknown>;
        if (client === "claude") server = { type: "http", url, ...(headers ? { headers } : {}) };
        else if (client === "cursor") server = { url, ...(headers ? { headers } : {}) };
        else throw new CliError("trestle config claude|cursor", 2);
        io.stdout.write(`${JSON.stringify({ mcpServers: { trestle: server } }, null, 2)}\n`);
      }),
    );
}
