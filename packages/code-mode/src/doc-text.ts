/** Control characters other than tab and newline: they have no place in a comment, and NUL breaks Python. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f\u2028\u2029]/g;

/**
 * Text from a catalog made safe to print inside generated source: control characters become spaces, `\r\n`
 * becomes `\n`, surrounding blank space goes, and text over `maxLength` characters is cut with "…".
 */
export function cleanText(text: string, maxLength: number): string {
  const clean = text.replace(/\r\n?/g, "\n").replace(CONTROL_CHARACTERS, " ").trim();
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1).trimEnd()}…` : clean;
}

/**
 * A TSDoc comment of the given lines at an indent, or "" when there is nothing to say. `*\/` in the text is
 * written `*\\/`, so catalog text can never end the comment and become code.
 */
export function tsDocComment(lines: readonly string[], indent: string): string {
  const text = lines.filter((line) => line !== "").join("\n\n");
  if (text === "") return "";
  const safe = text.replace(/\*\//g, "*\\/").split("\n");
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((line) => `${indent} *${line ? ` ${line}` : ""}`).join("\n")}\n${indent} */\n`;
}

/**
 * A Python docstring of the given text at an indent, or "" when there is nothing to say. Backslashes and quotes
 * are escaped where they could end the string or start an escape, so catalog text can never become code.
 */
export function pythonDocstring(text: string, indent: string): string {
  if (text === "") return "";
  let safe = text.replace(/\\/g, "\\\\");
  if (safe.includes('"""') || safe.endsWith('"')) safe = safe.replace(/"/g, '\\"');
  const lines = safe.split("\n");
  if (lines.length === 1) return `${indent}"""${lines[0]}"""\n`;
  return `${indent}"""${lines.map((line, i) => (i === 0 || line === "" ? line : `${indent}${line}`)).join("\n")}\n${indent}"""\n`;
}

/** A JSON value as a literal that TypeScript and Python both read as that value (strings, numbers). */
export function literal(value: string | number): string {
  return JSON.stringify(value);
}
