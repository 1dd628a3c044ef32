import { readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the admin UI is served. */
export const ADMIN_UI_BASE = "/ui";

/**
 * The headers of every answer under `/ui`: a policy that lets the page run only its own scripts and styles and
 * talk only to its own origin (no inline script, no framing, no plugins), and no MIME sniffing.
 */
export const ADMIN_UI_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; " +
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
});

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** The most the UI's files may hold together: they are read into memory once, so a stray large file is refused. */
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;

/** One file the UI serves, read once. */
interface SiteFile {
  body: Buffer;
  contentType: string;
  /** Content-hashed build output (`assets/…`): cached for a year; everything else is revalidated. */
  immutable: boolean;
}

/** Options for {@link createAdminUi}. */
export interface AdminUiOptions {
  /** The directory of the built UI (its `index.html` at the top); the package's `dist/ui` by default. */
  root?: string;
}

/** Serves the admin UI's static files. */
export interface AdminUi {
  /** Answers a request for `path` (one {@link isAdminUiPath} accepted), without a token. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): void;
}

/**
 * True for the paths the admin UI answers: `/ui` and everything under `/ui/`, except a namespace named `ui`'s own
 * endpoints (`/ui/mcp`, `/ui/a2a`, …), which stay MCP's and A2A's.
 */
export function isAdminUiPath(path: string): boolean {
  if (path === ADMIN_UI_BASE) return true;
  if (!path.startsWith(`${ADMIN_UI_BASE}/`)) return false;
  return !/^\/ui\/(mcp|a2a)(\/|$)/.test(path);
}

/** The built UI inside this package: `dist/ui`, beside `dist/http`. */
export function defaultAdminUiRoot(): string {
  return fileURLToPath(new URL("../ui/", import.meta.url));
}

/**
 * Every regular file under `root`, by its path relative to it (`assets/index-abc.js`). Symbolic links (a
 * directory entry's own type, never followed) and dot files are left out, so nothing outside the build can be reached through it. Undefined when `root` holds no
 * `index.html` (the UI was not built into this package).
 */
function indexFiles(root: string): Map<string, SiteFile> | undefined {
  const files = new Map<string, SiteFile>();
  let total = 0;
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const full = join(dir, entry.name);
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(full, relative);
      else if (entry.isFile()) {
        const body = readFileSync(full);
        total += body.length;
        if (total > MAX_TOTAL_BYTES)
          throw new Error(`The admin UI in ${root} is larger than ${MAX_TOTAL_BYTES} bytes`);
        files.set(relative, {
          body,
          contentType: CONTENT_TYPES[extname(entry.name).toLowerCase()] ?? "application/octet-stream",
          immutable: relative.startsWith("assets/"),
        });
      }
    }
  };
  try {
    walk(root, "");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return files.has("index.html") ? files : undefined;
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: Buffer | string,
  headers: Record<string, string>,
): void {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  res.writeHead(status, { ...ADMIN_UI_HEADERS, ...headers, "content-length": String(bytes.length) });
  res.end(req.method === "HEAD" ? undefined : bytes);
}

function notFound(req: IncomingMessage, res: ServerResponse, message: string): void {
  send(req, res, 404, `${message}\n`, {
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "no-store",
  });
}

/**
 * The admin UI: the static files of the built single-page app, public (the page holds no data; every call it
 * makes to `/api` needs a token). Files are looked up in an index of the build made at the first request, never
 * by joining a request's path onto the file system, so no path can reach a file outside the build. A path whose
 * last segment has no `.` and names no file is a page of the app: it gets `index.html`. Only GET and HEAD.
 */
export function createAdminUi(options: AdminUiOptions = {}): AdminUi {
  const root = options.root ?? defaultAdminUiRoot();
  let files: Map<string, SiteFile> | undefined | null = null;
  const site = () => {
    if (files === null) files = indexFiles(root);
    return files;
  };

  return {
    handle(req, res, path) {
      if (req.method !== "GET" && req.method !== "HEAD") {
        send(req, res, 405, "The admin UI answers GET and HEAD only\n", {
          allow: "GET, HEAD",
          "content-type": "text/plain; charset=utf-8",
        });
        return;
      }
      if (path === ADMIN_UI_BASE) {
        send(req, res, 308, "", { location: `${ADMIN_UI_BASE}/`, "cache-control": "no-store" });
        return;
      }
      const built = site();
      if (!built) {
        notFound(req, res, "The admin UI is not part of this build of the router (build @trestle/ui first)");
        return;
      }
      let relative: string;
      try {
        relative = decodeURIComponent(path.slice(ADMIN_UI_BASE.length + 1));
      } catch {
        notFound(req, res, "Nothing at this path");
        return;
      }
      const file = built.get(relative === "" ? "index.html" : relative);
      // An app page (`/ui/calls`): the app routes it. A missing file (`/ui/assets/gone.js`, `/ui/.env`) is a 404.
      const isPage = !(relative.split("/").at(-1) ?? "").includes(".");
      const page = file ?? (isPage ? built.get("index.html") : undefined);
      if (!page) {
        notFound(req, res, "Nothing at this path");
        return;
      }
      send(req, res, 200, page.body, {
        "content-type": page.contentType,
        "cache-control": file?.immutable ? "public, max-age=31536000, immutable" : "no-cache",
      });
    },
  };
}
