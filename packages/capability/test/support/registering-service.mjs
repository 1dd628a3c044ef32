// A registration in a process of its own, from the package's build, for test/lazy-modules.test.ts: registers
// with the router named on the command line, heartbeats a few times, deregisters, then prints the Node built-in
// modules whose name contains "undici" (the global fetch's HTTP client) it had loaded once `node:http` was imported
// (on Node 22 and 24 an ESM import of `node:http` loads undici itself) and at the end, as
// {"withHttp":[…],"atEnd":[…]}.
await import("node:http");
const undici = () => process.moduleLoadList.filter((name) => name.includes("undici"));
const withHttp = undici();
const { createRegistrationClient } = await import("../../dist/index.js");

const registration = createRegistrationClient({
  routerUrl: process.argv[2],
  token: process.argv[3],
  target: { serviceName: "traced", host: "127.0.0.1", port: 9, serviceType: "tool-invoker" },
  heartbeatIntervalMs: 20,
});
registration.start();
await registration.ready();
await new Promise((resolve) => setTimeout(resolve, 100));
await registration.stop();
process.stdout.write(`${JSON.stringify({ withHttp, atEnd: undici() })}\n`);
