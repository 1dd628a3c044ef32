import * as http from "node:http";
import * as https from "node:https";
import { type Client, createClient, type Transport } from "@connectrpc/connect";
import {
  createConnectTransport as createConnectNodeTransport,
  createGrpcWebTransport,
  Http2SessionManager,
} from "@connectrpc/connect-node";
import { type ServiceTarget, type TlsOptions, targetAddress } from "@trestle/core";
import { CodeExecutor, HealthProbe, Provisioner, ResourceAcquirer, ToolInvoker } from "@trestle/proto";

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

/** The clients of the five services for one target, over one reused connection (or keep-alive pool). */
export interface TargetConnection {
  toolInvoker: Client<typeof ToolInvoker>;
  resourceAcquirer: Client<typeof ResourceAcquirer>;
  provisioner: Client<typeof Provisioner>;
  healthProbe: Client<typeof HealthProbe>;
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
 * Opens (lazily) what reaches `target`: over HTTP/2 one session that every call multiplexes on; over HTTP/1.1
 * a keep-alive agent of its own, so connections are reused and can be let go with the target.
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
  return {
    toolInvoker: createClient(ToolInvoker, transport),
    resourceAcquirer: createClient(ResourceAcquirer, transport),
    provisioner: createClient(Provisioner, transport),
    healthProbe: createClient(HealthProbe, transport),
    codeExecutor: createClient(CodeExecutor, transport),
    close,
  };
}
