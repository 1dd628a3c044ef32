import { Code, TrestleError } from "@trestle/core";
import type { RegisteredService } from "@trestle/registry";
import { describe, expect, it } from "vitest";
import { createRegistrationPolicy, type RegistrationPolicyOptions } from "../src/registration-policy.js";

const TOKENS = [
  { name: "operator", scopes: ["admin"] },
  { name: "weather-team", scopes: ["register"] },
  { name: "other-team", scopes: ["register"] },
];
const team = { principal: "weather-team", admin: false };
const other = { principal: "other-team", admin: false };
const operator = { principal: "operator", admin: true };

/** Host names resolved without DNS: what each test says they resolve to. */
const NAMES: Record<string, string[]> = {
  "internal.example": ["10.20.30.40"],
  "mixed.example": ["93.184.216.34", "169.254.169.254"],
  "public.example": ["93.184.216.34"],
  localhost: ["127.0.0.1", "::1"],
};

function policy(options: Partial<RegistrationPolicyOptions> = {}) {
  return createRegistrationPolicy({
    tokens: TOKENS,
    services: {},
    allowedNetworks: [],
    resolve: async (host) => {
      const found = NAMES[host];
      if (!found) throw Object.assign(new Error(`no such host ${host}`), { code: "ENOTFOUND" });
      return found;
    },
    ...options,
  });
}

async function refusal(promise: Promise<unknown>): Promise<TrestleError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TrestleError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

function service(host: string, registeredBy: string | undefined, serviceName = "weather"): RegisteredService {
  return {
    id: "i-1",
    target: { id: "i-1", serviceName, host, port: 9000, serviceType: "tool-invoker" },
    health: "pending",
    healthChangedAt: 0,
    registeredAt: 0,
    lastSeenAt: 0,
    version: 1,
    ...(registeredBy === undefined ? {} : { registeredBy }),
  };
}

describe("registration addresses", () => {
  it.each([
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["[::1]", "loopback"],
    ["::ffff:169.254.169.254", "link-local (cloud metadata)"],
    ["64:ff9b::a9fe:a9fe", "NAT64"],
    ["fd00:ec2::254", "unique-local"],
    ["localhost", "loopback"],
    ["internal.example", "private"],
    ["mixed.example", "link-local"],
  ])("refuses a non-admin registration at %s (%s)", async (host, range) => {
    const refused = await refusal(policy().checkRegistration({ serviceName: "weather", host }, team));
    expect(refused.code).toBe(Code.PermissionDenied);
    expect(refused.rawMessage).toContain(range);
    expect(refused.rawMessage).toContain("'weather-team'");
    expect(refused.rawMessage).toContain("registrationAllowedNetworks or services.weather.allowedNetworks");
  });

  it("does not tell a register token what a host name resolves to", async () => {
    const refused = await refusal(
      policy().checkRegistration({ serviceName: "weather", host: "internal.example" }, team),
    );
    expect(refused.rawMessage).toContain("internal.example resolves to a private address");
    expect(refused.rawMessage).not.toContain("10.20.30.40");
  });

  it("lets a non-admin register at a public address, and an admin anywhere", async () => {
    const allowed = policy();
    await allowed.checkRegistration({ serviceName: "weather", host: "93.184.216.34" }, team);
    await allowed.checkRegistration({ serviceName: "weather", host: "public.example" }, team);
    await allowed.checkRegistration({ serviceName: "weather", host: "169.254.169.254" }, operator);
    await allowed.checkRegistration({ serviceName: "weather", host: "127.0.0.1" }, operator);
  });

  it("refuses a host name that does not resolve (closed unless shown to be allowed)", async () => {
    const refused = await refusal(
      policy().checkRegistration({ serviceName: "weather", host: "gone.example" }, team),
    );
    expect(refused.rawMessage).toContain("could not be resolved (ENOTFOUND)");
  });

  it("lets the operator open networks for every registration or for one service", async () => {
    const everywhere = policy({ allowedNetworks: ["10.0.0.0/8"] });
    await everywhere.checkRegistration({ serviceName: "weather", host: "internal.example" }, team);
    await refusal(everywhere.checkRegistration({ serviceName: "weather", host: "169.254.169.254" }, team));

    const perService = policy({ services: { weather: { allowedNetworks: ["127.0.0.0/8"] } } });
    await perService.checkRegistration({ serviceName: "weather", host: "127.0.0.1" }, team);
    // localhost resolves to ::1 as well, which the network does not cover.
    await refusal(perService.checkRegistration({ serviceName: "weather", host: "localhost" }, team));
    await refusal(perService.checkRegistration({ serviceName: "stocks", host: "127.0.0.1" }, team));
  });

  it("allows every address on a router without tokens, where every scope is open anyway", async () => {
    const open = policy({ tokens: [] });
    await open.checkRegistration(
      { serviceName: "weather", host: "127.0.0.1" },
      { principal: "anonymous", admin: false },
    );
    expect(await open.instanceRefusal(service("127.0.0.1", "anonymous"))).toBeUndefined();
  });

  it("lets the built-ins' principal register its reserved names on loopback only", async () => {
    const withBuiltins = policy({
      builtin: { principal: "trestle-builtins", serviceNames: ["http", "file"] },
    });
    const builtins = { principal: "trestle-builtins", admin: false };
    await withBuiltins.checkRegistration({ serviceName: "http", host: "127.0.0.1" }, builtins);
    await refusal(withBuiltins.checkRegistration({ serviceName: "http", host: "10.0.0.5" }, builtins));
    const squat = await refusal(
      withBuiltins.checkRegistration({ serviceName: "http", host: "93.184.216.34" }, other),
    );
    expect(squat.rawMessage).toBe("The service name 'http' is reserved for the router's built-in services");
    expect(withBuiltins.configuredOwner("file")).toBe("trestle-builtins");
  });
});

describe("configured owners", () => {
  const bound = () => policy({ services: { weather: { principal: "weather-team" } } });

  it("lets only the configured principal, or an admin, register under the name", async () => {
    await bound().checkRegistration({ serviceName: "weather", host: "93.184.216.34" }, team);
    await bound().checkRegistration({ serviceName: "weather", host: "93.184.216.34" }, operator);
    const refused = await refusal(
      bound().checkRegistration({ serviceName: "weather", host: "93.184.216.34" }, other),
    );
    expect(refused.code).toBe(Code.PermissionDenied);
    expect(refused.rawMessage).toMatch(/belongs to another credential/);
    expect(bound().configuredOwner("weather")).toBe("weather-team");
    expect(bound().configuredOwner("stocks")).toBeUndefined();
  });

  it("refuses to reach an instance of a configured name registered by another principal, or at a refused address", async () => {
    expect(await bound().instanceRefusal(service("93.184.216.34", "weather-team"))).toBeUndefined();
    expect(await bound().instanceRefusal(service("93.184.216.34", "operator"))).toBeUndefined();
    expect(await bound().instanceRefusal(service("93.184.216.34", "other-team"))).toMatch(
      /registered by 'other-team', but the service name belongs to 'weather-team'/,
    );
    // Registered before the address policy, or by a principal that is no admin any more.
    expect(await policy().instanceRefusal(service("127.0.0.1", "other-team", "stocks"))).toMatch(
      /^Not probed: 127\.0\.0\.1 is a loopback address/,
    );
    expect(await policy().instanceRefusal(service("internal.example", undefined, "stocks"))).toMatch(
      /private/,
    );
    expect(await policy().instanceRefusal(service("127.0.0.1", "operator", "stocks"))).toBeUndefined();
  });

  it("sends a configured call secret only to instances its owner or an admin registered", () => {
    expect(bound().mayReceiveCallSecret("weather", "weather-team")).toBe(true);
    expect(bound().mayReceiveCallSecret("weather", "operator")).toBe(true);
    expect(bound().mayReceiveCallSecret("weather", "other-team")).toBe(false);
    expect(bound().mayReceiveCallSecret("weather", undefined)).toBe(false);
    // Without a configured principal, the store keeps the name with its first registrant: a bound instance is
    // the owner's (or an admin's); an unbound one (from before registrations were bound) gets nothing.
    expect(policy().mayReceiveCallSecret("stocks", "other-team")).toBe(true);
    expect(policy().mayReceiveCallSecret("stocks", undefined)).toBe(false);
  });
});
