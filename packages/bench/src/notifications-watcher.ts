import { get } from "node:http";
import { createSseParser } from "./sse-parser.js";

/** A reader of a router's tool-call notifications (an operator's console left open) that counts the events it reads. */
export interface NotificationsWatcher {
  readonly events: number;
  stop(): void;
}

/**
 * Opens `/api/v2/tool-calls/notifications` on the router serving MCP at `mcpUrl`; resolves once its headers arrived.
 */
export function watchToolCallNotifications(mcpUrl: string): Promise<NotificationsWatcher> {
  const url = new URL("/api/v2/tool-calls/notifications", mcpUrl);
  return new Promise((resolve, reject) => {
    let events = 0;
    const parser = createSseParser();
    const req = get(url, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`the notifications stream answered HTTP ${res.statusCode}`));
        return;
      }
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        events += parser.push(chunk).length;
      });
      // Ended by `stop`: the reset it causes is expected.
      res.on("error", () => undefined);
      resolve({
        get events() {
          return events;
        },
        stop: () => req.destroy(),
      });
    });
    req.on("error", reject);
  });
}
