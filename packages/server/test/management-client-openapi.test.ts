import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManagementClient, type ManagementClient } from "../src/client/management-client.js";
import { managementOperations } from "../src/client/operations.js";
import { resolveConfig } from "../src/config.js";
import { createRouter, type Router } from "../src/router.js";

/*
 * The management client checked against the router's generated OpenAPI document (the committed copy, which a
 * test of the API keeps current): every operation the client knows is in the document, and every request the
 * client really makes to a running router — its path, method and body — and every answer it gets are what the
 * document says. A client call to a path the document lacks fails here.
 */

type Operation = {
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, unknown> }>;
};
const document = JSON.parse(readFileSync(new URL("../openapi.json", import.meta.url), "utf8")) as {
  paths: Record<string, Record<string, Operation>>;
};

const ajv = new Ajv2020({ strict: false, validateSchema: false, validateFormats: false, allErrors: true });
ajv.addSchema(document, "openapi.json");

/** A JSON pointer into the document, as a `$ref` fragment. */
function pointer(...segments: string[]): string {
  return segments
    .map((s) => `/${encodeURIComponent(s.replaceAll("~", "~0").replaceAll("/", "~1"))}`)
    .join("");
}

/** Validates `value` against the schema at the pointer; resolves with the errors (none when valid). */
function violations(value: unknown, ...segments: string[]): string[] {
  const validate = ajv.compile({ $ref: `openapi.json#${pointer(...segments)}` });
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** The document's path template that `path` (a concrete path) matches, for `method`. */
function templateOf(method: string, path: string): string | undefined {
  return Object.keys(document.paths).find((template) => {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`);
    return pattern.test(path) && document.paths[template]?.[method.toLowerCase()] !== undefined;
  });
}

interface Exchange {
  method: string;
  path: string;
  requestType?: string;
  requestBody?: string;
  status: number;
  responseType: string;
  responseBody?: string;
}

describe("the management client against the generated OpenAPI document", () => {
  let router: Router;
  let client: ManagementClient;
  const exchanges: Exchange[] = [];
  /** SSE events the client yielded, with the template of the stream they came from. */
  const streamed: { template: string; data: unknown }[] = [];

  beforeAll(async () => {
    router = await createRouter(
      resolveConfig({
        env: {},
        flags: { host: "127.0.0.1", port: "0", memoryStore: true, logLevel: "silent" },
      }),
    );
    client = createManagementClient({
      baseUrl: router.url,
      fetch: async (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        const headers = new Headers(init?.headers);
        const response = await fetch(input, init);
        const responseType = response.headers.get("content-type") ?? "";
        exchanges.push({
          method: init?.method ?? "GET",
          path: url.pathname,
          ...(init?.body !== undefined ? { requestBody: String(init.body) } : {}),
          ...(headers.get("content-type") ? { requestType: headers.get("content-type") as string } : {}),
          status: response.status,
          responseType,
          ...(responseType.startsWith("text/event-stream")
            ? {}
            : { responseBody: await response.clone().text() }),
        });
        return response;
      },
    });
  }, 60_000);

  afterAll(async () => {
    await router?.close();
  });

  it("knows no operation the document lacks", () => {
    const missing = Object.entries(managementOperations)
      .filter(([, op]) => document.paths[op.path]?.[op.method.toLowerCase()] === undefined)
      .map(([name, op]) => `${name}: ${op.method} ${op.path}`);
    expect(missing).toEqual([]);
  });

  it("sends requests and gets answers that match the document, for every operation", async () => {
    const settle = (work: Promise<unknown>) => work.catch(() => undefined);
    const tool = { name: "check_tool", type: "fixture", uri: "fixture://check" };
    const resource = { name: "check_resource", type: "fixture", location: "fixture://check" };
    const prompt = {
      name: "check_prompt",
      messages: [{ role: "user" as const, content: { type: "text" as const, text: "hi" } }],
    };

    await client.namespaces.create({ name: "checks", description: "for the client check" });
    await client.namespaces.list();
    await client.namespaces.get("checks");

    await client.tools.add(tool);
    await client.tools.list({ labelFilter: "team=none" });
    await client.tools.get(tool.name);
    await client.tools.update(tool.name, { ...tool, description: "changed" });
    await settle(
      client.tools.provision({ payload: { ...tool, name: "provisioned_tool" }, secretsData: "k=v" }),
    );
    await client.tools.removeMatching("team=none");
    await client.tools.remove(tool.name);
    await settle(client.tools.get(tool.name));

    await client.resources.add(resource);
    await client.resources.list();
    await client.resources.get(resource.name);
    await client.resources.update(resource.name, { ...resource, description: "changed" });
    await settle(
      client.resources.provision({ payload: { ...resource, name: "provisioned", location: "fixture://p" } }),
    );
    await client.resources.removeMatching("team=none");
    await client.resources.remove(resource.name);

    await client.prompts.add(prompt);
    await client.prompts.list({ namespace: "" });
    await client.prompts.get(prompt.name);
    await client.prompts.update(prompt.name, { ...prompt, description: "changed" });
    await client.prompts.removeMatching("team=none");
    await client.prompts.remove(prompt.name);

    await client.namespaces.delete("checks", { cascade: true });

    await client.forwards.list({ namespace: "*" });
    await settle(client.forwards.get("absent"));
    await settle(
      client.forwards.add({
        name: "broken",
        upstream: { kind: "stdio", command: "/nonexistent/mcp-server" },
      }),
    );
    await settle(
      client.forwards.update("absent", {
        name: "absent",
        upstream: { kind: "http", url: "http://127.0.0.1:1/mcp" },
      }),
    );
    await settle(client.forwards.refresh("absent"));
    await settle(client.forwards.remove("absent"));

    const controller = new AbortController();
    const registryEvents = (async () => {
      for await (const event of client.events.registry({ signal: controller.signal })) {
        streamed.push({ template: managementOperations.registryEvents.path, data: event });
      }
    })();
    const toolCalls = (async () => {
      for await (const { event } of client.events.toolCalls({
        signal: controller.signal,
        reconnect: false,
      })) {
        streamed.push({ template: managementOperations.toolCallEvents.path, data: event });
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const service = await client.services.register({
      serviceName: "checked",
      host: "127.0.0.1",
      port: 1,
      serviceType: "tool-invoker",
    });
    const base = {
      eventId: "e1",
      toolName: "t",
      toolType: "fixture",
      kind: "tool" as const,
      timestamp: Date.now(),
    };
    router.events.emit({ ...base, type: "started", arguments: {}, headers: {} });
    router.events.emit({
      ...base,
      type: "failed",
      isError: true,
      content: [],
      duration: 2,
      errorCategory: "execution_error",
      errorMessage: "x",
    });
    await client.services.list();
    await client.services.status();
    await client.services.get(service.id);
    await client.services.health(service.id);
    await client.services.heartbeat(service.id);
    await client.events.history({ limit: 10, type: "started" });
    await client.services.deregister(service.id, "checked");
    await client.services.removeStale({ olderThanMs: 0 });
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    await Promise.all([registryEvents, toolCalls]);

    const task = await client.codeExecution.start("absent-engine", "python", {
      code: "print(1)",
      arguments: ["a"],
    });
    for await (const event of client.codeExecution.stream(task)) {
      streamed.push({ template: managementOperations.streamCodeExecution.path, data: event.data });
    }
    await client.openApiDocument();

    const problems: string[] = [];
    const exercised = new Set<string>();
    for (const exchange of exchanges) {
      const where = `${exchange.method} ${exchange.path}`;
      const template = templateOf(exchange.method, exchange.path);
      if (!template) {
        problems.push(`${where}: the document has no such operation`);
        continue;
      }
      exercised.add(`${exchange.method} ${template}`);
      const method = exchange.method.toLowerCase();
      const operation = document.paths[template]?.[method] as Operation;
      if (exchange.requestBody !== undefined) {
        const type = (exchange.requestType ?? "").split(";")[0] as string;
        if (!operation.requestBody?.content[type])
          problems.push(`${where}: the document takes no ${type} body`);
        else if (type === "application/json") {
          for (const v of violations(
            JSON.parse(exchange.requestBody),
            "paths",
            template,
            method,
            "requestBody",
            "content",
            type,
            "schema",
          )) {
            problems.push(`${where} request: ${v}`);
          }
        }
      }
      const answer = operation.responses[String(exchange.status)];
      if (!answer) {
        problems.push(`${where}: answered ${exchange.status}, which the document does not list`);
        continue;
      }
      const type = exchange.responseType.split(";")[0] as string;
      if (!answer.content?.[type]) {
        problems.push(`${where}: answered ${exchange.status} as ${type}, which the document does not say`);
      } else if (exchange.responseBody !== undefined && type === "application/json") {
        const path = [
          "paths",
          template,
          method,
          "responses",
          String(exchange.status),
          "content",
          type,
          "schema",
        ];
        for (const v of violations(JSON.parse(exchange.responseBody), ...path))
          problems.push(`${where} answer: ${v}`);
      }
    }
    for (const { template, data } of streamed) {
      for (const v of violations(
        data,
        "paths",
        template,
        "get",
        "responses",
        "200",
        "content",
        "text/event-stream",
        "schema",
      )) {
        problems.push(`event of ${template}: ${v}`);
      }
    }
    expect(problems).toEqual([]);
    // Every operation the client knows was called (and so checked) above.
    const all = Object.values(managementOperations).map((op) => `${op.method} ${op.path}`);
    expect(all.filter((op) => !exercised.has(op))).toEqual([]);
    expect(streamed.some((s) => s.template === managementOperations.toolCallEvents.path)).toBe(true);
    expect(streamed.some((s) => s.template === managementOperations.registryEvents.path)).toBe(true);
  }, 60_000);
});
