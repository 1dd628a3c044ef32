import type { ServiceTarget, TranslationLeg, TranslationNote, TranslationRecorder } from "@trestle/core";
import { DEFAULT_PROTOCOL } from "@trestle/core/routing";
import type { CallRecord } from "./interceptors/call-events.js";

/** The client leg of a call whose front did not say: the MCP front's `tools/call`. */
const MCP_CLIENT: TranslationLeg = Object.freeze({ protocol: "mcp", method: "tools/call" });

/** Makes (or shares) a frozen leg; see {@link createClientLegs}. */
export type LegFactory = (protocol: string, version: string | undefined, method: string) => TranslationLeg;

/**
 * The recorder of one call: it makes the record's report the first time a transport reports, so a call nobody
 * translated carries none. A class, not an object of closures: one per recorded call.
 */
class TranslationRecording implements TranslationRecorder {
  readonly client: TranslationLeg;
  readonly #record: CallRecord;
  readonly #backend: TranslationLeg;

  constructor(record: CallRecord, client: TranslationLeg, backend: TranslationLeg) {
    this.#record = record;
    this.client = client;
    this.#backend = backend;
  }

  backend(leg: TranslationLeg): void {
    // A transport's leg is frozen and shared by its calls: the report keeps it as it is, one for a thousand calls.
    this.#report().backend = Object.isFrozen(leg) ? leg : { ...leg };
  }

  note(note: TranslationNote): void {
    this.#report().notes.push({ ...note });
  }

  #report() {
    this.#record.translation ??= { client: this.client, backend: this.#backend, notes: [] };
    return this.#record.translation;
  }
}

/**
 * Fills `record.translation` for a call: at once when the client's protocol differs from the target's (the A2A
 * front calling a gRPC service), and through the returned recorder when a transport reports the leg it spoke (every
 * transport does, on each call) or what it translated (an A2A agent behind the MCP front). Until a transport
 * reports, the backend leg is the target's protocol and the neutral method (`callTool`, `executeCode`): what a
 * transport that reports nothing leaves. A call between two legs of the same protocol and no notes has no report.
 * `legs` makes the legs frozen and shared (see {@link createClientLegs}).
 */
export function translationFor(
  record: CallRecord,
  client: TranslationLeg | undefined,
  target: ServiceTarget,
  clientNotes: readonly TranslationNote[] = [],
  legs: LegFactory = createClientLegs(0),
): TranslationRecorder {
  // A copy: the report outlives the call in the history, the front's object does not have to. A frozen leg cannot
  // change, and the front shares it between calls: the report shares it too.
  const clientLeg: TranslationLeg = client ? (Object.isFrozen(client) ? client : { ...client }) : MCP_CLIENT;
  const protocol = target.protocol ?? DEFAULT_PROTOCOL;
  const backend = legs(protocol, undefined, record.kind === "code-execution" ? "executeCode" : "callTool");
  // A front that names its client's revision (MCP) gets a report on every call: a call between two revisions of
  // one protocol is a translation too, and the codec notes there what a revision cannot carry.
  if (
    (client !== undefined && (clientLeg.protocol !== protocol || clientLeg.version !== undefined)) ||
    clientNotes.length > 0
  ) {
    record.translation = { client: clientLeg, backend, notes: clientNotes.map((n) => ({ ...n })) };
  }
  return new TranslationRecording(record, clientLeg, backend);
}

/**
 * Client legs for a front to put in its calls' contexts (and the backend legs a bridge starts a report with), frozen
 * and one per protocol, version and method: a report shares a frozen leg instead of copying it (see
 * {@link translationFor}), and the event history keeps the reports of a thousand calls. Keeps at most `limit` legs
 * (a front speaks a few revisions and methods); past it, each call gets a leg of its own.
 */
export function createClientLegs(limit = 32): LegFactory {
  const legs = new Map<string, TranslationLeg>();
  return (protocol, version, method) => {
    const key = `${protocol}\u0000${version ?? ""}\u0000${method}`;
    let leg = legs.get(key);
    if (!leg) {
      leg = Object.freeze(version === undefined ? { protocol, method } : { protocol, version, method });
      if (legs.size < limit) legs.set(key, leg);
    }
    return leg;
  };
}
