#!/usr/bin/env node
import { stopOnSignals } from "@trestle/capability";
import { FILE_USAGE, parseFileCommandLine } from "./cli-options.js";
import { startFileService } from "./start-file-service.js";

let options: ReturnType<typeof parseFileCommandLine>;
try {
  options = parseFileCommandLine(process.argv.slice(2), process.env);
} catch (error) {
  process.stderr.write(`trestle-file: ${(error as Error).message}\n\n${FILE_USAGE}\n`);
  process.exit(2);
}
if (options === "help") {
  process.stdout.write(`${FILE_USAGE}\n`);
  process.exit(0);
}

let service: Awaited<ReturnType<typeof startFileService>>;
try {
  service = await startFileService({
    ...options,
    onRegistrationEvent(event) {
      const { error, ...rest } = event as typeof event & { error?: Error };
      const line = {
        event: "registration",
        service: "file",
        ...rest,
        ...(error ? { error: error.message } : {}),
      };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    },
  });
} catch (error) {
  process.stderr.write(`trestle-file: could not start: ${(error as Error).message}\n`);
  process.exit(1);
}
// One JSON line on stdout, read by tests and by the router's launcher to learn the port.
process.stdout.write(
  `${JSON.stringify({ event: "ready", service: "file", host: service.host, port: service.port })}\n`,
);
stopOnSignals(() => service.close());
