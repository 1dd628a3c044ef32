import type { ToolCallDescription } from "@trestle/core";
import { argumentSecretValues, redactArguments } from "@trestle/core/redaction";

/** Redacted arguments, or none when a value cannot be turned into text (the call then fails on that). */
function safeRedactArguments(args: Readonly<Record<string, unknown>>): Record<string, string> {
  try {
    return redactArguments(args);
  } catch {
    return {};
  }
}

/** About how much memory recording `args` holds until the event is built: their text, twice. */
function argumentBytes(args: Readonly<Record<string, unknown>>): number {
  let bytes = 0;
  for (const name in args) {
    if (!Object.hasOwn(args, name)) continue;
    const value = args[name];
    bytes += name.length;
    if (typeof value === "string") bytes += value.length;
    else if (typeof value === "object" && value !== null) bytes += JSON.stringify(value)?.length ?? 0;
    else bytes += 8;
  }
  return 2 * bytes;
}

/**
 * A tool call whose transport sends its arguments as they are (an MCP forward, an A2A agent, a transport that
 * does not describe its calls), described by core's name rules alone: the secret values among its arguments
 * (`argumentSecretValues`), and the arguments as a call's event records them (`redactArguments`), with no headers
 * and no body. A class rather than an object of closures: one per recorded call.
 */
class ArgumentsDescription implements ToolCallDescription {
  readonly secretValues: readonly string[];
  readonly estimatedBytes: number | undefined;
  readonly #arguments: Readonly<Record<string, unknown>>;

  constructor(args: Readonly<Record<string, unknown>>, secretValues: readonly string[], measure: boolean) {
    this.#arguments = args;
    this.secretValues = secretValues;
    this.estimatedBytes = measure ? argumentBytes(args) : undefined;
  }

  record() {
    return { arguments: safeRedactArguments(this.#arguments), headers: {}, body: "" };
  }
}

/**
 * The description of a call sent with its arguments as they are (see {@link ArgumentsDescription}). `measure`
 * estimates what recording it holds, so its events may be kept unbuilt until read.
 *
 * @throws TrestleError `InvalidArgument` when a secret-named argument cannot be turned into text.
 */
export function describeArguments(
  args: Readonly<Record<string, unknown>>,
  measure = true,
): ToolCallDescription {
  return new ArgumentsDescription(args, argumentSecretValues(args), measure);
}

/**
 * The description of a call that never reached a transport (no service, missing arguments): its arguments by the
 * name rules, and whatever secret values they show, without failing on an argument that cannot be made text.
 */
export function describeUndispatched(args: Readonly<Record<string, unknown>>): ToolCallDescription {
  let secretValues: readonly string[] = [];
  try {
    secretValues = argumentSecretValues(args);
  } catch {
    // The call failed already; the record keeps what it can.
  }
  return new ArgumentsDescription(args, secretValues, false);
}
