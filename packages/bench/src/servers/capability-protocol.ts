import type { RegistrationTarget } from "@trestle/capability";

/** What the harness asks the echo capability process. */
export type CapabilityCommand =
  | { type: "stats" }
  | {
      type: "register";
      routerUrl: string;
      /** Echoed back in `registered`, to tell registrations apart. */
      tag: string;
      target: Omit<RegistrationTarget, "host" | "port">;
      /** A `register`-scope token, for a router with tokens. */
      token?: string;
    };

/** What the echo capability process tells the harness. */
export type CapabilityEvent =
  | { type: "ready"; host: string; port: number }
  | { type: "stats"; connections: number }
  | { type: "registered"; id: string; tag: string };
