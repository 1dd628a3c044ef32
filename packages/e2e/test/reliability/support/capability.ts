import { join } from "node:path";
import { type RunningProcess, startNode } from "../../support/processes.js";

/** The reliability suite's capability service (see its header for the tools it serves). */
export const reliableCapability = join(import.meta.dirname, "reliable-capability.mjs");

/** A running capability service of the reliability suite. */
export interface CapabilityProcess extends RunningProcess {
  port: number;
  /** The id the router assigned, when it registered. */
  id: string | undefined;
  /** The `ended` events so far, by outcome. */
  outcomes(): string[];
}

/** Options for {@link startCapability}: each becomes the fixture's flag of the same name. */
export interface CapabilityOptions {
  router?: string;
  serviceName?: string;
  serviceType?: string;
  protocol?: "grpc" | "connect";
  port?: number;
  home?: string;
  idFile?: string;
  token?: string;
  tlsCert?: string;
  tlsKey?: string;
  tlsCa?: string;
  requireClientCert?: boolean;
  hostileProvisioner?: boolean;
}

function flags(options: CapabilityOptions): string[] {
  const args: string[] = [];
  const pairs: [string, string | number | undefined][] = [
    ["--router", options.router],
    ["--service-name", options.serviceName],
    ["--service-type", options.serviceType],
    ["--protocol", options.protocol],
    ["--port", options.port],
    ["--home", options.home],
    ["--id-file", options.idFile],
    ["--token", options.token],
    ["--tls-cert", options.tlsCert],
    ["--tls-key", options.tlsKey],
    ["--tls-ca", options.tlsCa],
  ];
  for (const [flag, value] of pairs) if (value !== undefined) args.push(flag, String(value));
  if (options.requireClientCert) args.push("--require-client-cert");
  if (options.hostileProvisioner) args.push("--hostile-provisioner");
  return args;
}

/** Starts the capability and waits until it listens (and, with `router`, until it is registered). */
export async function startCapability(options: CapabilityOptions): Promise<CapabilityProcess> {
  const proc = startNode(reliableCapability, flags(options));
  const line = await proc.waitForLine((l) => l.includes('"event":"ready"'), 30_000);
  const ready = JSON.parse(line) as { port: number; id?: string };
  return Object.assign(proc, {
    port: ready.port,
    id: ready.id,
    outcomes: () =>
      proc.lines
        .filter((l) => l.includes('"event":"ended"'))
        .map((l) => (JSON.parse(l) as { outcome: string }).outcome),
  });
}

/** Ends a process and its group at once, as a crash or the OOM killer would; resolves when it is gone. */
export async function killHard(proc: RunningProcess): Promise<void> {
  const { child } = proc;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(-(child.pid as number), "SIGKILL");
  await gone;
  await proc.stop(0);
}
