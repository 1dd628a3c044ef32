import { describe, expect, it } from "vitest";
import openapi from "../../../server/openapi.json";
import { API_PATHS, ApiError, createApiClient, fillPath } from "./api-client";

interface Recorded {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A `fetch` that records each request and answers with `reply(request)`. */
function recordingFetch(reply: (request: Recorded) => Response) {
  const requests: Recorded[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const request: Recorded = {
      url: String(input),
      method: init.method ?? "GET",
      headers: { ...(init.headers as Record<string, string>) },
      body: init.body as string | undefined,
    };
    requests.push(request);
    return reply(request);
  }) as typeof fetch;
  return { requests, fetchImpl };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const TOKEN = "a-secret-admin-token-0123456789";

describe("the admin UI's API client", () => {
  it("sends the token in the Authorization header only, never in the URL", async () => {
    const { requests, fetchImpl } = recordingFetch(() => json(200, { error: null, data: [] }));
    const api = createApiClient({ token: TOKEN, fetch: fetchImpl });
    await api.listTools("dev");
    await api.addTool({ name: "weather", type: "http", uri: "https://api.example/weather" });
    expect(requests).toHaveLength(2);
    for (const r of requests) {
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(r.url).not.toContain(TOKEN);
    }
    expect(requests[0]?.url).toBe("/api/v1/tools?namespace=dev");
    expect(requests[1]).toMatchObject({ method: "POST", url: "/api/v1/tools" });
    expect(requests[1]?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(requests[1]?.body ?? "")).toEqual({
      name: "weather",
      type: "http",
      uri: "https://api.example/weather",
    });
  });

  it("answers the envelope's data", async () => {
    const { fetchImpl } = recordingFetch(() =>
      json(200, { error: null, data: [{ name: "" }, { name: "dev" }] }),
    );
    const api = createApiClient({ token: TOKEN, fetch: fetchImpl });
    expect(await api.listNamespaces()).toEqual([{ name: "" }, { name: "dev" }]);
  });

  it("turns a refusal into an ApiError with the router's message and status", async () => {
    const { fetchImpl } = recordingFetch(() =>
      json(400, { error: { message: "Invalid tool: uri: must be a URI with a scheme" }, data: null }),
    );
    const api = createApiClient({ token: TOKEN, fetch: fetchImpl });
    const error = await api.addTool({ name: "x", type: "http", uri: "nope" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toBe("Invalid tool: uri: must be a URI with a scheme");
    expect((error as ApiError).unauthorized).toBe(false);
  });

  it("marks a refused token as unauthorized, and an unreachable router as status 0", async () => {
    const refused = createApiClient({
      token: TOKEN,
      fetch: recordingFetch(() =>
        json(401, { error: { message: "The bearer token is not valid" }, data: null }),
      ).fetchImpl,
    });
    const error = (await refused.listNamespaces().catch((e: unknown) => e)) as ApiError;
    expect(error.unauthorized).toBe(true);
    expect(error.message).toBe("The bearer token is not valid");

    const down = createApiClient({
      token: TOKEN,
      fetch: (async () => {
        throw new TypeError("Failed to fetch");
      }) as typeof fetch,
    });
    const unreachable = (await down.listNamespaces().catch((e: unknown) => e)) as ApiError;
    expect(unreachable.status).toBe(0);
    expect(unreachable.message).toContain("Cannot reach the router");
  });

  it("encodes path parameters as one segment each", () => {
    expect(fillPath(API_PATHS.forwardRefresh, { name: "a/../b" })).toBe(
      "/api/v1/forwards/a%2F..%2Fb/refresh",
    );
    expect(() => fillPath(API_PATHS.codeExecution, { engine: "trestle" })).toThrow(/language/);
  });

  it("refreshes a forward in its namespace and starts code with a POST", async () => {
    const { requests, fetchImpl } = recordingFetch(() => json(200, { error: null, data: { taskId: "t1" } }));
    const api = createApiClient({ token: TOKEN, fetch: fetchImpl });
    await api.refreshForward("everything", "dev");
    await api.startCode("trestle", "javascript", { code: "console.log(1)", timeout: 5000 });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST /api/v1/forwards/everything/refresh?namespace=dev",
      "POST /api/v2/code-execution-engine/trestle/javascript",
    ]);
    expect(JSON.parse(requests[1]?.body ?? "")).toEqual({ code: "console.log(1)", timeout: 5000 });
  });

  it("reads the live tail over fetch, resuming after the last event id, and says when it is open", async () => {
    const started = {
      eventId: "e1",
      type: "started",
      toolName: "echo",
      toolType: "svc",
      kind: "tool",
      timestamp: 1,
    };
    const sse = `id: e1:started\nevent: started\ndata: ${JSON.stringify(started)}\n\n`;
    const { requests, fetchImpl } = recordingFetch(
      () => new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } }),
    );
    const api = createApiClient({ token: TOKEN, fetch: fetchImpl });
    let opened = false;
    const seen = [];
    for await (const message of api.toolCalls(new AbortController().signal, {
      lastEventId: "e0:completed",
      onOpen: () => {
        opened = true;
      },
    })) {
      seen.push(message);
    }
    expect(opened).toBe(true);
    expect(requests[0]?.headers["last-event-id"]).toBe("e0:completed");
    expect(requests[0]?.headers.accept).toBe("text/event-stream");
    expect(seen).toEqual([{ id: "e1:started", event: started }]);
  });

  it("calls only operations the router's OpenAPI document has", () => {
    const documented = (openapi as { paths: Record<string, Record<string, unknown>> }).paths;
    const used: [string, string][] = [
      [API_PATHS.namespaces, "get"],
      [API_PATHS.tools, "get"],
      [API_PATHS.tools, "post"],
      [API_PATHS.resources, "get"],
      [API_PATHS.prompts, "get"],
      [API_PATHS.services, "get"],
      [API_PATHS.circuits, "get"],
      [API_PATHS.forwards, "get"],
      [API_PATHS.forwardRefresh, "post"],
      [API_PATHS.toolCallHistory, "get"],
      [API_PATHS.toolCallNotifications, "get"],
      [API_PATHS.codeExecution, "post"],
      [API_PATHS.codeExecutionStream, "get"],
    ];
    expect(new Set(used.map(([path]) => path))).toEqual(new Set(Object.values(API_PATHS)));
    const missing = used.filter(([path, method]) => !documented[path]?.[method]);
    expect(missing).toEqual([]);
  });
});
