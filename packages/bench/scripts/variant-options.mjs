// What follows a variant's `|` in the A/B scripts, read one way for all of them: `node=PATH` (the node binary its
// router runs on), any number of `env=NAME=VALUE` (variables of its router's environment: `TRESTLE_*` settings), and
// node flags for its router, space-separated and in any order.

/**
 * A router's start options from the text after a variant's `|`: `{ node?, env?, nodeArgs? }`, each present only when
 * given (`startTrestle` takes them as they are). An empty or absent text gives `{}`.
 */
export function routerOptions(extra) {
  return routerOptionsOf((extra ?? "").split(" "));
}

/** {@link routerOptions} from parts already apart (a script's own arguments, whose values may hold spaces). */
export function routerOptionsOf(parts) {
  const options = {};
  const env = {};
  const nodeArgs = [];
  for (const part of parts) {
    if (part.startsWith("node=")) options.node = part.slice("node=".length);
    else if (part.startsWith("env=")) {
      const [name, ...value] = part.slice("env=".length).split("=");
      env[name] = value.join("=");
    } else if (part) nodeArgs.push(part);
  }
  if (Object.keys(env).length > 0) options.env = env;
  if (nodeArgs.length > 0) options.nodeArgs = nodeArgs;
  return options;
}
