import type { A2aEndpoint, A2aEndpointOptions } from "./a2a-endpoint.js";

/**
 * The A2A front, loaded with the A2A SDK on the first A2A request (a card or a call): most routers never get
 * one, and an idle router need not hold that stack in memory. Its task sweep starts when it loads, which is
 * when this replica may first create tasks.
 */
export function lazyA2aEndpoint(options: A2aEndpointOptions): A2aEndpoint {
  let loading: Promise<A2aEndpoint> | undefined;
  let closed = false;
  return {
    async handle(req, res, namespace, kind, principal) {
      loading ??= import("./a2a-endpoint.js").then(({ createA2aEndpoint }) => {
        const endpoint = createA2aEndpoint(options);
        // Closed while it loaded: nothing may keep running.
        if (closed) endpoint.close();
        return endpoint;
      });
      return (await loading).handle(req, res, namespace, kind, principal);
    },
    close() {
      closed = true;
      void loading?.then((endpoint) => endpoint.close()).catch(() => undefined);
    },
  };
}
