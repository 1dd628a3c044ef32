import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Where this file's build lives (`packages/bench/dist`). */
export const distDir = dirname(fileURLToPath(import.meta.url));
/** `packages/bench`. */
export const packageDir = resolve(distDir, "..");
/** The repository's root. */
export const repoRoot = resolve(packageDir, "../..");
/** The router's CLI, built. */
export const routerCli = join(repoRoot, "packages/server/dist/cli.js");
/** A script of this package's build, e.g. `servers/bound-mcp-server.js`. */
export const distScript = (name: string) => join(distDir, name);
/** The peer gateways' entry points (devDependencies of this package). */
export const supergatewayCli = join(packageDir, "node_modules/supergateway/dist/index.js");
export const mcpProxyCli = join(packageDir, "node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs");
