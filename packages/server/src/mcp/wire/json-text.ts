/**
 * Finding a JSON value among a result's text blocks: structured content a revision cannot carry is dropped when a
 * text block already holds the same JSON (in any formatting), and carried as new JSON text otherwise.
 */
import type { McpContentBlock, WireObject } from "./types.js";

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  const objectA: WireObject = { ...a };
  const objectB: WireObject = { ...b };
  const ka = Object.keys(objectA);
  return (
    ka.length === Object.keys(objectB).length &&
    ka.every((k) => Object.hasOwn(objectB, k) && jsonEqual(objectA[k], objectB[k]))
  );
}

/** Whether `text` can be a JSON object or array: a cheap filter that keeps prose (`[Audio omitted…`) from a throwing parse. */
function looksLikeJsonContainer(text: string): boolean {
  const open = text[0];
  const close = text[text.length - 1];
  if (!((open === "{" && close === "}") || (open === "[" && close === "]"))) return false;
  const next = text.slice(1, 12).trimStart()[0];
  return open === "{" ? next === '"' || next === "}" : next !== undefined && /["{[\]\-0-9tfn]/.test(next);
}

/** The index of a text block whose text is `value` as JSON (in any formatting), or -1. */
export function findJsonText(content: readonly McpContentBlock[], value: unknown): number {
  const compact = JSON.stringify(value);
  const structured = typeof value === "object" && value !== null;
  return content.findIndex((block) => {
    if (block.type !== "text" || typeof block.text !== "string") return false;
    const text = block.text.trim();
    if (text === compact) return true;
    // Parse only what can be the same object or array in other formatting: parsing prose would throw.
    if (!structured || !looksLikeJsonContainer(text)) return false;
    try {
      return jsonEqual(JSON.parse(text), value);
    } catch {
      return false;
    }
  });
}
