#!/usr/bin/env node
// Measures the CPU cost of authenticating a request: a static token, a JWT verified by the verifier (first
// time: signature check; then: the verified-token cache), by hand (not a test, not CI).
// Run `pnpm build` in this package first, then `node scripts/bench-verify.mjs`.
import { createServer } from "node:http";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { createOAuthVerifier, createResourceServer } from "../dist/index.js";

const RESOURCE = "https://mcp.example.com/mcp";
const keys = {};
for (const alg of ["RS256", "ES256", "EdDSA"]) keys[alg] = await generateKeyPair(alg, { extractable: true });
const jwks = { keys: [] };
for (const [alg, pair] of Object.entries(keys))
  jwks.keys.push({ ...(await exportJWK(pair.publicKey)), kid: alg, alg });
const server = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(jwks));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const issuer = "https://idp.example.com";
const jwksUri = `http://127.0.0.1:${server.address().port}/jwks`;

const sign = (alg, sub) =>
  new SignJWT({ iss: issuer, sub, aud: RESOURCE, scope: "mcp", groups: ["team-a"] })
    .setProtectedHeader({ alg, kid: alg })
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(keys[alg].privateKey);

async function measure(label, rounds, run) {
  for (let i = 0; i < Math.min(rounds, 2000); i++) await run(i);
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < rounds; i++) await run(i);
  const cpu = process.cpuUsage(cpuBefore);
  console.log(`${label.padEnd(60)} ${((cpu.user + cpu.system) / rounds).toFixed(1).padStart(7)} µs CPU`);
}

const resourceServer = createResourceServer({
  publicUrl: "https://mcp.example.com",
  tokens: [{ name: "ops", token: "a-static-token-of-forty-characters-long!", scopes: ["mcp"] }],
  oauth: createOAuthVerifier({ issuers: [{ issuer, jwksUri }], allowInsecureHttp: true }),
});
const mcp = resourceServer.endpoint("/mcp", { scopes: ["mcp"] });
await measure("static token", 50_000, () =>
  resourceServer.authenticate("Bearer a-static-token-of-forty-characters-long!", mcp),
);
for (const alg of Object.keys(keys)) {
  const cached = `Bearer ${await sign(alg, "alice")}`;
  await measure(`${alg} JWT, the same token again (verified-token cache)`, 50_000, () =>
    resourceServer.authenticate(cached, mcp),
  );
  const fresh = await Promise.all(Array.from({ length: 3000 }, (_, i) => sign(alg, `user-${i}`)));
  const uncached = createResourceServer({
    publicUrl: "https://mcp.example.com",
    oauth: createOAuthVerifier({
      issuers: [{ issuer, jwksUri }],
      allowInsecureHttp: true,
      verifiedCacheSeconds: 0,
    }),
  });
  await measure(`${alg} JWT, signature verified every time`, 3000, (i) =>
    uncached.authenticate(`Bearer ${fresh[i % fresh.length]}`, mcp),
  );
}
server.close();
