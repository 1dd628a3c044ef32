import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { CliError } from "./cli-error.js";
import { clientAction } from "./command-action.js";
import type { CliIo } from "./context.js";

/**
 * `trestle exec ENGINE LANGUAGE FILE [ARG...]`: runs a file on a code execution engine, its output written as
 * it comes (stdout to stdout, stderr to stderr), exiting with the run's exit code. With `--json`, each event
 * of the stream is one JSON line on stdout instead.
 */
export function addExecCommand(program: Command, io: CliIo): void {
  program
    .command("exec")
    .description(
      "Run a file on a code execution engine, streaming its output; exits with the run's exit code",
    )
    .argument("<engine>")
    .argument("<language>")
    .argument("<file>")
    .argument("[args...]", "arguments of the program")
    .option("--timeout <ms>", "stop the run after this many milliseconds")
    .action(
      clientAction<{ timeout?: string }>(io, async (context, [engine, language, file, args], options) => {
        let code: string;
        try {
          code = readFileSync(file as string, "utf8");
        } catch (error) {
          throw new CliError(`Cannot read ${file}: ${(error as Error).message}`, 2);
        }
        const timeout = options.timeout === undefined ? undefined : Number(options.timeout);
        if (timeout !== undefined && (!Number.isInteger(timeout) || timeout <= 0)) {
          throw new CliError("--timeout takes a positive number of milliseconds", 2);
        }
        const task = await context.client.codeExecution.start(engine as string, language as string, {
          code,
          arguments: (args as string[] | undefined) ?? [],
          ...(timeout !== undefined ? { timeout } : {}),
        });
        const controller = new AbortController();
        const unsubscribe = io.onInterrupt?.(() => controller.abort());
        let exitCode = 0;
        try {
          for await (const message of context.client.codeExecution.stream(task, {
            signal: controller.signal,
          })) {
            if (context.json) io.stdout.write(`${JSON.stringify(message)}\n`);
            if (message.event === "error") {
              if (!context.json) io.stderr.write(`error: ${message.data.message}\n`);
              exitCode = 1;
            } else if (message.event === "reply") {
              const reply = message.data;
              if (reply.exitCode !== undefined) exitCode = reply.exitCode;
              if (context.json) continue;
              const text = reply.content.join("");
              if (reply.outputType === "stdout") io.stdout.write(text);
              else if (reply.outputType === "stderr") io.stderr.write(text);
              else if (reply.status) io.stderr.write(`[${reply.status}]\n`);
            } else if (message.event === "dropped" && !context.json) {
              io.stderr.write(`trestle: ${message.data.dropped} early replies were dropped (buffer full)\n`);
            }
          }
        } finally {
          unsubscribe?.();
        }
        if (controller.signal.aborted) exitCode = 130;
        io.setExitCode?.(exitCode);
      }),
    );
}
