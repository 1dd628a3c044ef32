import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, realpath, rm, writeFile } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Code, type HandlerContext, TrestleError } from "@trestle/core";
import { PayloadType, type ProvisionRequest } from "@trestle/proto";
import type { ProvisionReplyInit } from "@trestle/wanaku";

/** A property the service declares for the tools or resources it provisions (Wanaku's `PropertySchema`). */
export interface ProvisionedPropertySchema {
  type: string;
  description: string;
  required: boolean;
}

/** Options for {@link createFileProvisioner}. */
export interface FileProvisionerOptions {
  /** The service's home directory; provisioned files go there (created if missing, mode 0700). */
  home: string;
  /** Properties to declare in every reply, by name. */
  properties?: Record<string, ProvisionedPropertySchema>;
}

/** A `provisioner` handler, as `createCapabilityServer` takes it. */
export type ProvisionerHandler = (
  request: ProvisionRequest,
  context: HandlerContext,
) => Promise<ProvisionReplyInit>;

/**
 * A file name prefix for a tool or resource name: safe characters kept, anything else (path separators, dots
 * that could climb out of the home) replaced. The prefix only helps a person find a file; what makes a file
 * name unique is the provisioning id after it.
 */
function fileStem(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * The path a `file:` URI names when it is a file under `root` (lexically, and again after following every
 * symbolic link), else a `PermissionDenied` error. The messages name neither the URI nor the path: a URI may
 * come from someone probing the service's disk.
 */
async function pathUnderRoot(uri: string, root: string): Promise<string> {
  let path: string;
  try {
    path = resolve(fileURLToPath(uri));
  } catch (error) {
    throw new TrestleError("A provisioned URI must be a file:// URI", Code.InvalidArgument, { cause: error });
  }
  const realRoot = await realpath(root).catch(() => resolve(root));
  if (!within(resolve(root), path) && !within(realRoot, path)) {
    throw new TrestleError(
      "A provisioned URI must name a file under the provisioning root",
      Code.PermissionDenied,
    );
  }
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new TrestleError("The provisioned file does not exist", Code.NotFound, { cause: error });
    }
    throw new TrestleError("The provisioned file could not be resolved", Code.Internal, { cause: error });
  }
  if (!within(realRoot, real)) {
    throw new TrestleError(
      "A provisioned URI must name a file under the provisioning root",
      Code.PermissionDenied,
    );
  }
  return real;
}

/**
 * A provisioner that stores each tool's or resource's configuration and secrets as new files in the service
 * home — `<name>.<provisioning id>.configuration.properties` (mode 0644) and
 * `<name>.<provisioning id>.secrets.properties` (mode 0600), with a fresh random id per `Provision` call — and
 * answers with their `file://` URIs and the declared properties.
 *
 * Each call writes new files, created exclusively (`wx`): provisioning an entry never replaces another entry's
 * files, whatever its name (two tools of the same name in two namespaces, or a request the router later
 * refuses, each get their own). The request is checked before anything is written. A payload of type
 * REFERENCE is already a URI and is answered as is, except that a `file:` reference must name an existing file
 * under the home. Payloads are never logged nor put in an error message.
 *
 * Files of an entry removed from the catalog stay in the home (the contract has no call to remove them).
 *
 * @example
 * ```ts
 * createCapabilityServer({ provisioner: createFileProvisioner({ home: "/var/lib/weather" }), toolInvoker });
 * ```
 */
export function createFileProvisioner(options: FileProvisionerOptions): ProvisionerHandler {
  const home = resolve(options.home);
  const properties = options.properties ?? {};

  type Payload = { type: PayloadType; name: string; payload: string } | undefined;

  async function checkReference(payload: Payload): Promise<void> {
    if (payload?.type !== PayloadType.REFERENCE || !payload.payload.startsWith("file:")) return;
    await pathUnderRoot(payload.payload, home);
  }

  return async (request) => {
    const name = request.configuration?.name || request.secret?.name || "";
    if (name === "") {
      throw new TrestleError("The provision request names no tool or resource", Code.InvalidArgument);
    }
    await checkReference(request.configuration);
    await checkReference(request.secret);
    const id = randomUUID();
    const created: string[] = [];
    async function store(payload: Payload, kind: "configuration" | "secrets"): Promise<string> {
      if (!payload) return "";
      if (payload.type === PayloadType.REFERENCE) return payload.payload;
      const path = join(home, `${fileStem(payload.name || name)}.${id}.${kind}.properties`);
      // Exclusive create with the final mode: never an existing file (nor a link planted in its place)
      // replaced, never a moment with loose permissions. Nobody reads it before its URI is answered.
      created.push(path);
      await writeFile(path, payload.payload, { mode: kind === "secrets" ? 0o600 : 0o644, flag: "wx" });
      return pathToFileURL(path).href;
    }
    try {
      await mkdir(home, { recursive: true, mode: 0o700 });
      const configurationUri = await store(request.configuration, "configuration");
      const secretUri = await store(request.secret, "secrets");
      return { configurationUri, secretUri, properties };
    } catch (error) {
      // A half-provisioned entry is no entry: the files of this call go, no other file is touched.
      await Promise.all(created.map((path) => rm(path, { force: true }).catch(() => undefined)));
      const reason = (error as NodeJS.ErrnoException).code ?? "I/O error";
      throw new TrestleError(
        `Could not store the provisioned files in the service home (${reason})`,
        Code.Internal,
        {
          cause: error,
        },
      );
    }
  };
}

/** Options for {@link readProvisionedText} and {@link readProvisionedConfiguration}. */
export interface ReadProvisionedOptions {
  /**
   * The provisioning root (the provisioner's `home`): a URI that names anything outside it — directly,
   * through `..`, or through a symbolic link — is refused with `PermissionDenied`. Give it whenever the URI
   * comes from a request: a catalog entry's `configurationURI`/`secretsURI` is written by whoever may edit the
   * catalog, and without a root it could name any file the service can read.
   */
  root?: string;
}

/**
 * Reads back the text a provisioner stored, given the URI it returned (`file://` only). An empty URI (nothing
 * was provisioned) reads as "". With `options.root`, only a regular file under that root is read.
 *
 * @throws TrestleError `InvalidArgument` for a URI that is not `file:`, `NotFound` when the file is missing,
 *   `PermissionDenied` for a file outside `options.root` (or a link out of it).
 */
export async function readProvisionedText(
  uri: string,
  options: ReadProvisionedOptions = {},
): Promise<string> {
  if (uri === "") return "";
  let path: string;
  if (options.root !== undefined) path = await pathUnderRoot(uri, resolve(options.root));
  else {
    try {
      path = fileURLToPath(uri);
    } catch (error) {
      throw new TrestleError("A provisioned URI must be a file:// URI", Code.InvalidArgument, {
        cause: error,
      });
    }
  }
  try {
    // Under a root, `path` is the checked real path: O_NOFOLLOW keeps it from having become a link since.
    const noFollow = options.root === undefined ? 0 : constants.O_NOFOLLOW;
    const handle = await open(path, constants.O_RDONLY | noFollow | constants.O_NONBLOCK);
    try {
      if (!(await handle.stat()).isFile()) {
        throw new TrestleError("The provisioned URI does not name a regular file", Code.InvalidArgument);
      }
      return await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof TrestleError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new TrestleError("The provisioned file does not exist", Code.NotFound, { cause: error });
    }
    if (code === "ELOOP") {
      throw new TrestleError("A provisioned URI must not name a symbolic link", Code.PermissionDenied, {
        cause: error,
      });
    }
    throw new TrestleError("The provisioned file could not be read", Code.Internal, { cause: error });
  }
}

/**
 * Parses `key=value` lines: blank lines and lines starting with `#` or `!` are skipped, key and value are
 * trimmed, a value may contain `=`, and a line without `=` is a key with an empty value.
 */
export function parseProperties(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith("!")) continue;
    const at = trimmed.indexOf("=");
    if (at === -1) result[trimmed] = "";
    else result[trimmed.slice(0, at).trim()] = trimmed.slice(at + 1).trim();
  }
  return result;
}

/**
 * Reads a provisioned configuration (or secrets) file as `key=value` pairs, given the URI its provisioner
 * returned. See {@link readProvisionedText} for what it throws.
 */
export async function readProvisionedConfiguration(
  uri: string,
  options: ReadProvisionedOptions = {},
): Promise<Record<string, string>> {
  return parseProperties(await readProvisionedText(uri, options));
}
