import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Two connected Unix sockets (the router's end and the program's end), and a way to clean up. */
export async function socketPair(): Promise<{ router: Socket; program: Socket; dispose(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "tool-channel-"));
  const path = join(dir, "channel.sock");
  const server = createServer();
  const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const program = createConnection(path);
  const router = await accepted;
  server.close();
  return {
    router,
    program,
    dispose: () => {
      router.destroy();
      program.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Collects the JSON lines a socket receives. */
export function lines(socket: Socket): { received: unknown[]; next(count: number): Promise<unknown[]> } {
  const received: unknown[] = [];
  let buffer = "";
  const waiters: (() => void)[] = [];
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      received.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    received,
    next: async (count) => {
      while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return received.slice(0, count);
    },
  };
}
