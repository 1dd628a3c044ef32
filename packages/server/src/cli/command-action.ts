import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { CliError } from "./cli-error.js";
import { type CliIo, type CommandContext, commandContext, type GlobalOptions } from "./context.js";

/** A client command's work: its context, its positional arguments (variadic ones as arrays) and its options. */
export type ClientHandler<O> = (
  context: CommandContext,
  args: (string | string[])[],
  options: O,
) => Promise<void>;

/**
 * Adapts a client command's handler to commander's action signature (the arguments, then the options, then
 * the command): the options include the global ones (`--url`, `--token`, `--json`), wherever they were given.
 */
export function clientAction<O extends object>(io: CliIo, handler: ClientHandler<O>) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received.at(-1) as Command;
    const options = command.optsWithGlobals<O & GlobalOptions>();
    await handler(commandContext(io, options), received.slice(0, -2) as (string | string[])[], options);
  };
}

/** Reads a JSON file a command was given. @throws CliError (exit 2) when it cannot be read or parsed. */
export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new CliError(`Cannot read ${path} as JSON: ${(error as Error).message}`, 2);
  }
}

/** Collects a repeatable option's values (`--root A --root B`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
