import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Code, type HandlerContext, type ProvisionReplyInit, TrestleError } from "@trestle/core";
import { PayloadType, type ProvisionRequest } from "@trestle/proto";

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
 * A file name for a tool or resource name: safe characters kept, anything else (path separators, dots that
 * could climb out of the home) replaced, and a hash of the original added when something was replaced, so that
 * two different names never share a file.
 */
function fileStem(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_-]/g, "_");
  if (safe === name && safe !== "") return safe;
  return `${safe}-${createHash("sha256").update(name).digest("hex").slice(0, 12)}`;
}

async function writeFileAtomically(path: string, text: string, mode: number): Promise<void> {
  // Written aside with its final mode, then renamed: a reader never sees half a file or loose permissions.
  const temporary = `${path}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, text, { mode, flag: "wx" });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * A provisioner that stores each tool's or resource's configuration and secrets as files in the service home —
 * `<name>.configuration.properties` (mode 0644) and `<name>.secrets.properties` (mode 0600) — and answers with
 * their `file://` URIs and the declared properties. A payload of type REFERENCE is already a URI and is
 * answered as is. Payloads are never logged nor put in an error message.
 *
 * @example
 * ```ts
 * createCapabilityServer({ provisioner: createFileProvisioner({ home: "/var/lib/weather" }), toolInvoker });
 * ```
 */
export function createFileProvisioner(options: FileProvisionerOptions): ProvisionerHandler {
  const home = resolve(options.home);
  const properties = options.properties ?? {};

  async function store(
    payload: { type: PayloadType; name: string; payload: string } | undefined,
    fallbackName: string,
    kind: "configuration" | "secrets",
  ): Promise<string> {
    if (!payload) return "";
    if (payload.type === PayloadType.REFERENCE) return payload.payload;
    const path = join(home, `${fileStem(payload.name || fallbackName)}.${kind}.properties`);
    await writeFileAtomically(path, payload.payload, kind === "secrets" ? 0o600 : 0o644);
    return pathToFileURL(path).href;
  }

  return async (request) => {
    const name = request.configuration?.name || request.secret?.name || "";
    if (name === "") {
      throw new TrestleError("The provision request names no tool or resource", Code.InvalidArgument);
    }
    try {
      await mkdir(home, { recursive: true, mode: 0o700 });
      const configurationUri = await store(request.configuration, name, "configuration");
      const secretUri = await store(request.secret, name, "secrets");
      return { configurationUri, secretUri, properties };
    } catch (error) {
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

/**
 * Reads back the text a provisioner stored, given the URI it returned (`file://` only). An empty URI (nothing
 * was provisioned) reads as "".
 *
 * @throws TrestleError `InvalidArgument` for a URI that is not `file:`, `NotFound` when the file is missing.
 */
export async function readProvisionedText(uri: string): Promise<string> {
  if (uri === "") return "";
  let path: string;
  try {
    path = fileURLToPath(uri);
  } catch (error) {
    throw new TrestleError("A provisioned URI must be a file:// URI", Code.InvalidArgument, { cause: error });
  }
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new TrestleError("The provisioned file does not exist", Code.NotFound, { cause: error });
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
export async function readProvisionedConfiguration(uri: string): Promise<Record<string, string>> {
  return parseProperties(await readProvisionedText(uri));
}
