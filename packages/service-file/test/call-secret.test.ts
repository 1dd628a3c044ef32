import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CAPABILITY_SECRET_METADATA_KEY } from "@trestle/capability";
import type { ServiceTarget } from "@trestle/core";
import { createConnectTransport } from "@trestle/transport-connect";
import { afterAll, describe, expect, it } from "vitest";
import { parseFileCommandLine } from "../src/cli-options.js";
import { startFileService } from "../src/start-file-service.js";

const SECRET = "file-call-secret-for-tests";
let home: string | undefined;

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

describe("trestle-file's call secret", () => {
  it("is read from TRESTLE_CAPABILITY_SECRET, never from the command line", () => {
    const options = parseFileCommandLine([], { TRESTLE_CAPABILITY_SECRET: SECRET });
    expect(options).toMatchObject({ callSecret: SECRET, host: "127.0.0.1" });
    expect(parseFileCommandLine([], {})).not.toHaveProperty("callSecret");
    expect(() => parseFileCommandLine(["--call-secret", SECRET], {})).toThrow();
  });

  it("makes the service refuse a caller without it, on loopback by default", async () => {
    home = await mkdtemp(join(tmpdir(), "trestle-file-secret-"));
    const service = await startFileService({ callSecret: SECRET, home, port: 0 });
    const transport = createConnectTransport();
    try {
      expect(service.host).toBe("127.0.0.1");
      const target: ServiceTarget = {
        id: "s",
        serviceName: "file",
        host: service.host,
        port: service.port,
        serviceType: "tool-invoker",
      };
      expect((await transport.probeHealth(target)).state).not.toBe("healthy");
      const withSecret = { metadata: { [CAPABILITY_SECRET_METADATA_KEY]: SECRET } };
      expect((await transport.probeHealth(target, withSecret)).state).toBe("healthy");
    } finally {
      await transport.close();
      await service.close();
    }
  });
});
