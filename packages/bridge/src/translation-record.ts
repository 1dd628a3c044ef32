import type { ServiceTarget, TranslationLeg, TranslationNote, TranslationRecorder } from "@trestle/core";
import type { CallRecord } from "./interceptors/call-events.js";

/** The client leg of a call whose front did not say: the MCP front's `tools/call`. */
const MCP_CLIENT: TranslationLeg = Object.freeze({ protocol: "mcp", method: "tools/call" });

type CallKind = "tool" | "code-execution";

/** The capability contract's RPC for each kind of call: what a gRPC or Connect service (or a custom one) sees. */
const CAPABILITY_METHOD: Readonly<Record<CallKind, string>> = Object.freeze({
  tool: "InvokeTool",
  "code-execution": "ExecuteCode",
});

function legs(
  protocol: string,
  tool = CAPABILITY_METHOD.tool,
  codeExecution = CAPABILITY_METHOD["code-execution"],
): Readonly<Record<CallKind, TranslationLeg>> {
  return Object.freeze({
    tool: Object.freeze({ protocol, method: tool }),
    "code-execution": Object.freeze({ protocol, method: codeExecution }),
  });
}

/**
 * The backend leg of each built-in protocol for a tool call and a code execution, until a transport reports the
 * leg it spoke. Frozen and shared: a report's legs are replaced, never changed in place, and a history of a
 * thousand calls then keeps one of each rather than one per call.
 */
const DEFAULT_BACKENDS: Readonly<Record<string, Readonly<Record<CallKind, TranslationLeg>>>> = Object.freeze({
  grpc: legs("grpc"),
  connect: legs("connect"),
  mcp: legs("mcp", "tools/call", "tools/call"),
  a2a: legs("a2a", "SendMessage", "SendMessage"),
});

/** The backend leg a call to `protocol` has until its transport says otherwise (a capability service's RPC). */
function defaultBackend(protocol: string, kind: CallKind): TranslationLeg {
  return DEFAULT_BACKENDS[protocol]?.[kind] ?? { protocol, method: CAPABILITY_METHOD[kind] };
}

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
    this.#report().backend = { ...leg };
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
 * Fills `record.translation` for a call: at once when the client's protocol differs from the backend's (the A2A
 * front calling a gRPC service), and through the returned recorder when a transport reports that it translated
 * (an A2A agent behind the MCP front). A call between two legs of the same protocol and no notes has no report.
 */
export function translationFor(
  record: CallRecord,
  client: TranslationLeg | undefined,
  target: ServiceTarget,
  clientNotes: readonly TranslationNote[] = [],
): TranslationRecorder {
  // A copy: the report outlives the call in the history, the front's object does not have to. A frozen leg cannot
  // change, and the front shares it between calls: the report shares it too.
  const clientLeg: TranslationLeg = client ? (Object.isFrozen(client) ? client : { ...client }) : MCP_CLIENT;
  const protocol = target.protocol ?? "grpc";
  const backend = defaultBackend(protocol, record.kind === "code-execution" ? "code-execution" : "tool");
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
 * Client legs for a front to put in its calls' contexts, frozen and one per protocol, version and method: a
 * report shares a frozen leg instead of copying it (see {@link translationFor}), and the event history keeps the
 * reports of a thousand calls. Keeps at most `limit` legs (a front speaks a few revisions and methods); past it,
 * each call gets a leg of its own.
 */
export function createClientLegs(
  limit = 32,
): (protocol: string, version: string, method: string) => TranslationLeg {
  const legs = new Map<string, TranslationLeg>();
  return (protocol, version, method) => {
    const key = `${protocol}\u0000${version}\u0000${method}`;
    let leg = legs.get(key);
    if (!leg) {
      leg = Object.freeze({ protocol, version, method });
      if (legs.size < limit) legs.set(key, leg);
    }
    return leg;
  };
}
