import type { ServiceTarget, ServiceType } from "@trestle/core";
import { SERVICE_TYPES } from "@trestle/core/routing";
import { z } from "zod";
import { idSchema, nameSchema } from "./catalog-schemas.js";
import { parseOrThrow } from "./validation.js";

/** A registration as a capability sends it: a `ServiceTarget` whose `id` is absent (or null) the first time. */
export type ServiceRegistration = Omit<ServiceTarget, "id"> & { id?: string | null };

const HOST =
  /^(\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*|[A-Za-z0-9_]([A-Za-z0-9_.-]{0,251}[A-Za-z0-9_])?)$/;
const TOKEN = z
  .string()
  .max(128, "must be at most 128 characters")
  .regex(/^[A-Za-z0-9_.+#-]*$/, "must consist of A-Z, a-z, 0-9, '_', '.', '+', '#' and '-'");

/** Turns Wanaku's `null` for "not set" into absent, so stored targets carry only set fields. */
function optional<T extends z.ZodType>(schema: T) {
  return z
    .union([z.null(), schema])
    .optional()
    .transform((v) => (v === null || v === "" ? undefined : v));
}

/** A registration as a capability sends it (`ServiceRegistration` in the management API). */
export const registrationSchema = z
  .object({
    id: optional(idSchema),
    serviceName: nameSchema,
    host: z
      .string()
      .min(1, "must not be empty")
      .max(253, "must be at most 253 characters")
      .regex(HOST, "must be a host name or an IP address"),
    port: z
      .number()
      .int("must be a whole number")
      .min(1, "must be 1 to 65535")
      .max(65535, "must be 1 to 65535"),
    serviceType: z.enum(SERVICE_TYPES as [ServiceType, ...ServiceType[]], {
      message: `must be one of ${SERVICE_TYPES.join(", ")}`,
    }),
    serviceSubType: optional(TOKEN),
    languageName: optional(TOKEN),
    languageType: optional(TOKEN),
    languageSubType: optional(TOKEN),
    protocol: optional(
      z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, "must be a lower-case protocol name such as 'grpc'"),
    ),
    dialect: optional(z.enum(["v1", "legacy"], { message: "must be 'v1' or 'legacy'" })),
  })
  .meta({ id: "ServiceRegistration" });

/**
 * Validates a registration as a capability sends it (Wanaku's `ServiceTarget` JSON, Trestle's optional fields
 * absent or set). `null` and "" stand for "not set".
 *
 * @throws TrestleError `InvalidArgument` naming each bad field.
 */
export function parseRegistration(input: unknown): ServiceRegistration {
  return parseOrThrow(registrationSchema, input, "service registration", 16_384) as ServiceRegistration;
}
