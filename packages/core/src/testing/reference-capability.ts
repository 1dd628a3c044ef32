import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { ExecutionStatus, OutputType, RuntimeStatus } from "@trestle/proto";
import type { CapabilityHandlers, CodeExecutionReplyInit } from "../capability-handlers.js";
import { Code, TrestleError } from "../error.js";

/** What the reference capability saw, for assertions on the server side. */
export interface ReferenceObservations {
  /** Signals of calls that were aborted while running, by uri. */
  abortedCalls: string[];
  /** Streams whose generator ran its `finally` block, by uri. */
  streamsFinished: string[];
  /** Provision requests received: name, configuration payload, secret payload and types. */
  provisions: {
    name: string;
    configuration: string;
    secret: string;
    configurationType: number;
    secretType: number;
  }[];
}

/** A capability with predictable behaviour that the transport test kit calls through the transport under test. */
export interface ReferenceCapability {
  handlers: CapabilityHandlers;
  observations: ReferenceObservations;
  /** What the health probe answers. */
  health: { status: RuntimeStatus };
  /** Opens, for good, the gate that a `gated` code execution waits on after its first chunk. */
  openGate(): void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
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

function chunk(text: string, outputType = OutputType.STDOUT): CodeExecutionReplyInit {
  return {
    content: [text],
    outputType,
    status: ExecutionStatus.RUNNING,
    timestamp: timestampFromMs(Date.now()),
  };
}

/**
 * Creates the reference capability. Its tool behaviour is chosen by the request's `uri`:
 * `echo://…` answers the request as JSON; `fail://CODE/message` throws a `TrestleError` with that code name
 * (e.g. `fail://NotFound/no such tool`); `throw://message` throws a plain `Error`; `sleep://MS` waits, noting
 * an abort. Code execution is chosen by the language in `code-execution-engine://kit/LANGUAGE`: `count` yields
 * `arguments.n` chunks, `gated` yields one chunk and waits for {@link ReferenceCapability.openGate}, `fail-mid`
 * fails after one chunk, `endless` yields until cancelled.
 */
export function createReferenceCapability(): ReferenceCapability {
  const observations: ReferenceObservations = { abortedCalls: [], streamsFinished: [], provisions: [] };
  const health = { status: RuntimeStatus.STARTED };
  let releaseGate: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    releaseGate = resolve;
  });

  const handlers: CapabilityHandlers = {
    async toolInvoker(request, context) {
      const url = new URL(request.uri);
      switch (url.protocol) {
        case "echo:":
          return {
            content: [
              JSON.stringify({
                uri: request.uri,
                body: request.body,
                arguments: request.arguments,
                headers: request.headers,
                configurationUri: request.configurationUri,
                secretsUri: request.secretsUri,
                requestId: request.requestId,
                contextRequestId: context.requestId,
                metadata: context.metadata,
              }),
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
          try {
            await sleep(Number(url.hostname), context.signal);
          } catch (error) {
            observations.abortedCalls.push(request.uri);
            throw error;
          }
          return { content: ["slept"] };
        default:
          throw new TrestleError(`Unknown reference uri ${request.uri}`, Code.InvalidArgument);
      }
    },
    resourceAcquirer(request) {
      return {
        content: [
          request.location,
          request.type,
          request.name,
          JSON.stringify(request.params),
          request.requestId,
        ],
      };
    },
    async *codeExecutor(request, context) {
      const language = new URL(request.uri).pathname.slice(1);
      try {
        yield { content: [], outputType: OutputType.STATUS, status: ExecutionStatus.PENDING };
        switch (language) {
          case "count": {
            const n = Number(request.arguments.n ?? "3");
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
            throw new TrestleError(`Unknown language ${language}`, Code.InvalidArgument);
        }
        yield {
          content: [],
          outputType: OutputType.COMPLETION,
          status: ExecutionStatus.COMPLETED,
          exitCode: 0,
          timestamp: timestampFromMs(Date.now()),
        };
      } finally {
        observations.streamsFinished.push(request.uri);
      }
    },
    provisioner(request) {
      observations.provisions.push({
        name: request.configuration?.name ?? "",
        configuration: request.configuration?.payload ?? "",
        secret: request.secret?.payload ?? "",
        configurationType: request.configuration?.type ?? 0,
        secretType: request.secret?.type ?? 0,
      });
      const name = request.configuration?.name ?? "unnamed";
      return {
        configurationUri: `mem://config/${name}`,
        secretUri: `mem://secret/${name}`,
        properties: { region: { type: "string", description: "Where to run", required: true } },
      };
    },
    healthProbe() {
      return { status: health.status };
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
