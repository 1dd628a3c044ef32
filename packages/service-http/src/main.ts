#!/usr/bin/env node
import { stopOnSignals } from "@trestle/capability";
import { HTTP_USAGE, parseHttpCommandLine } from "./cli-options.js";
import { startHttpService } from "./start-http-service.js";

let options: ReturnType<typeof parseHttpCommandLine>;
try {
  options = parseHttpCommandLine(process.argv.slice(2), process.env);
} catch (error) {
  process.stderr.write(`trestle-http: ${(error as Error).message}\n\n${HTTP_USAGE}\n`);
  process.exit(2);
}
if (options === "help") {
  process.stdout.write(`${HTTP_USAGE}\n`);
  process.exit(0);
}

let service: Awaited<ReturnType<typeof startHttpService>>;
try {
  service = await startHttpService({
    ...options,
    onRegistrationEvent(event) {
      const { error, ...rest } = event as typeof event & { error?: Error };
      const line = {
        event: "registration",
        service: "http",
        ...rest,
        ...(error ? { error: error.message } : {}),
      };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    },
  });
} catch (error) {
  process.stderr.write(`trestle-http: could not start: ${(error as Error).message}\n`);
  process.exit(1);
}
// One JSON line on stdout, read by tests and by the router's launcher to learn the port.
process.stdout.write(
  `${JSON.stringify({ event: "ready", service: "http", host: service.host, port: service.port })}\n`,
);
stopOnSignals(() => service.close());
