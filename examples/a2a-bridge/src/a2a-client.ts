/**
 * An A2A client (`@a2a-js/sdk`) calling the router as an agent: the router's card (the default namespace's, at the
 * router's own `/.well-known/agent-card.json`) lists its tools as skills; a message with a data part
 * `{tool, arguments}` calls one, and the reply is a task whose artifact holds the tool's result.
 */
import { Role, type Task } from "@a2a-js/sdk";
import { ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";

/** The skills the router's agent offers, by id (the tools' names). */
export async function routerSkills(routerUrl: string): Promise<string[]> {
  const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
    routerUrl,
  );
  return (await client.getAgentCard()).skills.map((s) => s.id);
}

/** Calls `tool` of the router with `args` over A2A; resolves with the task's state and its artifact's text. */
export async function callToolOverA2a(
  routerUrl: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ state: string; text: string }> {
  const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
    routerUrl,
  );
  const reply = (await client.sendMessage({
    tenant: "",
    message: {
      messageId: crypto.randomUUID(),
      contextId: "",
      taskId: "",
      role: Role.ROLE_USER,
      parts: [
        {
          content: { $case: "data", value: { tool, arguments: args } },
          metadata: undefined,
          filename: "",
          mediaType: "application/json",
        },
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  })) as Task;
  const text = reply.artifacts
    .flatMap((a) => a.parts)
    .flatMap((p) => (p.content?.$case === "text" ? [p.content.value] : []))
    .join("");
  return { state: String(reply.status?.state), text };
}
