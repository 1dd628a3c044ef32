import { type Message, type Part, Task, TaskState } from "@a2a-js/sdk";
import { redactValue } from "@trestle/core/redaction";

/** Bytes of one message part kept in a stored task; a longer part is cut (text) or replaced by a note. */
export const STORED_PART_MAX_BYTES = 16 * 1024;
/** Bytes of one artifact part (a tool's result) kept in a stored task. */
export const STORED_ARTIFACT_PART_MAX_BYTES = 256 * 1024;

function note(text: string): Part {
  return {
    content: { $case: "text", value: text },
    metadata: undefined,
    filename: "",
    mediaType: "text/plain",
  };
}

/** A text cut to at most `max` UTF-8 bytes (never inside a character), with how much was left out. */
function cutText(text: string, max: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= max) return text;
  let kept = Buffer.from(text).subarray(0, max).toString("utf8");
  // A character cut in two decodes as U+FFFD at the end: it is dropped.
  if (kept.endsWith("\uFFFD")) kept = kept.slice(0, -1);
  return `${kept}…[truncated ${bytes - Buffer.byteLength(kept)} bytes]`;
}

/** About how many bytes a part holds (its content, as it would be kept). */
function partBytes(part: Part): number {
  const content = part.content;
  if (!content) return 0;
  if (content.$case === "raw") return content.value.length;
  if (content.$case === "data") return Buffer.byteLength(JSON.stringify(content.value) ?? "");
  return Buffer.byteLength(content.value);
}

/** One part as it may be stored: data redacted by name at any depth, everything bounded to `max` bytes. */
function storedPart(part: Part, max: number): Part {
  const content = part.content;
  if (!content) return part;
  switch (content.$case) {
    case "text":
      return { ...part, content: { $case: "text", value: cutText(content.value, max) } };
    case "data": {
      const redacted = redactValue(content.value);
      const bytes = Buffer.byteLength(JSON.stringify(redacted) ?? "");
      if (bytes <= max) return { ...part, content: { $case: "data", value: redacted } };
      return note(`[a data part of ${bytes} bytes, not kept]`);
    }
    case "raw":
      return content.value.length <= max
        ? part
        : note(
            `[a file of ${content.value.length} bytes${part.filename ? ` (${part.filename})` : ""}, not kept]`,
          );
    case "url":
      return { ...part, content: { $case: "url", value: cutText(content.value, max) } };
  }
  return part;
}

function storedMessage(message: Message, max: number): Message {
  return { ...message, parts: message.parts.map((p) => storedPart(p, max)) };
}

/**
 * A task as the store keeps it (A2A JSON): each message's data parts redacted by name at any depth (an
 * `environment` with a `password` keeps its other fields), every part bounded, and the messages of a refused
 * (`REJECTED`) task not kept at all beyond a note of their size: a refusal must not become a place to park
 * megabytes for the retention time. Artifacts (the task's results) are bounded more loosely.
 */
export function storedTaskDocument(task: Task): Record<string, unknown> {
  const rejected = task.status?.state === TaskState.TASK_STATE_REJECTED;
  const bounded: Task = {
    ...task,
    history: (task.history ?? []).map((message) =>
      rejected
        ? {
            ...message,
            parts: [
              note(
                `[the refused message (${message.parts.reduce((sum, p) => sum + partBytes(p), 0)} bytes) is not kept]`,
              ),
            ],
          }
        : storedMessage(message, STORED_PART_MAX_BYTES),
    ),
    artifacts: (task.artifacts ?? []).map((artifact) => ({
      ...artifact,
      parts: artifact.parts.map((p) => storedPart(p, STORED_ARTIFACT_PART_MAX_BYTES)),
    })),
  };
  if (task.status?.message) {
    bounded.status = { ...task.status, message: storedMessage(task.status.message, STORED_PART_MAX_BYTES) };
  }
  return Task.toJSON(bounded) as Record<string, unknown>;
}
