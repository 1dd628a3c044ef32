import { ManagementApiError } from "../client/management-client.js";

/** A failure the CLI reports in one line, with the exit code scripts can rely on. */
export class CliError extends Error {
  constructor(
    message: string,
    /** 1: the router refused; 2: bad usage; 3: the router is unreachable. */
    readonly exitCode: number,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** The exit code of a management API failure: 3 when the router could not be reached, 1 when it refused. */
export function exitCodeOf(error: ManagementApiError): number {
  return error.status === undefined ? 3 : 1;
}

/** Turns what a command threw into the line and exit code the CLI ends with; `undefined` for a bug. */
export function cliFailure(error: unknown): { message: string; exitCode: number } | undefined {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof ManagementApiError) return { message: error.rawMessage, exitCode: exitCodeOf(error) };
  return undefined;
}
