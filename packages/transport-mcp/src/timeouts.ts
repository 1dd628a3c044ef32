/**
 * How long an upstream may take to become ready the first time it is connected to: for a stdio server, from
 * spawn to its answer to `initialize`. Generous, because the first run of `npx -y some-server` (or `uvx`)
 * downloads the package meanwhile, which takes tens of seconds on a slow network.
 */
export const DEFAULT_START_TIMEOUT_MS = 120_000;

/**
 * How long an upstream may take to answer `initialize` on a later connection (a pooled process started again, a
 * per-call process, a watch reconnecting): its package is installed by then.
 */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 30_000;
