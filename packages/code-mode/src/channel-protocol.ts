import { Code, TrestleError } from "@trestle/core";

/**
 * The tool channel between a sandboxed program and the router: one JSON object a line (UTF-8, `\n`-terminated)
 * each way on a duplex stream (a socket pair inherited by the program, or a Unix socket).
 *
 * - program → router, a call: `{"id": 1, "name": "get_weather", "arguments": {"city": "Oslo"}}`
 * - router → program, its answer: `{"id": 1, "result": <any JSON>}` or `{"id": 1, "error": {"message": "…"}}`
 *
 * `id` is a non-negative integer the program chooses, unique among its calls in flight; answers may come in any
 * order. `name` is the tool's original name. `result` is what the call returns in the program (the tool's
 * `structuredContent`, else its text); `error.message` is what `ToolError` carries.
 */
export interface ToolCallRequest {
  id: number;
  name: string;
  arguments: Record<string, unknown>;
}

/** The router's answer to one {@link ToolCallRequest}. */
export type ToolCallResponse = { id: number; result: unknown } | { id: number; error: { message: string } };

/** A message as one line of the channel. */
export function encodeChannelMessage(message: ToolCallRequest | ToolCallResponse): string {
  return `${JSON.stringify(message)}\n`;
}

/** Longest tool name a request may carry (MCP names are at most 128 characters). */
const MAX_TOOL_NAME_LENGTH = 256;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A line that breaks the protocol; `id` is the request's when it could be read, so it can still be answered. */
export class ChannelProtocolError extends TrestleError {
  readonly id: number | undefined;

  constructor(message: string, id?: number) {
    super(message, Code.InvalidArgument);
    this.name = "ChannelProtocolError";
    this.id = id;
  }
}

/**
 * Reads one request line (the router's side).
 *
 * @throws ChannelProtocolError when the line is not a request; with the request's `id` when only the rest is
 *   wrong (unknown shape of `name` or `arguments`), so the program can be told.
 */
export function decodeToolCallRequest(line: string): ToolCallRequest {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    throw new ChannelProtocolError("a line on the tool channel is not JSON");
  }
  if (!isPlainObject(message))
    throw new ChannelProtocolError("a line on the tool channel is not a JSON object");
  const { id, name, arguments: args } = message;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0)
    throw new ChannelProtocolError("a tool call's 'id' must be a non-negative integer");
  if (typeof name !== "string" || name === "" || name.length > MAX_TOOL_NAME_LENGTH)
    throw new ChannelProtocolError(
      `a tool call's 'name' must be a tool name of 1 to ${MAX_TOOL_NAME_LENGTH} characters`,
      id,
    );
  if (args !== undefined && !isPlainObject(args))
    throw new ChannelProtocolError("a tool call's 'arguments' must be an object", id);
  return { id, name, arguments: args ?? {} };
}

/**
 * Reads one response line (the program's side; the preludes do the same in their own language).
 *
 * @throws ChannelProtocolError when the line is not a response.
 */
export function decodeToolCallResponse(line: string): ToolCallResponse {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    throw new ChannelProtocolError("a line on the tool channel is not JSON");
  }
  if (!isPlainObject(message) || typeof message.id !== "number")
    throw new ChannelProtocolError("a tool call's answer must be an object with an 'id'");
  if ("error" in message) {
    const error = message.error;
    const text =
      isPlainObject(error) && typeof error.message === "string" ? error.message : "the tool call failed";
    return { id: message.id, error: { message: text } };
  }
  return { id: message.id, result: message.result ?? null };
}

/** Splits a byte stream into lines, refusing a line longer than a limit. */
export interface LineSplitter {
  /** Feeds bytes; calls `onLine` for each complete line (without its `\n`). */
  push(chunk: Uint8Array): void;
  /** Bytes held of an incomplete line. */
  readonly pendingBytes: number;
}

/**
 * Creates a {@link LineSplitter}. Lines are decoded as UTF-8 once complete, so a character split across chunks is
 * read whole. Empty lines are skipped.
 *
 * @throws ChannelProtocolError from `push` when a line grows past `maxLineBytes` (the rest of the stream is then
 *   not to be trusted).
 */
export function createLineSplitter(maxLineBytes: number, onLine: (line: string) => void): LineSplitter {
  let held: Buffer[] = [];
  let heldBytes = 0;
  const decoder = new TextDecoder("utf-8");
  return {
    get pendingBytes() {
      return heldBytes;
    },
    push(chunk) {
      let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let newline = bytes.indexOf(10); newline >= 0; newline = bytes.indexOf(10)) {
        if (heldBytes + newline > maxLineBytes)
          throw new ChannelProtocolError(`a line on the tool channel is longer than ${maxLineBytes} bytes`);
        const line = decoder.decode(Buffer.concat([...held, bytes.subarray(0, newline)]));
        held = [];
        heldBytes = 0;
        bytes = bytes.subarray(newline + 1);
        if (line.trim() !== "") onLine(line);
      }
      if (heldBytes + bytes.length > maxLineBytes)
        throw new ChannelProtocolError(`a line on the tool channel is longer than ${maxLineBytes} bytes`);
      if (bytes.length > 0) {
        held.push(Buffer.from(bytes));
        heldBytes += bytes.length;
      }
    },
  };
}
