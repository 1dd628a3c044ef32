import type { CallContext } from "@trestle/bridge";
import { Code, type CodeOutput, TrestleError } from "@trestle/core";
import { redactValue } from "@trestle/core/redaction";
import type { CallService } from "../calls/call-service.js";
import type { Caller } from "../calls/caller.js";
import type { PolicyDecisionListener } from "../calls/cel-policy.js";
import type { AuditFront, AuditMethod, AuditRecord } from "./audit-record.js";
import { principalKind } from "./audit-record.js";

/** The most bytes of redacted arguments a record keeps; larger arguments are recorded by their size alone. */
export const MAX_AUDITED_ARGUMENT_BYTES = 4096;

/** A decision as the policy told it, kept for the record of the call it belongs to. */
interface DecisionSlot {
  decision?: { effect: "allow" | "deny"; rule?: string };
}

/** A call being audited: the caller the service is given, and what its record needs. */
interface AuditedCall {
  readonly caller: Caller;
  readonly slot: DecisionSlot;
  readonly front: AuditFront;
  readonly method: AuditMethod;
  readonly target: string | null;
  /** Epoch ms at the start. */
  readonly at: number;
  /** `performance.now()` at the start, for the duration. */
  readonly started: number;
}

/** What {@link createCallAudit} needs. */
export interface CallAuditOptions {
  /** Where records go (never blocks, never throws). */
  record(record: AuditRecord): void;
  /** What of the arguments each record keeps. */
  arguments: "none" | "redacted";
  /** True while no policy applies (nothing is decided; calls are recorded as allowed without a rule). */
  policyOpen(): boolean;
  /**
   * The rule that hides the tool named `name` from `caller`, or `undefined` when no tool of that name exists or
   * it is not hidden: a call of a hidden tool is recorded as denied by it.
   */
  hiddenBy(caller: Caller, name: string): string | undefined;
  now?: () => number;
}

/** The audit of the call service: the policy's listener, and each front's call service, recorded. */
export interface CallAudit {
  /** Give it to the policy: each decision is kept for the record of its call. */
  readonly onDecision: PolicyDecisionListener;
  /** `service` as `front` uses it: every decision and outcome recorded. */
  wrap(service: CallService, front: AuditFront): CallService;
}

/** Arguments as a record keeps them: redacted, and bounded in size. */
export function auditedArguments(args: unknown, mode: "none" | "redacted"): unknown {
  if (mode === "none" || args === undefined) return null;
  const redacted = redactValue(args);
  const json = JSON.stringify(redacted) ?? "null";
  const bytes = Buffer.byteLength(json);
  return bytes <= MAX_AUDITED_ARGUMENT_BYTES ? redacted : { truncated: true, bytes };
}

function errorCodeOf(error: unknown): string {
  const code = TrestleError.from(error).code;
  return Code[code] ?? String(code);
}

/**
 * Creates the call audit. Each audited call hands the service a caller object of its own, by which the policy's
 * decision (told synchronously, before any transport) finds the call's record; the record is written when the call
 * settles: denied with the rule, or allowed (with the rule that allowed it) and its outcome.
 */
export function createCallAudit(options: CallAuditOptions): CallAudit {
  const slots = new WeakMap<Caller, DecisionSlot>();
  const now = options.now ?? Date.now;

  /**
   * A call in progress. While a policy applies, the call gets a caller object of its own, by which the policy's
   * decision finds the call's slot; with none in force nothing is decided, and the caller passes as it is.
   */
  const begin = (
    caller: Caller,
    front: AuditFront,
    method: AuditMethod,
    target: string | null,
  ): AuditedCall => {
    const slot: DecisionSlot = {};
    let own = caller;
    if (!options.policyOpen()) {
      own = { principal: caller.principal, namespace: caller.namespace };
      slots.set(own, slot);
    }
    return { caller: own, slot, front, method, target, at: now(), started: performance.now() };
  };

  /** Records the call's end: `error` when it threw (a policy refusal is a denial). */
  const finish = (
    call: AuditedCall,
    extra: { requestId?: string | undefined; args?: unknown },
    end: { error?: unknown; isError?: boolean },
  ): void => {
    try {
      const { slot } = call;
      const denied =
        slot.decision?.effect === "deny" &&
        end.error !== undefined &&
        TrestleError.from(end.error).code === Code.PermissionDenied;
      const principal = call.caller.principal;
      options.record({
        at: call.at,
        principalId: principal.id,
        principalName: principal.name,
        principalKind: principalKind(principal),
        namespace: call.caller.namespace,
        method: call.method,
        target: call.target,
        decision: denied ? "denied" : "allowed",
        rule: slot.decision ? (slot.decision.rule ?? "(default)") : options.policyOpen() ? null : "(default)",
        outcome: denied ? null : end.error !== undefined ? "error" : end.isError ? "isError" : "ok",
        errorCode: denied || end.error === undefined ? null : errorCodeOf(end.error),
        durationMs: denied ? null : performance.now() - call.started,
        front: call.front,
        requestId: extra.requestId ?? null,
        arguments: auditedArguments(extra.args, options.arguments),
      });
    } catch {
      // The audit never fails a call.
    }
  };

  const onDecision: PolicyDecisionListener = (caller, _request, decision) => {
    const slot = slots.get(caller);
    if (slot)
      slot.decision =
        decision.rule === undefined
          ? { effect: decision.effect }
          : { effect: decision.effect, rule: decision.rule };
  };

  const wrap = (inner: CallService, front: AuditFront): CallService => {
    async function* recordedRun(
      stream: AsyncIterable<CodeOutput>,
      call: AuditedCall,
      extra: { requestId?: string | undefined; args?: unknown },
    ): AsyncGenerator<CodeOutput, void, undefined> {
      let error: unknown;
      let ended = false;
      try {
        yield* stream;
        ended = true;
      } catch (thrown) {
        error = thrown;
        throw thrown;
      } finally {
        // A reader that stops early ends the run: recorded as cancelled.
        finish(call, extra, {
          error: ended || error !== undefined ? error : new TrestleError("The reader stopped", Code.Canceled),
        });
      }
    }

    return {
      codeExecutionToolName: inner.codeExecutionToolName,
      engines: () => inner.engines(),
      isCodeExecution: (tool) => inner.isCodeExecution(tool),

      listTools(caller) {
        const tools = inner.listTools(caller);
        // A list is worth a record when a policy filtered it: who saw what is then a decision.
        if (!options.policyOpen()) finish(begin(caller, front, "tools/list", null), {}, {});
        return tools;
      },

      findTool(caller, name) {
        const tool = inner.findTool(caller, name);
        if (tool === undefined && !options.policyOpen()) {
          const rule = options.hiddenBy(caller, name);
          if (rule !== undefined) {
            const call = begin(caller, front, "tools/call", name);
            call.slot.decision = { effect: "deny", rule };
            finish(call, {}, { error: new TrestleError("hidden by the policy", Code.PermissionDenied) });
          }
        }
        return tool;
      },

      async callTool(caller, tool, args, callOptions) {
        const code = inner.isCodeExecution(tool);
        const target = code
          ? `${String(args.engine ?? "")}/${String(args.language ?? "")}`.replace(/^\/$/, tool.name)
          : tool.name;
        const call = begin(caller, front, code ? "code/execute" : "tools/call", target);
        const extra = { requestId: callOptions.requestId, args };
        try {
          const result = await inner.callTool(call.caller, tool, args, callOptions);
          finish(call, extra, { isError: result.isError === true });
          return result;
        } catch (error) {
          finish(call, extra, { error });
          throw error;
        }
      },

      executeCode(caller, engineType, language, input, context: CallContext) {
        const call = begin(caller, front, "code/execute", `${engineType}/${language}`);
        const extra = { requestId: context.requestId, args: input.arguments };
        let stream: AsyncIterable<CodeOutput>;
        try {
          stream = inner.executeCode(call.caller, engineType, language, input, context);
        } catch (error) {
          finish(call, extra, { error });
          throw error;
        }
        return recordedRun(stream, call, extra);
      },

      listResources: (caller) => inner.listResources(caller),
      findResource: (caller, uri) => inner.findResource(caller, uri),

      async readResource(caller, resource, uri, context) {
        const call = begin(caller, front, "resources/read", uri);
        const extra = { requestId: context.requestId };
        try {
          const contents = await inner.readResource(call.caller, resource, uri, context);
          finish(call, extra, {});
          return contents;
        } catch (error) {
          finish(call, extra, { error });
          throw error;
        }
      },

      listPrompts: (caller) => inner.listPrompts(caller),
      findPrompt: (caller, name) => inner.findPrompt(caller, name),

      async getPrompt(caller, prompt, args, promptOptions) {
        const call = begin(caller, front, "prompts/get", prompt.name);
        const extra = { args };
        try {
          const result = await inner.getPrompt(call.caller, prompt, args, promptOptions);
          finish(call, extra, {});
          return result;
        } catch (error) {
          finish(call, extra, { error });
          throw error;
        }
      },
    };
  };

  return { onDecision, wrap };
}
