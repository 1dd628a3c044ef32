import type { CodeOutput, HealthState } from "../call.js";
import { Code, TrestleError } from "../error.js";
import type { ServiceHandlers } from "../service-handlers.js";

/** What the reference capability saw, for assertions on the server side. */
export interface ReferenceObservations {
  /** Tool uris of `sleep://` calls that started running (a test cancels one once it runs). */
  runningCalls: string[];
  /** Tool uris of calls that were aborted while running. */
  abortedCalls: string[];
  /** Streams whose generator ran its `finally` block, as `engineType/language`. */
  streamsFinished: string[];
  /** Provisionings received. */
  provisions: { name: string; configuration: string; secret: string }[];
}

/** A capability with predictable behaviour that the transport test kit calls through the transport under test. */
export interface ReferenceCapability {
  handlers: ServiceHandlers;
  observations: ReferenceObservations;
  /** What the health probe answers. */
  health: { state: HealthState };
  /** Opens, for good, the gate that a `gated` code execution waits on after its first chunk. */
  openGate(): void;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (at once when it already has). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function chunk(text: string): CodeOutput {
  return { type: "output", stream: "stdout", text };
}

/**
 * Creates the reference capability. Its tool behaviour is chosen by the tool's `uri`: `echo://…` answers
 * with one text block holding, as JSON, what it received (uri, arguments, configuration and secrets URIs,
 * request id, metadata); `fail://CODE/message` throws a `TrestleError` with that code name (e.g.
 * `fail://NotFound/no such tool`); `throw://message` throws a plain `Error`; `sleep://MS` waits, noting an
 * abort. A resource read answers five text entries: the URI, the resource's type and name, its params as
 * JSON and the request id. Code execution is chosen by the language: `count` yields `arguments.n` chunks,
 * `gated` yields one chunk and waits for {@link ReferenceCapability.openGate}, `fail-mid` fails after one
 * chunk, `endless` yields until cancelled.
 */
export function createReferenceCapability(): ReferenceCapability {
  const observations: ReferenceObservations = {
    runningCalls: [],
    abortedCalls: [],
    streamsFinished: [],
    provisions: [],
  };
  const health: { state: HealthState } = { state: "healthy" };
  let releaseGate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    releaseGate = resolve;
  });

  const handlers: ServiceHandlers = {
    async callTool(call, context) {
      const uri = call.tool.uri;
      const url = new URL(uri);
      switch (url.protocol) {
        case "echo:":
          return {
            content: [
              {
                type: "text",
                text: JSON.stringify({
                  uri,
                  arguments: call.arguments,
                  configurationUri: call.tool.configurationURI ?? "",
                  secretsUri: call.tool.secretsURI ?? "",
                  requestId: context.requestId,
                  metadata: context.metadata,
                }),
              },
            ],
          };
        case "fail:": {
          const codeName = url.hostname.toLowerCase();
          const code = Object.entries(Code).find(([k]) => k.toLowerCase() === codeName)?.[1] as
            | Code
            | undefined;
          throw new TrestleError(decodeURIComponent(url.pathname.slice(1)), code ?? Code.Unknown);
        }
        case "throw:":
          throw new Error(decodeURIComponent(url.hostname + url.pathname));
        case "sleep:":
          observations.runningCalls.push(uri);
          try {
            await sleep(Number(url.hostname), context.signal);
          } catch (error) {
            observations.abortedCalls.push(uri);
            throw error;
          }
          return { content: [{ type: "text", text: "slept" }] };
        default:
          throw new TrestleError(`Unknown reference uri ${uri}`, Code.InvalidArgument);
      }
    },
    readResource(read, context) {
      const texts = [
        read.uri,
        read.resource.type,
        read.resource.name,
        JSON.stringify(read.params ?? {}),
        context.requestId,
      ];
      return { contents: texts.map((text) => ({ uri: read.uri, text })) };
    },
    async *executeCode(run, context) {
      try {
        yield { type: "status", status: "pending" };
        switch (run.language) {
          case "count": {
            const args = Array.isArray(run.arguments) ? {} : (run.arguments ?? {});
            const n = Number(args.n ?? "3");
            for (let i = 0; i < n; i++) yield chunk(`line ${i}\n`);
            break;
          }
          case "gated":
            yield chunk("first\n");
            await Promise.race([gate, sleep(60_000, context.signal)]);
            yield chunk("second\n");
            break;
          case "fail-mid":
            yield chunk("partial\n");
            throw new TrestleError("engine crashed", Code.Internal);
          case "endless":
            for (let i = 0; ; i++) {
              yield chunk(`tick ${i}\n`);
              await sleep(10, context.signal);
            }
          default:
            throw new TrestleError(`Unknown language ${run.language}`, Code.InvalidArgument);
        }
        yield { type: "exit", status: "completed", exitCode: 0 };
      } finally {
        observations.streamsFinished.push(`${run.engineType}/${run.language}`);
      }
    },
    provision(provisioning) {
      observations.provisions.push({
        name: provisioning.name,
        configuration: provisioning.configurationData,
        secret: provisioning.secretsData,
      });
      const name = provisioning.name || "unnamed";
      return {
        configurationUri: `mem://config/${name}`,
        secretsUri: `mem://secret/${name}`,
        properties: { region: { type: "string", description: "Where to run", required: true } },
      };
    },
    probeHealth() {
      return { state: health.state };
    },
  };

  return {
    handlers,
    observations,
    health,
    openGate() {
      releaseGate();
    },
  };
}
