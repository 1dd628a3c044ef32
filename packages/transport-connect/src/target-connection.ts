import * as http from "node:http";
import * as https from "node:https";
import type { DescMethodUnary, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { type CallOptions, type Client, createClient, type Transport } from "@connectrpc/connect";
import {
  createConnectTransport as createConnectNodeTransport,
  createGrpcWebTransport,
  Http2SessionManager,
} from "@connectrpc/connect-node";
import { type Cancellation, type ServiceTarget, type TlsOptions, targetAddress } from "@trestle/core";
import { CodeExecutor, HealthProbe, Provisioner, ResourceAcquirer, ToolInvoker } from "@trestle/proto";
import { connectUnaryCall, leanUnaryMethod } from "./connect-unary.js";

/**
 * TLS settings for reaching a capability service: core's `TlsOptions` (`ca`, `cert`, `key`, PEM text or bytes)
 * and the name to verify the server as.
 */
export interface ConnectTlsOptions extends TlsOptions {
  /** Name to verify the server certificate against, when it differs from the target's host. */
  servername?: string;
}

/** How one target is reached; see `ConnectTransportOptions` for the meaning of each field. */
export interface ConnectionSettings {
  protocol: "connect" | "grpc-web";
  httpVersion: "1.1" | "2";
  useBinaryFormat: boolean;
  tls: ConnectTlsOptions | undefined;
  idleConnectionTimeoutMs: number | undefined;
}

/**
 * The options of one unary call on a {@link TargetConnection}: its deadline, its request headers as a record already
 * checked (see `requestHeadersFor`; the call's own object) and the caller's cancellation, from which an
 * `AbortSignal` is made only for a connect-es client.
 */
export interface TargetCallOptions {
  timeoutMs: number;
  headers: Record<string, string>;
  cancellation?: Cancellation | undefined;
}

/** A unary method of a {@link TargetConnection}: the message (or its init shape) in, the reply out. */
export type TargetUnaryMethod<M extends DescMethodUnary> = (
  request: MessageInitShape<M["input"]>,
  options: TargetCallOptions,
) => Promise<MessageShape<M["output"]>>;

/** The clients of the five services for one target, over one reused connection (or keep-alive pool). */
export interface TargetConnection {
  toolInvoker: { invokeTool: TargetUnaryMethod<typeof ToolInvoker.method.invokeTool> };
  resourceAcquirer: {
    resourceAcquire: TargetUnaryMethod<typeof ResourceAcquirer.method.resourceAcquire>;
  };
  provisioner: { provision: TargetUnaryMethod<typeof Provisioner.method.provision> };
  healthProbe: { getStatus: TargetUnaryMethod<typeof HealthProbe.method.getStatus> };
  codeExecutor: Client<typeof CodeExecutor>;
  /** Closes the connection; calls still running on it fail. */
  close(): void;
}

function tlsNodeOptions(tls: ConnectTlsOptions) {
  return {
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key }),
    ...(tls.servername === undefined ? {} : { servername: tls.servername }),
  };
}

/**
 * The four unary services as lean Connect unary calls (binary, HTTP/2) on `sessions`, the session manager the
 * connect-node transport of the same target uses: both share one connection. The codecs are compiled here, once
 * per target connection.
 */
function leanUnaryClients(sessions: Http2SessionManager): Omit<TargetConnection, "codeExecutor" | "close"> {
  const invokeTool = leanUnaryMethod(ToolInvoker, "invokeTool");
  const resourceAcquire = leanUnaryMethod(ResourceAcquirer, "resourceAcquire");
  const provision = leanUnaryMethod(Provisioner, "provision");
  const getStatus = leanUnaryMethod(HealthProbe, "getStatus");
  return {
    toolInvoker: {
      invokeTool: (request, options) => connectUnaryCall(sessions, invokeTool, request, options),
    },
    resourceAcquirer: {
      resourceAcquire: (request, options) => connectUnaryCall(sessions, resourceAcquire, request, options),
    },
    provisioner: { provision: (request, options) => connectUnaryCall(sessions, provision, request, options) },
    healthProbe: { getStatus: (request, options) => connectUnaryCall(sessions, getStatus, request, options) },
  };
}

/**
 * Opens (lazily) what reaches `target`: over HTTP/2 one session that every call multiplexes on; over HTTP/1.1
 * a keep-alive agent of its own, so connections are reused and can be let go with the target. Connect in binary
 * over HTTP/2 (the default) runs its unary calls on the lean path ({@link connectUnaryCall}) and its stream on
 * connect-node, on the same session.
 */
export function openTargetConnection(target: ServiceTarget, settings: ConnectionSettings): TargetConnection {
  const baseUrl = `${settings.tls ? "https" : "http"}://${targetAddress(target)}`;
  const nodeTls = settings.tls ? tlsNodeOptions(settings.tls) : {};
  let transport: Transport;
  let close: () => void;
  if (settings.httpVersion === "2") {
    const sessionManager = new Http2SessionManager(
      baseUrl,
      settings.idleConnectionTimeoutMs === undefined
        ? {}
        : { idleConnectionTimeoutMs: settings.idleConnectionTimeoutMs },
      nodeTls,
    );
    const common = {
      baseUrl,
      httpVersion: "2" as const,
      sessionManager,
      useBinaryFormat: settings.useBinaryFormat,
    };
    transport =
      settings.protocol === "grpc-web" ? createGrpcWebTransport(common) : createConnectNodeTransport(common);
    close = () => sessionManager.abort();
    if (settings.protocol === "connect" && settings.useBinaryFormat) {
      return {
        ...leanUnaryClients(sessionManager),
        codeExecutor: createClient(CodeExecutor, transport),
        close,
      };
    }
  } else {
    const agent = settings.tls
      ? new https.Agent({ keepAlive: true, ...nodeTls })
      : new http.Agent({ keepAlive: true });
    const common = {
      baseUrl,
      httpVersion: "1.1" as const,
      nodeOptions: { agent },
      useBinaryFormat: settings.useBinaryFormat,
    };
    transport =
      settings.protocol === "grpc-web" ? createGrpcWebTransport(common) : createConnectNodeTransport(common);
    close = () => agent.destroy();
  }
  const toolInvoker = createClient(ToolInvoker, transport);
  const resourceAcquirer = createClient(ResourceAcquirer, transport);
  const provisioner = createClient(Provisioner, transport);
  const healthProbe = createClient(HealthProbe, transport);
  return {
    toolInvoker: {
      invokeTool: (request, options) => toolInvoker.invokeTool(request, connectEsOptions(options)),
    },
    resourceAcquirer: {
      resourceAcquire: (request, options) =>
        resourceAcquirer.resourceAcquire(request, connectEsOptions(options)),
    },
    provisioner: {
      provision: (request, options) => provisioner.provision(request, connectEsOptions(options)),
    },
    healthProbe: {
      getStatus: (request, options) => healthProbe.getStatus(request, connectEsOptions(options)),
    },
    codeExecutor: createClient(CodeExecutor, transport),
    close,
  };
}

/** A connect-es client's options for a unary call: the caller's cancellation as the `AbortSignal` it takes. */
function connectEsOptions(options: TargetCallOptions): CallOptions {
  const signal = options.cancellation?.signal;
  return { timeoutMs: options.timeoutMs, headers: options.headers, ...(signal ? { signal } : {}) };
}
