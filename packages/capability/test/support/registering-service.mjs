// A registration in a process of its own, from the package's build, for test/lazy-modules.test.ts: registers
// with the router named on the command line, heartbeats a few times, deregisters, then prints the Node built-in
// modules it loaded whose name contains "undici" (the global fetch's HTTP client) as {"undici":[…]}.
import { createRegistrationClient } from "../../dist/index.js";

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
const undici = process.moduleLoadList.filter((name) => name.includes("undici"));
process.stdout.write(`${JSON.stringify({ undici })}\n`);
