import { relative, resolve } from "node:path";
import type { Command } from "commander";
import { SERVER_VERSION } from "../version.js";
import { CliError } from "./cli-error.js";
import type { CliIo } from "./context.js";
import { transportNames } from "./scaffold/transport-names.js";
import { renderTransportPackage } from "./scaffold/transport-package.js";
import { loadTransportTemplate } from "./scaffold/transport-template.js";
import { writePackage } from "./scaffold/write-package.js";

/**
 * `trestle new transport NAME [--dir DIR]`: writes a ready-to-publish transport plugin package, derived from the
 * worked example this server was built with, and says what to do next. Works offline; talks to no router.
 */
export function addNewCommand(program: Command, io: CliIo): void {
  const group = program.command("new").description("Start a new package from a template (transport)");
  group
    .command("transport")
    .description("Write a transport plugin package: transport, capability server, kit test, README")
    .argument(
      "<name>",
      "the protocol (kafka → trestle-transport-kafka) or a scoped package name (@acme/kafka)",
    )
    .option("--dir <dir>", "where to write it (default: ./<package name without its scope>); must be empty")
    .action((name: string, options: { dir?: string }) => {
      const names = transportNames(name);
      if (!names)
        throw new CliError(
          `"${name}" is not a transport name: use lower-case words of letters and digits joined by dashes, starting with a letter (kafka, my-queue), optionally scoped (@acme/kafka).`,
          2,
        );
      const directory = resolve(options.dir ?? names.directory);
      const files = renderTransportPackage(loadTransportTemplate(), names, `^${SERVER_VERSION}`);
      writePackage(directory, files);
      const shown = relative(process.cwd(), directory) || ".";
      io.stdout.write(
        `Wrote ${names.packageName} (protocol "${names.protocol}", ${files.size} files) in ${directory}\n\n` +
          `Next:\n  cd ${shown}\n  npm install\n  npm test          # the transport kit passes against the template's wire\n` +
          `Then replace the HTTP+JSON wire in src/ with yours; README.md says what to change and how to publish.\n`,
      );
    });
}
