import type { ChildProcess } from "node:child_process";
import type { RegistrationTarget } from "@trestle/capability";
import { captureOutput, spawnNode, stopChild, waitForMessage } from "./child-process.js";
import { distScript } from "./paths.js";
import type { CapabilityCommand, CapabilityEvent } from "./servers/capability-protocol.js";

/** The echo capability service running in its own process. */
export interface CapabilityProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly host: string;
  readonly port: number;
  /** TCP connections the service has accepted since it started. */
  connections(): Promise<number>;
  /** Registers the service with a router (it keeps heartbeating); resolves with the assigned id. */
  register(
    routerUrl: string,
    target: Omit<RegistrationTarget, "host" | "port">,
    /** A `register`-scope token, for a router with tokens. */
    token?: string,
  ): Promise<string>;
  stop(): Promise<void>;
}

let tags = 0;

/** Starts the echo capability (an echo tool and a fake code execution engine) on a free port. */
export async function startCapability(): Promise<CapabilityProcess> {
  const child = spawnNode(distScript("servers/echo-capability.js"), [], { ipc: true });
  const output = captureOutput(child);
  const ready = await waitForMessage<Extract<CapabilityEvent, { type: "ready" }>>(
    child,
    "ready",
    60_000,
    output,
  );
  const command = (message: CapabilityCommand) => child.send(message);
  return {
    child,
    pid: child.pid as number,
    host: ready.host,
    port: ready.port,
    async connections() {
      const reply = waitForMessage<Extract<CapabilityEvent, { type: "stats" }>>(
        child,
        "stats",
        10_000,
        output,
      );
      command({ type: "stats" });
      return (await reply).connections;
    },
    async register(routerUrl, target, token) {
      const tag = `r${tags++}`;
      const registered = new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`registration with ${routerUrl} timed out`)), 30_000);
        const onMessage = (message: CapabilityEvent) => {
          if (message.type === "registered" && message.tag === tag) {
            clearTimeout(timer);
            child.off("message", onMessage);
            resolve(message.id);
          }
        };
        child.on("message", onMessage);
      });
      command({ type: "register", routerUrl, tag, target, ...(token ? { token } : {}) });
      return registered;
    },
    stop: () => stopChild(child),
  };
}
