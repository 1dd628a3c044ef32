import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isCodeModePath } from "../http/code-mode-endpoint.js";
import { sendError } from "../http/json-api.js";

/** A listener of this process alone for code mode's callbacks. */
export interface CodeModeListener {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  close(): void;
}

/**
 * Listens on a loopback port of this process's own (`exclusive`: not shared with the other workers of
 * `trestle serve --workers N`, whose shared port hands each connection to any worker) for engines' tool calls: a
 * run's capability lives only in the worker that started the run, so its calls must come back to that worker.
 * It serves the code-mode endpoint and nothing else.
 */
export async function listenForCodeMode(
  serve: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>,
  onError: (error: unknown) => void,
): Promise<CodeModeListener> {
  const server = createServer({ headersTimeout: 30_000, requestTimeout: 0 }, (req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (!isCodeModePath(path)) {
      sendError(res, 404, `Nothing at ${path}`);
      return;
    }
    serve(req, res, path).catch((error: unknown) => {
      onError(error);
      if (!res.headersSent) sendError(res, 500, "The router failed to handle the request");
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}
