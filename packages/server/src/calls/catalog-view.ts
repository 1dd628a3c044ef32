import type { PromptReference, ResourceReference, ToolReference } from "@trestle/core";
import type { Namespace } from "@trestle/core/catalog";

/**
 * The reads the MCP endpoint makes on the catalog: all from memory, none on the database. The registry's
 * catalog implements it.
 */
export interface CatalogView {
  listTools(namespace: string): readonly ToolReference[];
  getTool(namespace: string, name: string): ToolReference | undefined;
  listResources(namespace: string): readonly ResourceReference[];
  getResource(namespace: string, location: string): ResourceReference | undefined;
  listPrompts(namespace: string): readonly PromptReference[];
  getPrompt(namespace: string, name: string): PromptReference | undefined;
  getNamespace(name: string): Namespace | undefined;
}

/** A code execution engine and one language it runs, as registered. */
export interface EngineLanguage {
  engineType: string;
  language: string;
}
