#!/usr/bin/env node
import { stopOnSignals } from "@trestle/capability";
import { EXEC_USAGE, parseExecCommandLine } from "./cli-options.js";
import { startExecService } from "./start-exec-service.js";

let options: ReturnType<typeof parseExecCommandLine>;
try {
  options = parseExecCommandLine(process.argv.slice(2), process.env);
} catch (error) {
  process.stderr.write(`trestle-exec: ${(error as Error).message}\n\n${EXEC_USAGE}\n`);
  process.exit(2);
}
if (options === "help") {
  process.stdout.write(`${EXEC_USAGE}\n`);
  process.exit(0);
}

let service: Awaited<ReturnType<typeof startExecService>>;
try {
  service = await startExecService({
    ...options,
    onRegistrationEvent(event, language) {
      const { error, ...rest } = event as typeof event & { error?: Error };
      const line = {
        event: "registration",
        service: "exec",
        language,
        ...rest,
        ...(error ? { error: error.message } : {}),
      };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    },
  });
} catch (error) {
  process.stderr.write(`trestle-exec: could not start: ${(error as Error).message}\n`);
  process.exit(1);
}
// One JSON line on stdout, read by tests and by the router's launcher to learn the port.
process.stdout.write(
  `${JSON.stringify({
    event: "ready",
    service: "exec",
    host: service.host,
    port: service.port,
    engine: service.engineName,
    languages: service.languages,
  })}\n`,
);
stopOnSignals(() => service.close());
