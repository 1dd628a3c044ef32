/**
 * The text a tool call answers with: the body decoded as UTF-8, pretty-printed when it is complete JSON, and
 * ending with a note when it was cut at the size cap.
 */
export function responseText(
  body: Buffer,
  contentType: string,
  truncated: boolean,
  maxBytes: number,
): string {
  const text = body.toString("utf8");
  if (truncated) {
    return `${text}\n[response cut: it is longer than the ${maxBytes}-byte limit of this tool]`;
  }
  const looksJson = /[/+]json\b/i.test(contentType) || /^\s*[[{]/.test(text);
  if (looksJson) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not JSON after all: the text goes back as it came.
    }
  }
  return text;
}
