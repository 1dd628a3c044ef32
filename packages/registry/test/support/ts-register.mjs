// `node --import ./ts-register.mjs`: installs the TypeScript hooks for a child process.
import { register } from "node:module";

register("./ts-hooks.mjs", import.meta.url);
