import {
  api,
  echoTool,
  fixtureCapability,
  type RouterProcess,
  serviceHealthy,
  startNode,
  startRouter,
} from "./processes.js";

/** The tokens and settings of {@link startRouterWithPrincipals}. */
export interface PrincipalsRouterOptions {
  /** The token of the `ops` principal, scope `admin`. */
  adminToken: string;
  /** The token of the `fixtures` principal, scope `register`, that the fixture capability registers with. */
  registerToken: string;
  /** The `mcp` principals, by name, with their tokens (two, for a test of one principal against another). */
  principals: Readonly<Record<string, string>>;
  /** More arguments to `trestle serve` (`--builtins`). */
  args?: readonly string[];
  /** More environment for the router (`TRESTLE_POLICIES`). */
  env?: Readonly<Record<string, string>>;
}

/** A router started by {@link startRouterWithPrincipals}, with the headers its admin calls need. */
export interface RouterWithPrincipals {
  router: RouterProcess;
  /** `authorization: Bearer <admin token>`. */
  admin: { authorization: string };
}

/**
 * Starts a router whose callers are known by token: an admin (`ops`), the given `mcp` principals and a `register`
 * principal (`fixtures`); then the fixture capability as `fixture` (a tool-invoker), registered with the register
 * token from loopback, and waits until it is healthy; then adds its tool `echo_city` (`fixture://echo`, taking a
 * `city`). Stop it with `stopAll()`.
 */
export async function startRouterWithPrincipals(
  options: PrincipalsRouterOptions,
): Promise<RouterWithPrincipals> {
  const { adminToken, registerToken, principals } = options;
  const router = await startRouter(options.args ?? [], {
    TRESTLE_TOKENS: JSON.stringify([
      { name: "ops", token: adminToken, scopes: ["admin"] },
      ...Object.entries(principals).map(([name, token]) => ({ name, token, scopes: ["mcp"] })),
      { name: "fixtures", token: registerToken, scopes: ["register"] },
    ]),
    // The fixture registers from loopback with a register token: private addresses are for admins unless allowed.
    TRESTLE_REGISTRATION_ALLOWED_NETWORKS: "127.0.0.0/8",
    ...options.env,
  });
  // Started here rather than with startFixtureCapability, to give a loaded machine (built-ins starting beside
  // it) more time to start it.
  const fixture = startNode(fixtureCapability, [
    "--router",
    router.url,
    "--service-name",
    "fixture",
    "--service-type",
    "tool-invoker",
    "--token",
    registerToken,
  ]);
  await fixture.waitForLine((line) => line.includes('"ready"'), 120_000);
  const admin = { authorization: `Bearer ${adminToken}` };
  await serviceHealthy(router.url, "fixture", admin);
  await api(router.url, "POST", "/api/v1/tools", echoTool("echo_city", "fixture"), admin);
  return { router, admin };
}
