import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { create } from "@bufbuild/protobuf";
import { createCapabilityServer } from "@trestle/capability";
import { Code, isTrestleError, type ServiceTarget, TrestleError } from "@trestle/core";
import { ResourceRequestSchema } from "@trestle/proto";
import { createConnectWanakuTransport } from "@trestle/transport-connect";

/** A transport that speaks the Wanaku messages as they are: these tests check the service's own wire. */
type WanakuTransport = ReturnType<typeof createConnectWanakuTransport>;

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileService } from "../src/index.js";

let base: string;
let root: string;
let secondRoot: string;
let outside: string;
let image: Buffer;
let transport: WanakuTransport;
let target: ServiceTarget;
let close: () => Promise<void>;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "trestle-file-test-"));
  root = join(base, "root");
  secondRoot = join(base, "second");
  outside = join(base, "outside");
  await Promise.all([mkdir(join(root, "sub"), { recursive: true }), mkdir(secondRoot), mkdir(outside)]);
  // Every byte value, and a PNG signature in front: binary by extension and by content.
  image = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    Buffer.from([...Array(256).keys()]),
    randomBytes(2048),
  ]);
  await Promise.all([
    writeFile(join(root, "hello.txt"), "héllo, wörld\n"),
    writeFile(join(root, "data.json"), '{"a":1}'),
    writeFile(join(root, "sub", "nested.md"), "# nested\n"),
    writeFile(join(root, "image.png"), image),
    writeFile(join(root, "blob.unknownext"), Buffer.from([0, 1, 2, 255])),
    writeFile(join(root, "big.txt"), "y".repeat(5000)),
    writeFile(join(secondRoot, "only-second.txt"), "from the second root"),
    writeFile(join(outside, "secret.txt"), "top secret"),
  ]);
  await symlink(join(outside, "secret.txt"), join(root, "link-out.txt"));
  await symlink(outside, join(root, "dir-link-out"));
  await symlink(join(root, "hello.txt"), join(root, "link-in.txt"));

  const server = createCapabilityServer(createFileService({ roots: [root, secondRoot], maxFileBytes: 4096 }));
  const address = await server.listen();
  target = { id: "file-test", serviceName: "file", serviceType: "resource-provider", ...address };
  transport = createConnectWanakuTransport();
  close = async () => {
    await transport.close();
    await server.close();
  };
});

afterAll(async () => {
  await close?.();
  if (base) await rm(base, { recursive: true, force: true });
});

async function read(location: string, params: Record<string, string> = {}): Promise<string[]> {
  const reply = await transport.acquireResource(
    create(ResourceRequestSchema, { location, type: "file", name: "test", params }),
    target,
  );
  return reply.content;
}

async function failure(location: string): Promise<TrestleError> {
  try {
    await read(location);
  } catch (error) {
    if (error instanceof TrestleError) return error;
    throw error;
  }
  throw new Error(`reading ${location} succeeded`);
}

describe("serving files under the roots", () => {
  it("serves a text file by relative path, absolute path and file:// URI", async () => {
    expect(await read("hello.txt")).toEqual(["héllo, wörld\n"]);
    expect(await read(join(root, "hello.txt"))).toEqual(["héllo, wörld\n"]);
    expect(await read(pathToFileURL(join(root, "sub", "nested.md")).href)).toEqual(["# nested\n"]);
    expect(await read("sub/../data.json")).toEqual(['{"a":1}']);
  });

  it("tries the roots in order for a relative path", async () => {
    expect(await read("only-second.txt")).toEqual(["from the second root"]);
  });

  it("follows a symbolic link that stays inside the roots", async () => {
    expect(await read("link-in.txt")).toEqual(["héllo, wörld\n"]);
  });

  it("round-trips binary files as Base64", async () => {
    const [png] = await read("image.png");
    expect(Buffer.from(png ?? "", "base64").equals(image)).toBe(true);
    const [blob] = await read("blob.unknownext");
    expect(Buffer.from(blob ?? "", "base64")).toEqual(Buffer.from([0, 1, 2, 255]));
  });

  it("returns Base64 for any file when asked, and refuses text for a binary file", async () => {
    const [hello] = await read("hello.txt", { encoding: "base64" });
    expect(Buffer.from(hello ?? "", "base64").toString("utf8")).toBe("héllo, wörld\n");
    const error = await read("image.png", { encoding: "text" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isTrestleError(error, Code.InvalidArgument)).toBe(true);
  });
});

describe("refusing what is outside the roots", () => {
  it.each([
    ["../outside/secret.txt"],
    ["sub/../../outside/secret.txt"],
    ["/etc/passwd"],
    ["file:///etc/passwd"],
  ])("refuses %s", async (location) => {
    const error = await failure(location);
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toContain("outside the served roots");
  });

  it("refuses an absolute path and an encoded file URI that climb out", async () => {
    for (const location of [
      join(root, "..", "outside", "secret.txt"),
      `${pathToFileURL(root).href}/%2e%2e/outside/secret.txt`,
    ]) {
      const error = await failure(location);
      expect(error.code, location).toBe(Code.PermissionDenied);
    }
  });

  it("refuses symbolic links that lead out, to a file or through a directory", async () => {
    for (const location of ["link-out.txt", "dir-link-out/secret.txt", join(root, "link-out.txt")]) {
      const error = await failure(location);
      expect(error.code, location).toBe(Code.PermissionDenied);
      expect(error.rawMessage, location).toContain("leads outside the served roots");
      expect(error.rawMessage).not.toContain("top secret");
    }
  });
});

describe("other failures", () => {
  it("answers NotFound for a missing file", async () => {
    expect((await failure("no-such-file.txt")).code).toBe(Code.NotFound);
    expect((await failure(join(root, "sub", "missing.md"))).code).toBe(Code.NotFound);
  });

  it("refuses a file over the size cap with a clear error", async () => {
    const error = await failure("big.txt");
    expect(error.code).toBe(Code.ResourceExhausted);
    expect(error.rawMessage).toBe("big.txt is 5000 bytes, over the 4096-byte limit of this service");
  });

  it("refuses a directory and an empty location", async () => {
    expect((await failure("sub")).code).toBe(Code.InvalidArgument);
    expect((await failure("")).code).toBe(Code.InvalidArgument);
  });
});
