import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Code, TrestleError } from "@trestle/core";
import { RuntimeStatus, ToolInvoker } from "@trestle/proto";
import { startFakeRouter } from "@trestle/test-support";
import { expect, it } from "vitest";
import {
  createCapabilityServer,
  createFileProvisioner,
  createRegistrationClient,
  stopOnSignals,
} from "../src/index.js";

it("runs the README's example service: it serves, registers, and stops on a signal", async () => {
  const router = await startFakeRouter();
  const home = mkdtempSync(join(tmpdir(), "trestle-greeter-"));
  const env = { TRESTLE_URL: router.url, TRESTLE_TOKEN: undefined as string | undefined };
  try {
    // --- the README example, with port 0, a temporary home and SIGUSR2 for SIGTERM ---
    const server = createCapabilityServer({
      port: 0,
      provisioner: createFileProvisioner({ home }),
      toolInvoker(request) {
        const name = request.arguments.name;
        if (!name) throw new TrestleError("Missing required parameter(s): name", Code.InvalidArgument);
        return { content: [`Hello, ${name}!`] };
      },
      healthProbe: () => ({ status: RuntimeStatus.STARTED }),
    });
    const { host, port } = await server.listen();
    const registration = createRegistrationClient({
      routerUrl: env.TRESTLE_URL ?? "http://localhost:8080",
      token: env.TRESTLE_TOKEN,
      idFile: join(home, "service.id"),
      target: { serviceName: "greeter", host, port, serviceType: "tool-invoker", protocol: "connect" },
    });
    registration.start();
    stopOnSignals(
      async () => {
        await registration.stop();
        await server.close();
      },
      { signals: ["SIGUSR2"] },
    );
    // --- end of the example ---

    const { id } = await registration.ready();
    expect(router.services.get(id)).toMatchObject({ serviceName: "greeter", port });
    const client = createClient(
      ToolInvoker,
      createConnectTransport({ baseUrl: `http://${host}:${port}`, httpVersion: "1.1" }),
    );
    expect((await client.invokeTool({ arguments: { name: "Ada" } })).content).toEqual(["Hello, Ada!"]);
    await expect(client.invokeTool({})).rejects.toThrow(/Missing required parameter\(s\): name/);

    process.emit("SIGUSR2", "SIGUSR2");
    const end = Date.now() + 5_000;
    while (router.services.size > 0 && Date.now() < end)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(router.services.size).toBe(0);
    expect(router.requests.at(-1)?.method).toBe("DELETE");
  } finally {
    await router.close();
    rmSync(home, { recursive: true, force: true });
  }
});
