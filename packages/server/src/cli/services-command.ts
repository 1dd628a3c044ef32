import type { Command } from "commander";
import { clientAction } from "./command-action.js";
import type { CliIo } from "./context.js";
import { renderTable } from "./table.js";

/** `trestle services list|show|cleanup`: the registered capability services. */
export function addServicesCommands(program: Command, io: CliIo): void {
  const group = program
    .command("services")
    .description("The registered capability services and their health");
  group
    .command("list")
    .description("List services with their address and health")
    .action(
      clientAction(io, async (context) => {
        const items = await context.client.services.list();
        context.print(items, () =>
          renderTable(
            ["ID", "SERVICE", "TYPE", "ADDRESS", "PROTOCOL", "HEALTH"],
            items.map((s) => [
              s.id,
              s.target.serviceName,
              s.target.serviceType,
              `${s.target.host}:${s.target.port}`,
              s.target.protocol ?? "grpc",
              s.health,
            ]),
          ),
        );
      }),
    );
  group
    .command("show")
    .description("Show one service as JSON")
    .argument("<id>")
    .action(
      clientAction(io, async (context, [id]) => {
        io.stdout.write(`${JSON.stringify(await context.client.services.get(id as string), null, 2)}\n`);
      }),
    );
  group
    .command("cleanup")
    .description("Remove services not seen for a while")
    .option("--older-than-ms <ms>", "not seen for this long (the router's default when absent)")
    .action(
      clientAction<{ olderThanMs?: string }>(io, async (context, _args, options) => {
        const removed = await context.client.services.removeStale(
          options.olderThanMs !== undefined ? { olderThanMs: Number(options.olderThanMs) } : {},
        );
        context.print(removed, () => `removed ${removed.length} stale service(s)`);
      }),
    );
}
