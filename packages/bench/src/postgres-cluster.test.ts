import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { startPostgres, stopAllPostgresSync } from "./postgres-cluster.js";

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

describe("startPostgres", () => {
  it("leaves no server behind when the harness stops on an interruption", async () => {
    const first = await startPostgres();
    const second = await startPostgres();
    const ports = [first.url, second.url].map((url) => Number(new URL(url).port));
    for (const port of ports) expect(await accepts(port)).toBe(true);
    // The harness's exit path on SIGINT, SIGTERM or a failure: pg_ctl detaches the server from it.
    stopAllPostgresSync();
    for (const port of ports) expect(await accepts(port)).toBe(false);
    // Stopped once: the clusters' own stop is then a no-op that does not throw.
    await first.stop();
    await second.stop();
  }, 120_000);
});
