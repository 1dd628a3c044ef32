import { create } from "@bufbuild/protobuf";
import type { CodeRun } from "@trestle/core";
import { type CodeExecutionRequest, CodeExecutionRequestSchema } from "@trestle/proto";

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/**
 * True when `text` holds a control character other than tab, line feed and carriage return. Source code does
 * not; a decoding that does was ordinary text that happened to be valid Base64.
 */
function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) return true;
  }
  return false;
}
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The code to run: `code` Base64-decoded when it is valid, padded, standard Base64 (line breaks allowed) whose
 * decoding is valid UTF-8 text; otherwise `code` as it is. Raw code is rarely valid Base64, and almost never
 * one that decodes to clean UTF-8 text, so the two forms do not collide in practice.
 */
export function decodeCode(code: string): string {
  const compact = code.replace(/[\r\n]/g, "");
  if (compact.length === 0 || !base64.test(compact)) return code;
  try {
    const text = utf8.decode(Buffer.from(compact, "base64"));
    return hasControlCharacters(text) ? code : text;
  } catch {
    return code;
  }
}

/** `arguments` as the request's map: a list becomes `arg0`, `arg1`, …. */
export function codeArguments(args: CodeRun["arguments"]): Record<string, string> {
  if (!args) return {};
  if (Array.isArray(args)) return Object.fromEntries(args.map((value, i) => [`arg${i}`, value]));
  return { ...args };
}

/**
 * The `CodeExecutionRequest` for a run (contract §4): `uri = code-execution-engine://{engineType}/{language}`,
 * the decoded code, the arguments as a map, the environment, the timeout and the request id.
 */
export function buildCodeExecutionRequest(run: CodeRun, requestId = ""): CodeExecutionRequest {
  return create(CodeExecutionRequestSchema, {
    uri: `code-execution-engine://${run.engineType}/${run.language}`,
    body: run.body ?? "",
    code: decodeCode(run.code ?? ""),
    arguments: codeArguments(run.arguments),
    configurationUri: run.configurationUri ?? "",
    secretsUri: run.secretsUri ?? "",
    environment: { ...(run.environment ?? {}) },
    requestId,
    ...(run.timeoutMs !== undefined ? { timeout: BigInt(Math.max(0, Math.trunc(run.timeoutMs))) } : {}),
  });
}
