import type { SkippedEntry } from "./catalog-import.js";
import type { PublicUpstream } from "./forward-identity.js";

/** Where a forward's connection to its upstream stands. */
export type ForwardState = "connecting" | "ready" | "reconnecting" | "failed";

/** A forward's import, as the management API reports it. */
export interface ForwardStatus {
  state: ForwardState;
  /** The upstream's own `serverInfo`, once connected. */
  server?: { name: string; version: string };
  /** The MCP capabilities the upstream advertised, once connected. */
  capabilities?: string[];
  /** How many entries the latest import holds. */
  imported: { tools: number; resources: number; resourceTemplates: number; prompts: number };
  /** Upstream entries left out of the latest import, and why. */
  skipped: SkippedEntry[];
  /** When the latest import ran (ISO 8601). */
  importedAt?: string;
  /** The latest failure, as one sentence that names the server by program or origin only. */
  error?: string;
}

/** A forward as the management API shows it: its upstream without arguments, environment or header values. */
export interface ForwardView {
  id?: string;
  name: string;
  namespace: string;
  description?: string;
  prefix?: string;
  labels?: Record<string, string>;
  /** The forward's own start timeout, when it sets one (else the router's `forwardStartTimeoutMs`). */
  startTimeoutMs?: number;
  /** The forward's own handshake timeout, when it sets one (else the router's `forwardHandshakeTimeoutMs`). */
  handshakeTimeoutMs?: number;
  /** The service name its entries are routed to. */
  service: string;
  upstream: PublicUpstream;
  status: ForwardStatus;
}

/** The status of a forward nothing has been imported from yet. */
export function emptyStatus(state: ForwardState): ForwardStatus {
  return { state, imported: { tools: 0, resources: 0, resourceTemplates: 0, prompts: 0 }, skipped: [] };
}
