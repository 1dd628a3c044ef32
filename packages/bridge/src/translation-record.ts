import type { ServiceTarget, TranslationLeg, TranslationNote, TranslationRecorder } from "@trestle/core";
import type { CallRecord } from "./interceptors/call-events.js";

/** The client leg of a call whose front did not say: the MCP front's `tools/call`. */
const MCP_CLIENT = { protocol: "mcp", method: "tools/call" } as const satisfies TranslationLeg;

/** The method a backend of each built-in protocol sees for a tool call or a code execution. */
function backendMethod(protocol: string, kind: "tool" | "code-execution"): string {
  if (protocol === "mcp") return "tools/call";
  if (protocol === "a2a") return "SendMessage";
  return kind === "tool" ? "InvokeTool" : "ExecuteCode";
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
  const clientLeg: TranslationLeg = { ...(client ?? MCP_CLIENT) };
  const protocol = target.protocol ?? "grpc";
  const kind = record.kind === "code-execution" ? "code-execution" : "tool";
  const defaultBackend: TranslationLeg = { protocol, method: backendMethod(protocol, kind) };
  // A front that names its client's revision (MCP) gets a report on every call: a call between two revisions of
  // one protocol is a translation too, and the codec notes there what a revision cannot carry.
  if (
    (client !== undefined && (clientLeg.protocol !== protocol || clientLeg.version !== undefined)) ||
    clientNotes.length > 0
  ) {
    record.translation = {
      client: clientLeg,
      backend: defaultBackend,
      notes: clientNotes.map((n) => ({ ...n })),
    };
  }
  const report = () => {
    record.translation ??= { client: clientLeg, backend: defaultBackend, notes: [] };
    return record.translation;
  };
  return {
    client: clientLeg,
    backend(leg) {
      report().backend = { ...leg };
    },
    note(note) {
      report().notes.push({ ...note });
    },
  };
}
