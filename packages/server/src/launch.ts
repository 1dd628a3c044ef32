/**
 * How the router's own Node process is best started: settings that only take effect when given to `node` (or its
 * C library) before the router runs, so the router cannot apply them to itself. `pnpm start`, the container recipe
 * and the benchmark harness start it with these; docs/deploy.md tells other deployments. Imported from
 * `@trestle/server/launch`, which loads nothing else.
 *
 * @packageDocumentation
 */

/**
 * Node flags for the router, given on node's command line before the router's script (`NODE_OPTIONS` refuses
 * `--liftoff-only`):
 *
 * - `--max-semi-space-size=8`: young-generation semi-spaces of at most 8 MiB instead of 16. The router's start
 *   (module loading, the embedded store's setup) grows V8's young generation to its maximum in most starts, and V8
 *   gives that memory back only when its memory reducer runs, 24–40 s after the start (it waits for a low
 *   allocation rate): an idle router on a fresh data directory held 156–163 MiB until then and 128–137 after. With
 *   8 MiB: at most 145–146 MiB at any time after the start, the same once reduced. Router CPU per call within this
 *   machine's noise.
 * - `--liftoff-only`: the embedded store's WebAssembly (PGlite) runs on V8's baseline compiler only. On Node 24 the
 *   optimizing compiler took the start's resident memory to 710–740 MiB for a moment (peak RSS, `VmHWM`), enough
 *   for a container's memory limit to kill the router as it starts; with the flag it peaks at 180 MiB and idles a
 *   few MiB lower. The store's queries run about a third slower, none of them on a call's path: router CPU per
 *   call 1.003 × without it (three simultaneous rounds at c16, audit trail on). Node 20 peaked at 145 MiB either way.
 *
 * V8 reads them only when it starts: `v8.setFlagsFromString` in a running router has no effect.
 */
export const ROUTER_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=8", "--liftoff-only"];

/**
 * glibc malloc settings for the router: fixed thresholds instead of the default, growing ones, so that the memory
 * freed after the start's peaks (the embedded store's setup) is returned instead of kept. Idle, measured: Node 24
 * 219 → 148 MiB, Node 20 about 6 MiB less (docs/performance.md, sixth pass). Other C libraries ignore them; values
 * already in the environment win where the launcher says so.
 */
export const ROUTER_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: "131072",
  MALLOC_TRIM_THRESHOLD_: "131072",
};
