import { createRequire } from "node:module";
import type * as GrpcJs from "@grpc/grpc-js";

/** The `@grpc/grpc-js` module. */
export type GrpcJsModule = typeof GrpcJs;

/**
 * Loads `@grpc/grpc-js`, synchronously, on the first call (Node caches it after that). Only the `"grpc-js"`
 * client needs it: importing it costs an idle process about 10 MiB of memory, so nothing in this package loads
 * it at import time. grpc-js is CommonJS, so `require` loads it without making the channel pool asynchronous.
 */
export function loadGrpcJs(): GrpcJsModule {
  return createRequire(import.meta.url)("@grpc/grpc-js") as GrpcJsModule;
}
