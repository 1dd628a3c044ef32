import type { CreateTransport } from "@trestle/core/plugin";
import { z } from "zod";
import { createHttpJsonTransport } from "./http-json-transport.js";

/**
 * The plugin contract version this package was written for: a literal, compared by the router with the versions it
 * supports (see `@trestle/core/plugin`).
 */
export const contractVersion = 1;

/**
 * What `transports.<protocol>.options` may hold for this transport. Deadlines left out fall back to the router's
 * (`unaryTimeoutMs`, `streamTimeoutMs`); unknown fields are refused, so a misspelt option is never ignored.
 */
export const optionsSchema = z.strictObject({
  /** Deadline of unary calls when the caller gives none, in milliseconds. */
  unaryTimeoutMs: z.number().int().positive().optional(),
  /** Deadline of a whole code execution stream when the caller gives none, in milliseconds. */
  streamTimeoutMs: z.number().int().positive().optional(),
});

/** The options the factory receives, once `optionsSchema` has checked them. */
export type HttpJsonPluginOptions = z.output<typeof optionsSchema>;

/** The plugin's factory: the HTTP+JSON transport, with the router's deadlines where the options set none. */
const createTransport: CreateTransport<HttpJsonPluginOptions> = (options, context) =>
  createHttpJsonTransport({
    unaryTimeoutMs: options.unaryTimeoutMs ?? context.unaryTimeoutMs,
    streamTimeoutMs: options.streamTimeoutMs ?? context.streamTimeoutMs,
  });

export default createTransport;
