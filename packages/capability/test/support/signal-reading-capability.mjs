// A capability server in a process of its own, from the package's build, for test/lazy-modules.test.ts. It requires
// a call secret, and its tool handler reads the call's signal (as one that passes it on to its own I/O does); the
// body "fail" makes it throw a TrestleError, and the body "report" answers with the Node built-in modules whose name
// contains "undici" (the global fetch's HTTP client, ~6 MiB resident) loaded once the server's own modules were, and
// now, as {"atStart":[…],"now":[…]}. Prints {"port":…} on stdout once listening; closes on SIGTERM.
const { createCapabilityServer } = await import("../../dist/index.js");
const { Code, TrestleError } = await import("@trestle/core");
const undici = () => process.moduleLoadList.filter((name) => name.includes("undici"));
const atStart = undici();

const server = createCapabilityServer({
  callSecret: "s3cret",
  toolInvoker: async (request, context) => {
    if (!(context.signal instanceof AbortSignal)) throw new Error("no signal");
    if (request.body === "fail") throw new TrestleError("the upstream said no", Code.NotFound);
    if (request.body === "report") {
      // The calls before this one are over on the client's side; their streams' `close` comes just after.
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { content: [JSON.stringify({ atStart, now: undici() })] };
    }
    return { content: [`hello ${request.body}`] };
  },
});
const { port } = await server.listen();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.once("SIGTERM", () => {
  void server.close().then(() => process.exit(0));
});
