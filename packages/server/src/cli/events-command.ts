import type { ToolCallEvent } from "@trestle/core/events";
import type { Command } from "commander";
import { clientAction } from "./command-action.js";
import type { CliIo } from "./context.js";

function line(event: ToolCallEvent): string {
  const detail =
    event.type === "failed"
      ? ` ${event.errorCategory}: ${event.errorMessage}`
      : event.type === "completed"
        ? ` ${event.duration} ms`
        : "";
  return `${new Date(event.timestamp).toISOString()} ${event.type.padEnd(9)} ${event.toolName}${detail}`;
}

/** `trestle events tail`: live tool calls, resumed without loss when the connection drops. */
export function addEventsCommands(program: Command, io: CliIo): void {
  const group = program.command("events").description("Tool-call events");
  group
    .command("tail")
    .description(
      "Print tool calls as they happen, until Ctrl-C (reconnects and resumes on a dropped connection)",
    )
    .option("--tool <name>", "only this tool's calls")
    .option("--after <event-id>", "start after this event id (the router's recent history comes first)")
    .action(
      clientAction<{ tool?: string; after?: string }>(io, async (context, _args, options) => {
        const controller = new AbortController();
        const unsubscribe = io.onInterrupt?.(() => controller.abort());
        try {
          for await (const { event } of context.client.events.toolCalls({
            signal: controller.signal,
            toolName: options.tool,
            lastEventId: options.after,
            onReconnect: ({ attempt, delayMs }) =>
              io.stderr.write(
                `trestle: the event stream dropped; reconnecting in ${delayMs} ms (attempt ${attempt})\n`,
              ),
          })) {
            io.stdout.write(`${context.json ? JSON.stringify(event) : line(event)}\n`);
          }
        } finally {
          unsubscribe?.();
        }
      }),
    );
  group
    .command("history")
    .description("Print the tool-call events the router still holds, oldest first")
    .option("--limit <n>", "at most this many, the most recent", "100")
    .option("--tool <name>", "only this tool's calls")
    .action(
      clientAction<{ limit: string; tool?: string }>(io, async (context, _args, options) => {
        const events = await context.client.events.history({
          limit: Number(options.limit),
          ...(options.tool ? { toolName: options.tool } : {}),
        });
        context.print(events, () => events.map(line).join("\n"));
      }),
    );
}
