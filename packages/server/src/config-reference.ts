import type { z } from "zod";
import { configSources, routerConfigSchema } from "./config.js";

function describeDefault(schema: z.ZodType): string {
  const def = (schema as unknown as { def: { type: string; defaultValue?: unknown; innerType?: z.ZodType } })
    .def;
  if (def.type === "default") {
    const value =
      typeof def.defaultValue === "function" ? (def.defaultValue as () => unknown)() : def.defaultValue;
    return `\`${JSON.stringify(value)}\``;
  }
  return "—";
}

/**
 * The configuration reference as a markdown table: every key with its environment variable, flag, default and
 * meaning, generated from the schema that validates the configuration, so the documentation cannot drift from it.
 */
export function renderConfigReference(): string {
  const rows = ["| key | environment | flag | default | meaning |", "|---|---|---|---|---|"];
  for (const [key, schema] of Object.entries(routerConfigSchema.shape as Record<string, z.ZodType>)) {
    const source = configSources[key];
    rows.push(
      `| \`${key}\` | ${source ? `\`${source.env}\`` : "—"} | ${source?.flag ? `\`${source.flag}\`` : "—"} | ${describeDefault(schema)} | ${schema.description ?? ""} |`,
    );
  }
  return rows.join("\n");
}
