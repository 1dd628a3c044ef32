import { api, eventually } from "../../support/processes.js";

/** Waits until a service named `name` is healthy, asking with `headers` (a token, where tokens are required). */
export function serviceHealthyWith(
  routerUrl: string,
  name: string,
  headers: Record<string, string>,
): Promise<true> {
  return eventually(
    async () => {
      const services = await api<{ health: string; target: { serviceName: string } }[]>(
        routerUrl,
        "GET",
        "/api/v1/capabilities",
        undefined,
        headers,
      );
      return services.some((s) => s.target.serviceName === name && s.health === "healthy") ? true : undefined;
    },
    20_000,
    `service '${name}' healthy`,
  );
}
