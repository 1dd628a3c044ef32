import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { createFileProvisioner } from "@trestle/capability";
import { Code, TrestleError } from "@trestle/core";
import { RuntimeStatus } from "@trestle/proto";
import type { CapabilityHandlers } from "@trestle/wanaku";
import { isTextMimeType, mimeTypeFor } from "./mime-types.js";
import { createRootGuard } from "./root-guard.js";

/** Options for {@link createFileService}. */
export interface FileServiceOptions {
  /** Directories whose files are served. Default: the current directory. */
  roots?: readonly string[];
  /** Largest file served; a larger one is refused with `ResourceExhausted`. Default 8 MiB. */
  maxFileBytes?: number;
  /**
   * Where provisioned configuration and secrets are stored; without it the service answers no `Provision`.
   * Never served, even when under a root.
   */
  home?: string;
  /**
   * Directories never served, even under a root (the router's data directory, other services' homes): a
   * location inside one, or a link into one, is refused like a location outside the roots.
   */
  excludedRoots?: readonly string[];
}

/** Default cap on the size of a served file. */
export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;

/** How a resource's bytes are put into the reply's string content. */
export type ContentEncoding = "auto" | "text" | "base64";

/** A file read for a resource request, before it becomes reply content. */
export interface FileContent {
  /** The text, or the Base64 of the bytes. */
  content: string;
  encoding: "text" | "base64";
  mimeType: string;
}

function encodingParam(value: string | undefined): ContentEncoding {
  if (value === undefined || value === "" || value === "auto") return "auto";
  if (value === "text" || value === "base64") return value;
  throw new TrestleError(
    `Parameter encoding must be auto, text or base64, not ${value}`,
    Code.InvalidArgument,
  );
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function asText(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Encodes bytes as text when they are text (by MIME type, or valid UTF-8 for unknown types), else Base64. */
export function encodeFileContent(
  path: string,
  bytes: Buffer,
  encoding: ContentEncoding = "auto",
): FileContent {
  const known = mimeTypeFor(path);
  if (encoding === "base64") {
    return {
      content: bytes.toString("base64"),
      encoding: "base64",
      mimeType: known ?? "application/octet-stream",
    };
  }
  const text =
    encoding === "text" || known === undefined || isTextMimeType(known) ? asText(bytes) : undefined;
  if (text !== undefined) return { content: text, encoding: "text", mimeType: known ?? "text/plain" };
  if (encoding === "text") {
    throw new TrestleError("The file is not UTF-8 text; ask for encoding=base64", Code.InvalidArgument);
  }
  return {
    content: bytes.toString("base64"),
    encoding: "base64",
    mimeType: known ?? "application/octet-stream",
  };
}

async function readCapped(path: string, location: string, maxBytes: number): Promise<Buffer> {
  // O_NOFOLLOW: the checked real path must not have become a link since; O_NONBLOCK: a FIFO must not hang us.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") throw new TrestleError(`${location} does not exist`, Code.NotFound);
      if (error.code === "ELOOP")
        throw new TrestleError(`${location} leads outside the served roots`, Code.PermissionDenied);
      if (error.code === "EACCES")
        throw new TrestleError(`${location} is not readable`, Code.PermissionDenied);
      throw new TrestleError(`${location} cannot be opened (${error.code ?? "error"})`, Code.Internal, {
        cause: error,
      });
    },
  );
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new TrestleError(`${location} is not a regular file`, Code.InvalidArgument);
    if (stats.size > maxBytes) {
      throw new TrestleError(
        `${location} is ${stats.size} bytes, over the ${maxBytes}-byte limit of this service`,
        Code.ResourceExhausted,
      );
    }
    // Read to the cap plus one byte: a file that grew since stat is still refused, never read unbounded.
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) {
        if (filled > maxBytes) {
          throw new TrestleError(
            `${location} is over the ${maxBytes}-byte limit of this service`,
            Code.ResourceExhausted,
          );
        }
        break;
      }
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/**
 * Creates the handlers of the file resource provider: a resource's `location` (a `file://` URI, an absolute
 * path, or a path relative to the roots) names a file under one of the roots; the reply's single content
 * string is the file's text, or the Base64 of its bytes for binary files (see {@link encodeFileContent}; the
 * request parameter `encoding=text|base64` forces one).
 *
 * Anything outside the roots is refused with `PermissionDenied`: `..`, absolute paths elsewhere, and symbolic
 * links whose target is outside (checked on the real path); so is anything inside `excludedRoots` or the
 * service's own `home`, where provisioned secrets live. Missing files are `NotFound`; files over
 * `maxFileBytes` are `ResourceExhausted`.
 *
 * @throws TrestleError InvalidArgument when a root is not an existing directory.
 */
export function createFileService(options: FileServiceOptions = {}): CapabilityHandlers {
  const guard = createRootGuard(options.roots ?? [process.cwd()], {
    excluded: [...(options.excludedRoots ?? []), ...(options.home === undefined ? [] : [options.home])],
  });
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  return {
    async resourceAcquirer(request) {
      const encoding = encodingParam(request.params.encoding);
      const path = await guard.resolve(request.location);
      const bytes = await readCapped(path, request.location, maxFileBytes);
      return { content: [encodeFileContent(path, bytes, encoding).content] };
    },
    healthProbe() {
      return { status: RuntimeStatus.STARTED };
    },
    ...(options.home === undefined ? {} : { provisioner: createFileProvisioner({ home: options.home }) }),
  };
}
