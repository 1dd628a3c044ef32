/**
 * Test data for tool search and code mode: a deterministic generator of realistic tool catalogs (up to about
 * 11,000 tools over some 200 products), shaped as MCP `tools/list` lists tools. Use it from tests and
 * measurements only.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_CATALOG_SEED,
  type GeneratedSchema,
  type GeneratedTool,
  generateToolCatalog,
  type ToolCatalogOptions,
  toolCatalogCapacity,
} from "./catalog-generator.js";
export { createSeededRandom, type SeededRandom } from "./seeded-random.js";
