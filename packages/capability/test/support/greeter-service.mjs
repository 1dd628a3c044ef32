// A capability service as a program, on serveCapability, for test/serve-capability.test.ts. It runs from the
// package's build, as a published service would.
import { serveCapability } from "../../dist/index.js";

await serveCapability({
  name: "greeter",
  heartbeatIntervalMs: 100,
  cli: {
    program: "greeter",
    defaultHome: "./.trestle/services/greeter",
    flags: {
      greeting: { type: "string", placeholder: "TEXT", description: "what to say, default Hello" },
      "refuse-to-start": { type: "boolean", description: "fail while starting, as a broken sandbox would" },
    },
    options: (flags) => ({ greeting: flags.greeting ?? "Hello", refuse: flags["refuse-to-start"] ?? false }),
  },
  handlers({ greeting, refuse, home }) {
    if (refuse) throw new Error(`refusing to start in ${home}`);
    return {
      toolInvoker: (request) => ({ content: [`${greeting}, ${request.arguments.name}!`] }),
      names: ["en", "fr"],
    };
  },
  registration: (_setup, served) =>
    served.names.map((language) => ({
      serviceName: "greeter",
      serviceType: "tool-invoker",
      languageName: language,
      idFile: `service-${language}.id`,
      eventFields: { language },
    })),
  ready: (served) => ({ languages: served.names }),
});
