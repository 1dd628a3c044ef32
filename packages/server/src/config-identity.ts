import { z } from "zod";
import { rulesProblems } from "./policies/policy-engine.js";

/**
 * The configuration keys of identity and authorization: the router's public URL, the OAuth issuers it trusts as a
 * resource server, the policy rules, and each upstream's own credential. Their schemas are spread into the router's
 * config schema (so the reference documents them with the rest); the checks that span keys are here.
 */

const httpsOrLoopbackUrl = z
  .string()
  .url()
  .refine((text) => /^https:\/\//i.test(text) || /^http:\/\/(localhost|127\.|\[::1\])/i.test(text), {
    message: "must be an https URL (http only on loopback)",
  });

const issuerSchema = z.strictObject({
  issuer: httpsOrLoopbackUrl.describe("The issuer identifier, exactly as tokens carry it in iss"),
  jwksUri: httpsOrLoopbackUrl
    .optional()
    .describe("Its JWKS URL; discovered (RFC 8414, then OIDC) when absent"),
  audiences: z
    .array(z.string().min(1))
    .optional()
    .describe("Audiences a token must name; default the endpoint's canonical URI and publicUrl"),
  algorithms: z
    .array(z.string())
    .optional()
    .describe("Accepted signing algorithms; default every asymmetric one (none and HMAC are never accepted)"),
  claims: z
    .strictObject({
      principal: z.string().optional().describe("Claim naming the principal (default sub)"),
      groups: z
        .string()
        .optional()
        .describe("Claim holding the groups (default groups; a dotted path works)"),
      scopes: z.string().optional().describe("Claim holding the scopes (default scope, then scp)"),
    })
    .optional(),
  introspection: z
    .strictObject({
      endpoint: httpsOrLoopbackUrl.optional(),
      clientId: z.string().min(1),
      clientSecret: z.string().min(1),
      authMethod: z.enum(["client_secret_basic", "client_secret_post"]).optional(),
      requireAudience: z.boolean().optional(),
    })
    .optional()
    .describe("RFC 7662 introspection of opaque tokens (at most one issuer)"),
});

const policyRuleSchema = z.strictObject({
  name: z.string().min(1).describe("Unique; refusals name it"),
  effect: z.enum(["allow", "deny"]),
  when: z
    .string()
    .min(1)
    .describe("A CEL expression over principal, ns, method, tool, resource, prompt, arguments"),
});

/** A credential of the router's own for one upstream: static, or exchanged for each caller (RFC 8693). */
export const upstreamAuthSchema = z
  .union([
    z.strictObject({
      static: z
        .strictObject({
          header: z.string().min(1).default("authorization").describe("The header (metadata) it goes in"),
          value: z.string().min(1).describe("Its value, e.g. 'Bearer …'"),
        })
        .describe("The same credential for every caller"),
    }),
    z.strictObject({
      tokenExchange: z
        .strictObject({
          tokenEndpoint: httpsOrLoopbackUrl,
          clientId: z.string().min(1),
          clientSecret: z.string().min(1),
          clientAuth: z.enum(["client_secret_basic", "client_secret_post"]).optional(),
          audience: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
          resource: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
          scope: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
        })
        .describe("RFC 8693: the caller's OAuth token exchanged for one meant for this upstream"),
    }),
  ])
  .describe(
    "The router's credential for this upstream: static, or tokenExchange (the client's token never goes on)",
  );

/** Identity settings of one service (`services.<name>`). */
export const serviceIdentityFields = {
  upstreamAuth: upstreamAuthSchema.optional(),
};

/** The router's keys for identity and authorization. */
export const identityConfigFields = {
  publicUrl: httpsOrLoopbackUrl
    .optional()
    .describe(
      "The router's canonical external URL (https://mcp.example.com): OAuth audiences and metadata, A2A cards",
    ),
  oauth: z
    .strictObject({
      issuers: z.array(issuerSchema).min(1).describe("The issuers whose access tokens are accepted"),
      scopeMap: z
        .record(z.string(), z.array(z.enum(["mcp", "admin", "register"])))
        .optional()
        .describe("OAuth scope value → router scopes; default: mcp, admin and register grant themselves"),
      jwksCooldownMs: z
        .number()
        .int()
        .min(1_000)
        .max(600_000)
        .optional()
        .describe(
          "The least time between two fetches of an issuer's keys, when a token names a key the router does not know (default 30000)",
        ),
    })
    .optional()
    .describe(
      "The router as an OAuth 2.1 resource server (needs publicUrl); static tokens keep working beside it",
    ),
  policies: z
    .array(policyRuleSchema)
    .default([])
    .describe(
      "Access rules in CEL, first match decides ({name, effect: allow|deny, when}); at list time rules that read arguments do not hide a tool",
    ),
  policyDefault: z.enum(["allow", "deny"]).default("allow").describe("What decides when no rule matches"),
};

/** How each of {@link identityConfigFields} is set from the environment. */
export const identityConfigSources: Record<keyof typeof identityConfigFields, { env: string }> = {
  publicUrl: { env: "TRESTLE_PUBLIC_URL" },
  oauth: { env: "TRESTLE_OAUTH" },
  policies: { env: "TRESTLE_POLICIES" },
  policyDefault: { env: "TRESTLE_POLICY_DEFAULT" },
};

/** What {@link identityConfigProblems} reads of a validated configuration. */
export interface IdentityConfig {
  publicUrl?: string | undefined;
  oauth?: { issuers: readonly { introspection?: unknown }[] } | undefined;
  policies: readonly { name: string; effect: "allow" | "deny"; when: string }[];
  tokens: readonly { name: string }[];
  services?: Readonly<Record<string, { upstreamAuth?: unknown }>>;
}

/**
 * Problems that span keys, one sentence each: OAuth without `publicUrl` (its audiences and metadata need it), two
 * issuers introspecting (an opaque token names no issuer), a token name an OAuth principal could also have, a
 * service's token exchange without OAuth (no caller would have a token to exchange). The policy rules are checked
 * by {@link policyConfigProblems}.
 */
export function identityConfigProblems(config: IdentityConfig): string[] {
  const problems: string[] = [];
  if (config.oauth && config.publicUrl === undefined)
    problems.push("oauth: needs publicUrl, the router's canonical URL that tokens must be issued for");
  if (config.oauth && config.oauth.issuers.filter((i) => i.introspection !== undefined).length > 1)
    problems.push("oauth.issuers: at most one issuer may introspect opaque tokens (a token names no issuer)");
  for (const token of config.tokens) {
    // An OAuth principal's id is `<issuer>#<subject>`: a token name with '#' could stand for one.
    if (token.name.includes("#")) problems.push(`tokens: the name '${token.name}' must not contain '#'`);
  }
  for (const [name, service] of Object.entries(config.services ?? {})) {
    const auth = service.upstreamAuth;
    // A token exchange takes the caller's OAuth access token as its subject: without OAuth, no caller has one.
    if (auth !== null && typeof auth === "object" && "tokenExchange" in auth && !config.oauth)
      problems.push(
        `services.${name}.upstreamAuth.tokenExchange: needs oauth, since it exchanges each caller's OAuth access token`,
      );
  }
  return problems;
}

/**
 * True when requests need a credential: static tokens or OAuth are configured. Every default that says "with
 * tokens configured" (closed scopes, the default rate limit, private list caching, forwarded credential headers
 * refused) holds for OAuth alike.
 */
export function requiresCredentials(config: { tokens: readonly unknown[]; oauth?: unknown }): boolean {
  return config.tokens.length > 0 || config.oauth !== undefined;
}

/**
 * The problems of the configured policy rules, one sentence each: a rule that does not compile (naming the rule and
 * the position) or a name used twice. Asynchronous because it loads the policy engine, and only when there is a rule.
 */
export async function policyConfigProblems(policies: readonly unknown[]): Promise<string[]> {
  return (await rulesProblems(policies)).map((message) => `policies: ${message}`);
}
