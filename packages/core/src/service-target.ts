/** The kinds of capability service, as Wanaku names them. */
export type ServiceType = "tool-invoker" | "resource-provider" | "multi-capability" | "code-execution-engine";

/** Every {@link ServiceType}, in a stable order. */
export const SERVICE_TYPES: readonly ServiceType[] = [
  "tool-invoker",
  "resource-provider",
  "multi-capability",
  "code-execution-engine",
];

/** True when `value` names a {@link ServiceType}. */
export function isServiceType(value: unknown): value is ServiceType {
  return typeof value === "string" && (SERVICE_TYPES as readonly string[]).includes(value);
}

/** The protocol a service speaks when its registration names none (every Wanaku capability). */
export const DEFAULT_PROTOCOL = "grpc";

/**
 * A registered capability service: Wanaku's `ServiceTarget` JSON plus Trestle's optional fields.
 * A Wanaku capability never sends the Trestle fields, so each has a default.
 */
export interface ServiceTarget {
  /** Registration id, assigned by the router on first registration. */
  id: string;
  /** The service name; a tool's `type` routes to the service of that name. */
  serviceName: string;
  /** Host the service listens on. */
  host: string;
  /** Port the service listens on. */
  port: number;
  /** What the service offers. */
  serviceType: ServiceType;
  /** Engine type, for code execution engines. */
  serviceSubType?: string;
  /** Language name, for code execution engines. */
  languageName?: string;
  /** Language type, for code execution engines. */
  languageType?: string;
  /** Language sub-type, for code execution engines. */
  languageSubType?: string;
  /** Which transport serves it: `"grpc"` (the default), `"connect"`, `"mcp"`, or a custom transport's name. */
  protocol?: string;
  /**
   * Which dialect of its protocol's wire the service speaks, named as the transport of {@link protocol} names them
   * (the gRPC transport: `"v1"` or `"legacy"`, see `WanakuDialect` in `@trestle/wanaku`); absent: the transport's
   * default.
   */
  dialect?: string;
}

/** `host:port` of a target, with IPv6 hosts bracketed. */
export function targetAddress(target: Pick<ServiceTarget, "host" | "port">): string {
  const host = target.host.includes(":") && !target.host.startsWith("[") ? `[${target.host}]` : target.host;
  return `${host}:${target.port}`;
}
