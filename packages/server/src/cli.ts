#!/usr/bin/env node
import { TrestleError } from "@trestle/core";
import { runCli } from "./cli/program.js";

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  onInterrupt(listener) {
    process.once("SIGINT", listener);
    return () => process.off("SIGINT", listener);
  },
}).then(
  (code) => {
    // `serve` keeps running on its own handles; everything else ends here with its code.
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof TrestleError) {
      process.stderr.write(`trestle: ${error.rawMessage}\n`);
      process.exit(2);
    }
    process.stderr.write(`trestle: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
