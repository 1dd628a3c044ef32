#!/usr/bin/env node
// Measures the CPU cost of policy decisions: µs per decision with five rules, by hand (not a test, not CI).
// Run `pnpm build` in this package first, then `node scripts/bench-policy.mjs`.
import { compilePolicies } from "../dist/index.js";

const rules = [
  {
    name: "team-b-tools",
    effect: "deny",
    when: 'tool.name.startsWith("b_") && !("team-b" in principal.groups)',
  },
  { name: "large-payments", effect: "deny", when: 'tool.name == "pay" && arguments.amount > 100' },
  { name: "prod-ops-only", effect: "deny", when: 'ns == "prod" && !("ops" in principal.groups)' },
  {
    name: "risky-tools",
    effect: "deny",
    when: '"risk" in tool.labels && tool.labels.risk == "high" && !("admin" in principal.scopes)',
  },
  { name: "outsiders", effect: "deny", when: '!principal.claims.email.endsWith("@example.com")' },
];
const policy = compilePolicies(rules);

// A principal as @trestle/auth makes it from a JWT: the same frozen object for every request with that token.
const principal = Object.freeze({
  name: "alice",
  groups: ["team-a", "dev"],
  scopes: ["mcp"],
  claims: {
    iss: "https://idp.example.com",
    sub: "alice",
    aud: "https://mcp.example.com/mcp",
    email: "alice@example.com",
    groups: ["team-a", "dev"],
    scope: "mcp",
    iat: 1_800_000_000,
    exp: 1_800_000_600,
  },
});
const tool = Object.freeze({ name: "pay", labels: { risk: "low" } });
const callInput = {
  principal,
  namespace: "default",
  method: "tools/call",
  tool,
  arguments: { amount: 50, currency: "EUR" },
};

function measure(label, run) {
  const warm = 20_000;
  const rounds = 200_000;
  for (let i = 0; i < warm; i++) run(i);
  const cpuBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) run(i);
  const wallUs = Number(process.hrtime.bigint() - start) / 1000 / rounds;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuUs = (cpu.user + cpu.system) / rounds;
  console.log(
    `${label.padEnd(64)} ${wallUs.toFixed(2).padStart(6)} µs wall  ${cpuUs.toFixed(2).padStart(6)} µs CPU`,
  );
}

const check = policy.decideCall(callInput);
if (check.effect !== "allow") throw new Error(`unexpected decision ${JSON.stringify(check)}`);

measure("decideCall, 5 rules, none matches (all evaluated)", () => policy.decideCall(callInput));
measure("decideCall, 5 rules, a fresh input object per call", () =>
  policy.decideCall({ ...callInput, arguments: { amount: 50, currency: "EUR" } }),
);
measure("decideCall, 5 rules, a new principal object per call (no cache)", () =>
  policy.decideCall({ ...callInput, principal: { ...principal } }),
);
measure("decideCall, 5 rules, the 2nd rule denies (amount 150)", () =>
  policy.decideCall({ ...callInput, arguments: { amount: 150 } }),
);
const tools = Array.from({ length: 100 }, (_, i) =>
  Object.freeze({ name: i % 10 === 0 ? `b_tool${i}` : `tool${i}`, labels: {} }),
);
measure("decideList, 5 rules, per tool (100-tool catalog, round robin)", (i) =>
  policy.decideList({ principal, namespace: "default", method: "tools/list", tool: tools[i % 100] }),
);
measure(
  "baseline: compilePolicies([]).decideCall",
  (() => {
    const empty = compilePolicies([]);
    return () => empty.decideCall(callInput);
  })(),
);
