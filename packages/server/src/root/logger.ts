import { type Logger, pino } from "pino";
import type { RouterConfig } from "../config.js";

/** Where the router's log lines go: standard error, and whether a person is reading it there. */
export interface LogOutput {
  /** The file descriptor lines are written to (2: standard error). */
  fd: number;
  /** Whether that descriptor is a terminal. */
  isTTY: boolean;
}

/** Whether lines are written for a person: `pretty`, or `auto` on a terminal. */
export function wantsPrettyLogs(format: RouterConfig["logFormat"], output: LogOutput): boolean {
  return format === "pretty" || (format === "auto" && output.isTTY);
}

/**
 * The router's logger: JSON lines for collectors, or, for a person at a terminal, one readable line per entry
 * (local time, level name, message, then its fields) with colour. pino-pretty is loaded only then.
 */
export async function createRouterLogger(
  config: Pick<RouterConfig, "logLevel" | "logFormat">,
  output: LogOutput = { fd: 2, isTTY: process.stderr.isTTY === true },
): Promise<Logger> {
  const options = { level: config.logLevel, base: { service: "trestle" } };
  if (!wantsPrettyLogs(config.logFormat, output)) {
    return pino(options, pino.destination({ fd: output.fd, sync: false }));
  }
  const { default: pretty } = await import("pino-pretty");
  return pino(
    options,
    pretty({
      destination: output.fd,
      colorize: output.isTTY,
      translateTime: "SYS:HH:MM:ss.l",
      // The service name is the same on every line, and pid/hostname say nothing at one terminal.
      ignore: "pid,hostname,service",
      singleLine: true,
      sync: true,
    }),
  );
}
