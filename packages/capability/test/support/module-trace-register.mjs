// Preloaded with `node --import`: records the URL of every module the process loads through the ESM loader (its own
// modules and the entry points of the packages it imports) in the file named by TRESTLE_MODULE_TRACE, one a line.
import { register } from "node:module";

register(new URL("./module-trace-hooks.mjs", import.meta.url));
