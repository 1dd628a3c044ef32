import { createServer } from "node:net";
import { portTakenMessage } from "../root/http-listener.js";
import { CliError } from "./cli-error.js";

/**
 * Fails with one sentence naming the port and `--port` when `host:port` cannot be bound, before the router opens
 * its store or starts a child: a second `trestle serve` on a taken port must not touch the first one's data
 * directory. Port 0 (any free port) is never taken. Other bind failures (an address not on this machine, a port
 * below 1024 without the right) are told in their own words.
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ port, host, exclusive: true }, () => resolve());
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new CliError(portTakenMessage(host, port), 1);
    if (code === "EACCES")
      throw new CliError(
        `port ${port} on ${host} needs privileges this process lacks: start with --port <n> above 1023`,
        1,
      );
    if (code === "EADDRNOTAVAIL")
      throw new CliError(
        `${host} is not an address of this machine: start with --host <address> (or TRESTLE_HOST)`,
        1,
      );
    throw error;
  } finally {
    await new Promise<void>((resolve) => (probe.listening ? probe.close(() => resolve()) : resolve()));
  }
}
