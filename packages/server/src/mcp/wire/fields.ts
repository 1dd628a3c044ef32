/**
 * Fields many wire objects share and older revisions lack: `_meta` and `annotations.lastModified` (before
 * 2025-06-18) on content blocks and entries, `title` (before 2025-06-18), `icons` (before 2025-11-25). Each helper
 * returns its input when the revision has the field, and notes what it drops otherwise.
 */
import type { TranslationNote } from "@trestle/core";
import { note, omit } from "./encoded.js";
import type { Features } from "./revisions.js";
import type { McpAnnotations, McpIcon } from "./types.js";

/** Drops from annotations what the revision lacks (`lastModified` before 2025-06-18). */
function encodeAnnotations(
  annotations: McpAnnotations,
  f: Features,
  where: string,
  notes: TranslationNote[],
): McpAnnotations {
  if (f.lastModified || annotations.lastModified === undefined) return annotations;
  note(
    notes,
    "dropped",
    `${where} annotations.lastModified`,
    `MCP revision ${f.revision} has no lastModified`,
  );
  return omit(annotations, ["lastModified"]);
}

/** Drops `_meta` and `annotations.lastModified` where the revision lacks them. */
export function trimBase<T extends { annotations?: McpAnnotations | undefined; _meta?: object | undefined }>(
  value: T,
  f: Features,
  where: string,
  notes: TranslationNote[],
): T {
  let out = value;
  if (!f.nestedMeta && value._meta !== undefined) {
    note(notes, "dropped", `${where} _meta`, `MCP revision ${f.revision} has no _meta here`);
    out = omit(out, ["_meta"]);
  }
  if (value.annotations !== undefined) {
    const annotations = encodeAnnotations(value.annotations, f, where, notes);
    if (annotations !== value.annotations) {
      if (out === value) out = { ...value };
      out.annotations = annotations;
    }
  }
  return out;
}

/** Drops `icons` where the revision lacks them (before 2025-11-25). */
export function trimIcons<T extends { icons?: McpIcon[] | undefined }>(
  value: T,
  f: Features,
  where: string,
  notes: TranslationNote[],
): T {
  if (f.icons || value.icons === undefined) return value;
  note(notes, "dropped", `${where} icons`, `MCP revision ${f.revision} has no icons`);
  return omit(value, ["icons"]);
}

/** Drops `title` where the revision lacks it (before 2025-06-18). */
export function trimTitle<T extends { title?: string | undefined }>(
  value: T,
  f: Features,
  where: string,
  notes: TranslationNote[],
): T {
  if (f.titles || value.title === undefined) return value;
  note(notes, "dropped", `${where} title`, `MCP revision ${f.revision} has no title; clients show the name`);
  return omit(value, ["title"]);
}
