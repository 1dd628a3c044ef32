import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { create } from "@bufbuild/protobuf";
import { Code, type HandlerContext, TrestleError } from "@trestle/core";
import { PayloadType, ProvisionRequestSchema } from "@trestle/proto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createFileProvisioner,
  parseProperties,
  readProvisionedConfiguration,
  readProvisionedText,
} from "../src/index.js";

const context: HandlerContext = { signal: new AbortController().signal, requestId: "", metadata: {} };

function request(name: string, configuration: string, secret: string, type = PayloadType.BUILTIN) {
  return create(ProvisionRequestSchema, {
    configuration: { type, name, payload: configuration },
    secret: { type, name, payload: secret },
  });
}

describe("file provisioner", () => {
  let home: string;

  beforeEach(() => {
    home = join(mkdtempSync(join(tmpdir(), "trestle-home-")), "service");
  });

  afterEach(() => {
    rmSync(join(home, ".."), { recursive: true, force: true });
  });

  it("stores configuration and secrets as files in the home and answers their file:// URIs and properties", async () => {
    const properties = { region: { type: "string", description: "Where to run", required: true } };
    const provision = createFileProvisioner({ home, properties });
    const reply = await provision(
      request("weather", "units=metric\nlang = de\n", "apiKey=s3cr3t=="),
      context,
    );
    expect(reply.properties).toEqual(properties);
    expect(reply.configurationUri).toMatch(/^file:\/\//);
    expect(reply.secretUri).toMatch(/^file:\/\//);
    expect(await readProvisionedConfiguration(reply.configurationUri ?? "")).toEqual({
      units: "metric",
      lang: "de",
    });
    expect(await readProvisionedConfiguration(reply.secretUri ?? "")).toEqual({ apiKey: "s3cr3t==" });
    expect(await readProvisionedText(reply.secretUri ?? "")).toBe("apiKey=s3cr3t==");
    const secretsPath = fileURLToPath(reply.secretUri ?? "");
    expect(secretsPath.startsWith(home)).toBe(true);
    expect(statSync(secretsPath).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
  });

  it("writes new files for each provisioning: the same name again never replaces the first entry's files", async () => {
    const provision = createFileProvisioner({ home });
    const first = await provision(request("weather", "units=metric", "k=1"), context);
    const second = await provision(request("weather", "units=imperial", "k=2"), context);
    expect(second.secretUri).not.toBe(first.secretUri);
    expect(second.configurationUri).not.toBe(first.configurationUri);
    expect(await readProvisionedConfiguration(first.secretUri ?? "")).toEqual({ k: "1" });
    expect(await readProvisionedConfiguration(first.configurationUri ?? "")).toEqual({ units: "metric" });
    expect(await readProvisionedConfiguration(second.configurationUri ?? "")).toEqual({ units: "imperial" });
    const files = readdirSync(home).sort();
    expect(files).toHaveLength(4);
    for (const file of files)
      expect(file).toMatch(/^weather\.[0-9a-f-]{36}\.(configuration|secrets)\.properties$/);
  });

  it("keeps every file inside the home whatever the name, and different names in different files", async () => {
    const provision = createFileProvisioner({ home });
    const climbing = await provision(request("../../etc/passwd", "a=1", "b=2"), context);
    const similar = await provision(request("__.._etc_passwd", "a=3", "b=4"), context);
    for (const uri of [climbing.configurationUri, climbing.secretUri, similar.configurationUri]) {
      expect(fileURLToPath(uri ?? "").startsWith(`${home}/`)).toBe(true);
    }
    expect(climbing.configurationUri).not.toBe(similar.configurationUri);
    expect(await readProvisionedConfiguration(climbing.configurationUri ?? "")).toEqual({ a: "1" });
  });

  it("answers a REFERENCE payload with the reference itself, writing nothing", async () => {
    const provision = createFileProvisioner({ home });
    mkdirSync(home, { recursive: true });
    const inside = join(home, "shared.properties");
    writeFileSync(inside, "units=metric");
    const reply = await provision(
      request("weather", pathToFileURL(inside).href, "vault://weather", PayloadType.REFERENCE),
      context,
    );
    expect(reply.configurationUri).toBe(pathToFileURL(inside).href);
    expect(reply.secretUri).toBe("vault://weather");
    expect(readdirSync(home)).toEqual(["shared.properties"]);
  });

  it("refuses a file REFERENCE outside the home (directly, through '..' or a link), writing nothing", async () => {
    const provision = createFileProvisioner({ home });
    mkdirSync(home, { recursive: true });
    const outside = join(home, "..", "outside.properties");
    writeFileSync(outside, "stolen=1");
    symlinkSync(outside, join(home, "link.properties"));
    for (const uri of [
      "file:///etc/passwd",
      `file://${home}/../outside.properties`,
      pathToFileURL(join(home, "link.properties")).href,
    ]) {
      await expect(
        provision(request("weather", uri, "", PayloadType.REFERENCE), context),
      ).rejects.toMatchObject({ code: Code.PermissionDenied });
    }
    expect(readdirSync(home)).toEqual(["link.properties"]);
  });

  it("answers an empty URI for a payload that was not sent", async () => {
    const provision = createFileProvisioner({ home });
    const reply = await provision(
      create(ProvisionRequestSchema, {
        configuration: { type: PayloadType.BUILTIN, name: "t", payload: "a=1" },
      }),
      context,
    );
    expect(reply.secretUri).toBe("");
    expect(await readProvisionedConfiguration(reply.secretUri ?? "")).toEqual({});
  });

  it("refuses a request that names nothing, and reports a home it cannot write without the payload", async () => {
    const provision = createFileProvisioner({ home });
    await expect(provision(request("", "a=1", "b=2"), context)).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    // A home below a regular file can never be created.
    const aFile = join(home, "..", "a-file");
    writeFileSync(aFile, "");
    const blocked = createFileProvisioner({ home: join(aFile, "home") });
    const error = await blocked(request("x", "c=1", "topsecret"), context).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrestleError);
    expect((error as TrestleError).code).toBe(Code.Internal);
    expect((error as TrestleError).message).not.toContain("topsecret");
  });

  it("reads back only file:// URIs and says when the file is gone", async () => {
    await expect(readProvisionedText("https://example.invalid/x")).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(readProvisionedText(`file://${home}/missing.properties`)).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });

  it("reads under a root only files inside it: not outside, not through '..', not through a link", async () => {
    mkdirSync(home, { recursive: true });
    const outside = join(home, "..", "outside.properties");
    writeFileSync(outside, "stolen=1");
    writeFileSync(join(home, "mine.properties"), "mine=1");
    symlinkSync(outside, join(home, "link.properties"));
    expect(
      await readProvisionedConfiguration(pathToFileURL(join(home, "mine.properties")).href, { root: home }),
    ).toEqual({ mine: "1" });
    for (const uri of [
      pathToFileURL(outside).href,
      `file://${home}/../outside.properties`,
      pathToFileURL(join(home, "link.properties")).href,
      "file:///etc/passwd",
    ]) {
      const error = await readProvisionedText(uri, { root: home }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: Code.PermissionDenied });
      expect((error as Error).message).not.toContain("outside");
    }
    await expect(readProvisionedText("http://x/y", { root: home })).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    await expect(
      readProvisionedText(pathToFileURL(join(home, "gone.properties")).href, { root: home }),
    ).rejects.toMatchObject({ code: Code.NotFound });
    expect(await readProvisionedText("", { root: home })).toBe("");
  });

  it("parses key=value lines, skipping comments and blank lines", () => {
    expect(parseProperties("# comment\n! also\n\n a = 1 \nb=x=y\r\nflag\n")).toEqual({
      a: "1",
      b: "x=y",
      flag: "",
    });
  });
});
