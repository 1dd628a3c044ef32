import type { BridgeTransport } from "./call.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import type { TimeoutOptions, TlsOptions } from "./transport-options.js";

/**
 * The version of the transport plugin contract this package describes: the shape of a plugin's module (below), of
 * {@link TransportPluginContext} and of `BridgeTransport`. A change a plugin written for the previous version
 * could not survive (a required member added, one removed or retyped) makes a new version; an optional addition
 * does not. See docs/writing-a-transport.md for the policy.
 */
export const TRANSPORT_CONTRACT_VERSION = 1;

/** A logger the router hands a plugin: pino's call shape, `(fields, message)`; secrets never go in either. */
export interface TransportPluginLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * What the router gives a plugin's factory besides its options: the protocol name it is wired under, the router's
 * deadlines (the same shape the built-in transports take) and its TLS settings for reaching services, and a logger.
 */
export interface TransportPluginContext extends TimeoutOptions {
  /** The protocol name the configuration wires the plugin under (`transports.<protocol>`). */
  readonly protocol: string;
  /** The router's client TLS settings for services, when it has any. */
  readonly tls?: TlsOptions;
  /** The router's logger, scoped to this plugin. */
  readonly logger: TransportPluginLogger;
}

/**
 * The factory a plugin's module exports as its default export: makes the transport from its validated options.
 * It may be async (to open a pool, read a file); a thrown error stops the router's start with the plugin named.
 */
export type CreateTransport<Options = unknown> = (
  options: Options,
  context: TransportPluginContext,
) => BridgeTransport | Promise<BridgeTransport>;

/**
 * The module a transport plugin's package exports at its main entry (`exports["."]`), which the router imports
 * when `transports.<protocol>.package` names it:
 *
 * - `default`: the factory, {@link CreateTransport};
 * - `contractVersion`: the contract version the plugin was written for, as a number literal (`1`), never imported
 *   from this package: the router compares it with the versions it supports;
 * - `optionsSchema`: a [Standard Schema](https://standardschema.dev) (zod 4, valibot, arktype, …) that
 *   `transports.<protocol>.options` must satisfy; the factory receives its output.
 *
 * @example
 * With `CreateTransport` from this entry and `z` from zod:
 * ```ts
 * export const contractVersion = 1;
 * export const optionsSchema = z.object({ pathPrefix: z.string().default("/") });
 * const createTransport: CreateTransport<z.output<typeof optionsSchema>> = (options, context) =>
 *   createMyTransport({ ...options, unaryTimeoutMs: context.unaryTimeoutMs });
 * export default createTransport;
 * ```
 */
export interface TransportPluginModule<Options = unknown> {
  readonly default: CreateTransport<Options>;
  readonly contractVersion: number;
  readonly optionsSchema: StandardSchemaV1<unknown, Options>;
}

export type { StandardSchemaV1 };
