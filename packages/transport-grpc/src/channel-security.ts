import { createHash } from "node:crypto";
import type * as grpc from "@grpc/grpc-js";
import { Code, TrestleError } from "@trestle/core";
import type { GrpcTlsOptions } from "./grpc-transport-options.js";
import { loadGrpcJs } from "./load-grpc-js.js";

/** How a channel secures its connection, and a key that tells two such settings apart. */
export interface ChannelSecurity {
  /** Equal for equal settings: part of the channel pool's key. Holds a digest, never key material. */
  readonly identity: string;
  /**
   * Credentials for a new grpc-js channel (loads grpc-js: only the `"grpc-js"` client calls it).
   * @throws {TrestleError} `InvalidArgument` for unusable TLS material.
   */
  credentials(): grpc.ChannelCredentials;
  /** Channel options the settings need (the server name override). */
  readonly channelOptions: grpc.ChannelOptions;
  /** The TLS settings themselves (undefined: plaintext), for the lean unary client's own connection. */
  readonly tls?: GrpcTlsOptions;
}

const plaintext: ChannelSecurity = {
  identity: "plaintext",
  credentials: () => loadGrpcJs().credentials.createInsecure(),
  channelOptions: {},
};

const cache = new WeakMap<GrpcTlsOptions, ChannelSecurity>();

function bytes(value: string | Buffer | undefined): Buffer | null {
  if (value === undefined) return null;
  return typeof value === "string" ? Buffer.from(value, "utf8") : value;
}

function digest(tls: GrpcTlsOptions): string {
  const hash = createHash("sha256");
  for (const part of [tls.ca, tls.cert, tls.key, tls.serverNameOverride]) {
    const b = bytes(part);
    // Length-prefixed, so that moving bytes from one field to the next changes the digest.
    hash.update(`${b === null ? -1 : b.length}:`);
    if (b) hash.update(b);
  }
  return `tls:${hash.digest("hex")}`;
}

function tlsSecurity(tls: GrpcTlsOptions): ChannelSecurity {
  const channelOptions: grpc.ChannelOptions = {};
  if (tls.serverNameOverride) {
    channelOptions["grpc.ssl_target_name_override"] = tls.serverNameOverride;
    channelOptions["grpc.default_authority"] = tls.serverNameOverride;
  }
  return {
    identity: digest(tls),
    channelOptions,
    tls,
    credentials() {
      if ((tls.cert === undefined) !== (tls.key === undefined)) {
        throw new TrestleError(
          "TLS needs both a client certificate and its key for mutual TLS, or neither",
          Code.InvalidArgument,
        );
      }
      try {
        return loadGrpcJs().credentials.createSsl(bytes(tls.ca), bytes(tls.key), bytes(tls.cert));
      } catch (error) {
        // Node's message names the failing PEM routine, never the key's content.
        throw new TrestleError(
          `Unusable TLS settings: ${error instanceof Error ? error.message : String(error)}`,
          Code.InvalidArgument,
        );
      }
    },
  };
}

/** The {@link ChannelSecurity} of TLS settings (`false` or `undefined`: plaintext). Cached per object. */
export function channelSecurity(tls: GrpcTlsOptions | false | undefined): ChannelSecurity {
  if (!tls) return plaintext;
  let security = cache.get(tls);
  if (!security) {
    security = tlsSecurity(tls);
    cache.set(tls, security);
  }
  return security;
}
