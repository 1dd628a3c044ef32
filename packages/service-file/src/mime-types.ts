import { extname } from "node:path";

const TYPES: Record<string, string> = {
  ".txt": "text/plain",
  ".text": "text/plain",
  ".log": "text/plain",
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".csv": "text/csv",
  ".tsv": "text/tab-separated-values",
  ".html": "text/html",
  ".htm": "text/html",
  ".css": "text/css",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".cjs": "text/javascript",
  ".ts": "text/x-typescript",
  ".py": "text/x-python",
  ".java": "text/x-java",
  ".c": "text/x-c",
  ".h": "text/x-c",
  ".sh": "application/x-sh",
  ".json": "application/json",
  ".xml": "application/xml",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".toml": "application/toml",
  ".ini": "text/plain",
  ".properties": "text/plain",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".ico": "image/vnd.microsoft.icon",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".tar": "application/x-tar",
  ".wasm": "application/wasm",
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".ogg": "audio/ogg",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".bin": "application/octet-stream",
};

const TEXTUAL_APPLICATION_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/yaml",
  "application/toml",
  "application/x-sh",
  "image/svg+xml",
]);

/** The MIME type for a file name's extension, or `undefined` when the extension is unknown. */
export function mimeTypeFor(path: string): string | undefined {
  return TYPES[extname(path).toLowerCase()];
}

/** True for MIME types whose content is text (`text/*`, JSON, XML, YAML, TOML, shell, SVG). */
export function isTextMimeType(mimeType: string): boolean {
  return mimeType.startsWith("text/") || TEXTUAL_APPLICATION_TYPES.has(mimeType);
}
