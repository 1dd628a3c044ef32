#!/usr/bin/env node
import { readFileSync } from "node:fs";
// A capability service for the reliability suite, built on the capability SDK's published output (dist) as a
// user's service would be. Unlike the e2e fixture it can listen on a given port (to be restarted in place), serve
// TLS, store provisioned secrets in files, and behave badly on purpose.
//
//   node reliable-capability.mjs --router URL [--service-name NAME] [--service-type TYPE] [--protocol grpc|connect]
//     [--port N] [--home DIR] [--id-file FILE] [--token T] [--tls-cert F --tls-key F [--tls-ca F --require-client-cert]]
//     [--hostile-provisioner]
//
// Tools (by uri host): echo (arguments, headers, body and call metadata back), sleep?ms=N, hang (answers only
// when cancelled), active (how many tool calls are running here), error-echo (fails with a message that repeats
// everything it was sent, as a careless service would), error.
// Every line on stdout is one JSON event: ready, invoked {uri}, ended {uri, outcome}.
import { parseArgs } from "node:util";
import {
  createCapabilityServer,
  createFileProvisioner,
  createRegistrationClient,
  stopOnSignals,
} from "@trestle/capability";
import { Code, TrestleError } from "@trestle/core";
import { RuntimeStatus } from "@trestle/proto";

const { values } = parseArgs({
  options: {
    router: { type: "string" },
    "service-name": { type: "string", default: "reliable" },
    "service-type": { type: "string", default: "tool-invoker" },
    protocol: { type: "string", default: "grpc" },
    port: { type: "string", default: "0" },
    home: { type: "string" },
    "id-file": { type: "string" },
    token: { type: "string" },
    "tls-cert": { type: "string" },
    "tls-key": { type: "string" },
    "tls-ca": { type: "string" },
    "require-client-cert": { type: "boolean", default: false },
    "hostile-provisioner": { type: "boolean", default: false },
  },
});

const emit = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
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

let active = 0;

async function invoke(request, context) {
  const url = new URL(request.uri);
  switch (url.host) {
    case "echo":
      return {
        content: [
          JSON.stringify({
            arguments: request.arguments,
            headers: request.headers,
            body: request.body,
            metadata: context.metadata,
          }),
        ],
      };
    case "sleep":
      await sleep(Number(url.searchParams.get("ms") ?? "1000"), context.signal);
      return { content: ["slept"] };
    case "hang":
      await sleep(2 ** 31 - 1, context.signal);
      return { content: ["woke up"] };
    case "active":
      // This call counts itself.
      return { content: [String(active - 1)] };
    case "error-echo":
      throw new TrestleError(
        `refused: ${JSON.stringify({ arguments: request.arguments, headers: request.headers, metadata: context.metadata })}`,
        Code.PermissionDenied,
      );
    case "error":
      throw new TrestleError("This tool always fails", Code.Internal);
    default:
      throw new TrestleError(`No tool at ${request.uri}`, Code.NotFound);
  }
}

const fileProvisioner = values.home ? createFileProvisioner({ home: values.home }) : undefined;
const provisioner = values["hostile-provisioner"]
  ? (request) => {
      // A careless service that puts the payloads it was sent into its error message.
      throw new TrestleError(
        `cannot store ${request.configuration?.payload ?? ""} / ${request.secret?.payload ?? ""}`,
        Code.Internal,
      );
    }
  : fileProvisioner;

const tls = values["tls-cert"]
  ? {
      cert: readFileSync(values["tls-cert"]),
      key: readFileSync(values["tls-key"] ?? ""),
      ...(values["tls-ca"] ? { ca: readFileSync(values["tls-ca"]) } : {}),
      requireClientCert: values["require-client-cert"],
    }
  : undefined;

const server = createCapabilityServer({
  port: Number(values.port),
  ...(tls ? { tls } : {}),
  ...(provisioner ? { provisioner } : {}),
  async toolInvoker(request, context) {
    active++;
    emit({ event: "invoked", uri: request.uri });
    try {
      const reply = await invoke(request, context);
      emit({ event: "ended", uri: request.uri, outcome: "ok" });
      return reply;
    } catch (error) {
      emit({ event: "ended", uri: request.uri, outcome: context.signal.aborted ? "aborted" : "failed" });
      throw error;
    } finally {
      active--;
    }
  },
  resourceAcquirer(request) {
    return { content: [`resource ${request.location}`] };
  },
  healthProbe: () => ({ status: RuntimeStatus.STARTED }),
});

const { host, port } = await server.listen();
const registration = values.router
  ? createRegistrationClient({
      routerUrl: values.router,
      target: {
        serviceName: values["service-name"],
        host,
        port,
        serviceType: values["service-type"],
        protocol: values.protocol,
      },
      heartbeatIntervalMs: 1_000,
      retryInitialDelayMs: 200,
      retryMaxDelayMs: 1_000,
      ...(values["id-file"] ? { idFile: values["id-file"] } : {}),
      ...(values.token ? { token: values.token } : {}),
    })
  : undefined;
registration?.start();
if (registration) await registration.ready();
emit({ event: "ready", host, port, id: registration?.id() });
stopOnSignals(async () => {
  await registration?.stop();
  await server.close();
});
