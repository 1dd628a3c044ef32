import { Agent } from "node:http";
import { createMcpHttpClient } from "../mcp-http-client.js";
import { readRss } from "../proc-stats.js";

/** Memory of a server holding idle stateful sessions. */
export interface IdleSessionsMeasurement {
  server: string;
  sessions: number;
  /** Each session holds its GET stream open, as the SDK client does. */
  withStreams: boolean;
  /** RSS after a warm-up of a few sessions, before the measured ones, bytes. */
  rssBeforeBytes: number;
  /** RSS with every session open and idle, bytes. */
  rssAfterBytes: number;
  /** (after − before) / sessions. */
  bytesPerSession: number;
  /** Time to open them all (16 at a time), ms. */
  openMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The process's RSS once it has settled: two readings 500 ms apart within 1 MiB of each other, or the last reading
 * after `maxMs` (an embedded PGlite store grows and shrinks for a while after start).
 */
async function settledRss(pid: number, maxMs: number): Promise<number> {
  const deadline = Date.now() + maxMs;
  let last = readRss(pid) ?? Number.NaN;
  for (;;) {
    await sleep(500);
    const now = readRss(pid) ?? Number.NaN;
    if (Math.abs(now - last) < 2 ** 20 || Date.now() > deadline) return now;
    last = now;
  }
}

async function openSessions(url: string, count: number, agent: Agent): Promise<Array<() => void>> {
  const closers: Array<() => void> = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const client = createMcpHttpClient({ url, agent });
      await client.initialize();
      const stream = await client.openStream(() => undefined);
      closers.push(() => stream.close());
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return closers;
}

/**
 * Opens `count` stateful sessions on an MCP endpoint (initialize, notifications/initialized, GET stream held
 * open), leaves them idle, and reads the server's settled RSS before and after.
 */
export async function measureIdleSessions(
  server: string,
  url: string,
  pid: number,
  count: number,
): Promise<IdleSessionsMeasurement> {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const warm = await openSessions(url, 20, agent);
  const rssBeforeBytes = await settledRss(pid, 15_000);
  const start = performance.now();
  const closers = await openSessions(url, count, agent);
  const openMs = performance.now() - start;
  await sleep(1_000);
  const rssAfterBytes = await settledRss(pid, 10_000);
  for (const close of [...warm, ...closers]) close();
  agent.destroy();
  return {
    server,
    sessions: count,
    withStreams: true,
    rssBeforeBytes,
    rssAfterBytes,
    bytesPerSession: (rssAfterBytes - rssBeforeBytes) / count,
    openMs,
  };
}
