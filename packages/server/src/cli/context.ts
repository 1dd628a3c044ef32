import {
  createManagementClient,
  type ManagementClient,
  type ManagementClientOptions,
} from "../client/management-client.js";

/** Where the CLI writes; a test passes its own. */
export interface CliOutput {
  write(text: string): unknown;
  /** True on a terminal: progress then redraws one line instead of printing a line now and then. */
  readonly isTTY?: boolean;
}

/** What the CLI reads and writes besides its arguments: injected so a test runs it in-process. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  /** The environment (`TRESTLE_URL`, `TRESTLE_TOKEN`; `serve` reads its own variables from it too). */
  env: Readonly<Record<string, string | undefined>>;
  /** Makes the management client; {@link createManagementClient} by default. */
  createClient?(options: ManagementClientOptions): ManagementClient;
  /** Subscribes to Ctrl-C (SIGINT); returns the unsubscribe. */
  onInterrupt?(listener: () => void): () => void;
  /** Sets the exit code the CLI ends with when the command succeeds (`exec` ends with the run's). */
  setExitCode?(code: number): void;
}

/** The router a client command talks to when neither `--url` nor `TRESTLE_URL` says. */
export const DEFAULT_ROUTER_URL = "http://127.0.0.1:8080";

/** The options every client command reads (set before or after the command's name). */
export interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** What a client command works with: the router's URL, a client of it, and output that honours `--json`. */
export interface CommandContext {
  io: CliIo;
  url: string;
  token: string | undefined;
  json: boolean;
  client: ManagementClient;
  /** Prints `data` as JSON with `--json`, `text()` otherwise. */
  print(data: unknown, text: () => string): void;
}

/** Builds the context of a client command from the global options and the environment. */
export function commandContext(io: CliIo, options: GlobalOptions): CommandContext {
  const url = options.url ?? io.env.TRESTLE_URL ?? DEFAULT_ROUTER_URL;
  const token = options.token ?? io.env.TRESTLE_TOKEN;
  const json = options.json === true;
  const create = io.createClient ?? createManagementClient;
  return {
    io,
    url,
    token,
    json,
    client: create({
      baseUrl: url,
      ...(token ? { token } : {}),
      // What the router did but cannot serve yet is said on stderr, apart from the answer a script reads.
      onWarnings: (warnings) => {
        for (const warning of warnings) io.stderr.write(`trestle: warning: ${warning}\n`);
      },
    }),
    print(data, text) {
      io.stdout.write(`${json ? JSON.stringify(data, null, 2) : text()}\n`);
    },
  };
}
