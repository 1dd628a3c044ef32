import { Code, type ToolReference, TrestleError } from "@trestle/core";
import type { CapabilityHandlers } from "@trestle/wanaku";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEventHub, createInvokerBridge, createResourceBridge, type EventHub } from "../src/index.js";
import { createHarness, type Harness } from "./harness.js";

const AUTH = "canary-auth-7f3a9c01";
const PASSWORD = "canary-password-21bd77";
const HEADER_TOKEN = "canary-header-5e8d3b";
const PROVISION_SECRET = "canary-provision-9c1e42";
const PROVISION_KEY = "canary-provision-key-44aa";
const CANARIES = [AUTH, PASSWORD, HEADER_TOKEN, PROVISION_SECRET, PROVISION_KEY];

const SECRETS_PAYLOAD = `db.password=${PROVISION_SECRET}\napi.key: ${PROVISION_KEY}\n`;

/** Everything that left the bridge: results, returned references, errors (with causes and stacks). */
const captured: unknown[] = [];
/** Everything the capability received, to prove the canaries did travel where they belong. */
const received: string[] = [];

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const parts = [String(error), error.message, error.stack ?? "", JSON.stringify(error)];
  if (error instanceof TrestleError) parts.push(JSON.stringify(error.metadata));
  if (error.cause !== undefined) parts.push(errorText(error.cause));
  return parts.join("\n");
}

async function capture<T>(run: () => Promise<T>): Promise<void> {
  try {
    captured.push(await run());
  } catch (error) {
    captured.push(errorText(error));
  }
}

/**
 * A capability that leaks: it answers with everything it received, in its reply or in its error, by the
 * error code named in the tool uri (`leak://Internal`, `leak://Unavailable`, …; `echo://` answers).
 */
const leaky: CapabilityHandlers = {
  toolInvoker(request) {
    const everything = JSON.stringify(request);
    received.push(everything);
    const url = new URL(request.uri);
    if (url.protocol === "echo:") return { content: [everything, `token was ${HEADER_TOKEN}`] };
    if (url.hostname === "plain") throw new Error(`plain failure with ${everything}`);
    if (url.hostname === "bare")
      throw new TrestleError(`rejected credentials ${HEADER_TOKEN} and ${AUTH}`, Code.Unauthenticated);
    const code = Code[url.hostname as keyof typeof Code];
    throw new TrestleError(`failed with ${everything}`, code);
  },
  provisioner(request) {
    const everything = JSON.stringify(request);
    received.push(everything);
    if (request.configuration?.payload === "fail")
      throw new TrestleError(`cannot store ${everything}`, Code.Internal);
    if (request.configuration?.payload === "fail-line") {
      throw new TrestleError(`bad line: api.key: ${PROVISION_KEY}`, Code.InvalidArgument);
    }
    return {
      configurationUri: "vault://config/x",
      secretUri: "vault://secret/x",
      properties: {
        region: { type: "string", description: `region (secrets were ${everything})`, required: false },
      },
    };
  },
};

let harness: Harness;
let hub: EventHub;
const streamed: unknown[] = [];

beforeEach(() => {
  captured.length = 0;
  received.length = 0;
  streamed.length = 0;
  harness = createHarness();
  hub = createEventHub();
  hub.subscribe((event) => void streamed.push(event));
  harness.serve(leaky, { serviceName: "leaky", serviceType: "multi-capability" });
});

afterEach(async () => {
  await harness.close();
});

function tool(uri: string): ToolReference {
  return {
    name: "leaky-tool",
    type: "leaky",
    uri,
    inputSchema: {
      type: "object",
      properties: {
        Authorization: {
          type: "string",
          target: "header",
          scope: "service",
          value: `Bearer ${HEADER_TOKEN}`,
        },
        password: { type: "string" },
      },
    },
  };
}

const args = { city: "Oslo", password: PASSWORD, "wanaku_auth_X-Api-Token": AUTH };

describe("canary secrets never leave the bridge", () => {
  it("not in results, events or errors of tool calls, whatever the capability echoes", async () => {
    const bridge = createInvokerBridge(
      harness.depsWithEvents({
        emit(e) {
          harness.events.push(e);
          hub.emit(e);
        },
      }),
    );
    for (const uri of [
      "echo://ok",
      "leak://Internal",
      "leak://Unavailable",
      "leak://DeadlineExceeded",
      "leak://InvalidArgument",
      "leak://NotFound",
      "leak://Unimplemented",
      "leak://PermissionDenied",
      "leak://Unknown",
      "leak://plain",
      "leak://bare",
    ]) {
      await capture(() => bridge.execute(args, tool(uri), { requestId: "1" }));
    }

    const receivedText = received.join("\n");
    for (const canary of [AUTH, PASSWORD, HEADER_TOKEN]) expect(receivedText).toContain(canary);

    const leaked = JSON.stringify({ captured, events: harness.events, streamed, history: hub.history() });
    for (const canary of CANARIES) expect(leaked).not.toContain(canary);
    expect(harness.events.filter((e) => e.type === "failed")).toHaveLength(10);
    expect(streamed).toHaveLength(22);
  });

  it("not in the provisioned reference, nor in errors, and no event is emitted", async () => {
    const bridge = createInvokerBridge(harness.deps);
    const resources = createResourceBridge(harness.deps);
    const plain: ToolReference = { name: "leaky-tool", type: "leaky", uri: "echo://x" };
    await capture(() =>
      bridge.provision({ payload: plain, configurationData: "ok", secretsData: SECRETS_PAYLOAD }),
    );
    await capture(() =>
      bridge.provision({ payload: plain, configurationData: "fail", secretsData: SECRETS_PAYLOAD }),
    );
    await capture(() =>
      bridge.provision({ payload: plain, configurationData: "fail-line", secretsData: SECRETS_PAYLOAD }),
    );
    await capture(() =>
      resources.provision({
        payload: { name: "r", type: "leaky", location: "x://r" },
        configurationData: "fail",
        secretsData: SECRETS_PAYLOAD,
      }),
    );

    const receivedText = received.join("\n");
    for (const canary of [PROVISION_SECRET, PROVISION_KEY]) expect(receivedText).toContain(canary);

    expect(harness.events).toEqual([]);
    expect(captured[0]).toMatchObject({
      configurationURI: "vault://config/x",
      secretsURI: "vault://secret/x",
    });
    const leaked = JSON.stringify(captured);
    for (const canary of CANARIES) expect(leaked).not.toContain(canary);
  });
});

describe("forwarded credentials", () => {
  it("scrubs a forwarded Authorization header that a capability echoes from its metadata", async () => {
    const forwarded = "Bearer canary-forwarded-6b2f10aa";
    const echoMetadata: CapabilityHandlers = {
      toolInvoker(_request, context) {
        if (context.metadata["x-fail"] === "yes")
          throw new TrestleError(`denied ${JSON.stringify(context.metadata)}`, Code.Internal);
        return { content: [JSON.stringify(context.metadata)] };
      },
    };
    const local = createHarness();
    local.serve(echoMetadata, { serviceName: "meta", serviceType: "tool-invoker" });
    const events = createEventHub();
    const bridge = createInvokerBridge(local.depsWithEvents(events));
    const tool: ToolReference = { name: "echo-meta", uri: "echo://meta", type: "meta" };
    const ok = await bridge.execute({}, tool, { metadata: { authorization: forwarded } });
    const failed = await bridge.execute({}, tool, {
      metadata: { authorization: forwarded, "x-fail": "yes" },
    });
    const everything = JSON.stringify([ok, failed, events.history()]);
    expect(everything).not.toContain("canary-forwarded-6b2f10aa");
    expect(JSON.stringify(ok)).toContain("[REDACTED]");
    await local.close();
  });
});
