// A capability server in a process of its own, from the package's build, for test/lazy-modules.test.ts: prints
// {"port":…} on stdout once listening, closes on SIGTERM.
import { createCapabilityServer } from "../../dist/index.js";

const server = createCapabilityServer({
  toolInvoker: (request) => ({ content: [`hello ${request.body}`] }),
});
const { port } = await server.listen();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.once("SIGTERM", () => {
  void server.close().then(() => process.exit(0));
});
