import { createReferenceCapability, type ReferenceCapability } from "@trestle/core/testing";
import type { CapabilityHandlers } from "../capability-handlers.js";
import { wanakuHandlers } from "../service-handlers.js";

/** The reference capability as a Wanaku service. */
export interface WanakuReferenceCapability extends Omit<ReferenceCapability, "handlers"> {
  handlers: CapabilityHandlers;
}

/**
 * The transport kit's reference capability (`createReferenceCapability` from `@trestle/core/testing`) served
 * as a Wanaku service, with one difference: its `echo://` tool answers with the Wanaku request as it arrived
 * (`uri`, `body`, `arguments`, `headers`, `configurationUri`, `secretsUri`, `requestId`) plus the handler
 * context's `contextRequestId` and `metadata`, so that a test sees the message a Wanaku capability sees.
 * Everything else behaves as the reference does, through {@link wanakuHandlers}.
 */
export function createWanakuReferenceCapability(): WanakuReferenceCapability {
  const reference = createReferenceCapability();
  const handlers = wanakuHandlers(reference.handlers);
  const invoke = handlers.toolInvoker;
  return {
    ...reference,
    handlers: {
      ...handlers,
      toolInvoker(request, context) {
        if (!request.uri.startsWith("echo:")) {
          if (!invoke) throw new Error("the reference capability calls tools");
          return invoke(request, context);
        }
        const { uri, body, arguments: args, headers, configurationUri, secretsUri, requestId } = request;
        return {
          content: [
            JSON.stringify({
              uri,
              body,
              arguments: args,
              headers,
              configurationUri,
              secretsUri,
              requestId,
              contextRequestId: context.requestId,
              metadata: context.metadata,
            }),
          ],
        };
      },
    },
  };
}
