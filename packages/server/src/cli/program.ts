import { Argument, Command, CommanderError, Option } from "commander";
import { SERVER_VERSION } from "../version.js";
import { addCatalogCommands, addNamespaceCommands } from "./catalog-commands.js";
import { cliFailure } from "./cli-error.js";
import { COMPLETION_SHELLS, type CompletionShell, completionScript } from "./completion.js";
import { addConfigCommand } from "./config-command.js";
import { type CliIo, DEFAULT_ROUTER_URL } from "./context.js";
import { addEventsCommands } from "./events-command.js";
import { addExecCommand } from "./exec-command.js";
import { addForwardsCommands } from "./forwards-command.js";
import { addNewCommand } from "./new-command.js";
import { addServeCommand } from "./serve-command.js";
import { addServicesCommands } from "./services-command.js";

const AFTER_HELP = `
Without tokens (TRESTLE_TOKENS) every scope is open, so serve listens on loopback only; --insecure-open
(TRESTLE_INSECURE_OPEN=1) allows another address anyway, open to the network.
Client commands talk to --url (env TRESTLE_URL, default ${DEFAULT_ROUTER_URL}) with --token (env TRESTLE_TOKEN).
Add --json for machine-readable output. Exit codes: 0 ok, 1 refused by the router, 2 bad usage, 3 router unreachable.
Shell completion:  source <(trestle completion bash)   or   source <(trestle completion zsh)`;

/**
 * The `trestle` command tree on commander: generated help at every level, `--url`, `--token` and `--json`
 * accepted before or after the command's name, usage errors thrown (not exited) so {@link runCli} maps them to
 * exit code 2.
 */
export function createProgram(io: CliIo): Command {
  const program = new Command("trestle")
    .description(`trestle ${SERVER_VERSION}: an MCP router`)
    .version(SERVER_VERSION, "-v, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .addOption(new Option("--url <url>", `the router (env TRESTLE_URL; default ${DEFAULT_ROUTER_URL})`))
    .addOption(new Option("--token <token>", "a bearer token (env TRESTLE_TOKEN)"))
    .option("--json", "machine-readable output (JSON)")
    .addHelpText("after", AFTER_HELP)
    .showSuggestionAfterError(true);
  addServeCommand(program, io);
  addCatalogCommands(program, io);
  addNamespaceCommands(program, io);
  addForwardsCommands(program, io);
  addServicesCommands(program, io);
  addEventsCommands(program, io);
  addExecCommand(program, io);
  addConfigCommand(program, io);
  addNewCommand(program, io);
  program
    .command("completion")
    .description("Print a shell completion script (bash or zsh)")
    .addArgument(new Argument("<shell>", "bash or zsh").choices(COMPLETION_SHELLS))
    .action((shell: CompletionShell) => {
      io.stdout.write(completionScript(program, shell));
    });
  // Every command, the groups included, writes through `io` and throws instead of exiting.
  const configure = (command: Command) => {
    command
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
      })
      .showHelpAfterError("(add --help for usage)");
    for (const sub of command.commands) configure(sub);
  };
  configure(program);
  return program;
}

/**
 * Runs the CLI on `argv` (without the node and script paths) and resolves with its exit code: 0 ok, 1 refused
 * by the router, 2 bad usage, 3 router unreachable; a command may set another (`exec`: the run's).
 * A bug (anything else thrown) is rethrown.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  const program = createProgram({
    ...io,
    setExitCode(code) {
      exitCode = code;
    },
  });
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with 0; a usage error (already printed, with a hint) with 2.
      return error.exitCode === 0 ? 0 : 2;
    }
    const failure = cliFailure(error);
    if (!failure) throw error;
    io.stderr.write(`trestle: ${failure.message}\n`);
    return failure.exitCode;
  }
}
