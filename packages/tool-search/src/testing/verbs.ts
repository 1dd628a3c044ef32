import type { StandardVerb } from "./catalog-spec.js";

/** How a standard verb is phrased and what it takes. */
export interface StandardVerbSpec {
  /** Description variants; one is picked per tool. `{plural}`, `{noun}`, `{product}`, `{where}` are filled in. */
  templates: readonly string[];
  /** Whether the noun is plural in the tool's name (`list_issues`). */
  pluralName: boolean;
  /** Whether it acts on one existing item and so takes the item's id. */
  onItem: boolean;
  readOnly: boolean;
  destructive: boolean;
}

/** The standard verbs' phrasing. `{where}` is "a GitHub repository" for a nested entity, else "GitHub". */
export const STANDARD_VERBS: Readonly<Record<StandardVerb, StandardVerbSpec>> = {
  list: {
    templates: [
      "Lists {plural} in {where}, newest first.",
      "Returns a page of {plural} from {where}, optionally filtered.",
      "Retrieves the {plural} in {where}. Results are paginated: pass the cursor from the previous page.",
    ],
    pluralName: true,
    onItem: false,
    readOnly: true,
    destructive: false,
  },
  search: {
    templates: [
      "Searches {product} {plural} with a text query and returns the best matches.",
      "Full-text search across the {plural} in {where}.",
      "Finds {plural} in {where} whose text matches a query.",
    ],
    pluralName: true,
    onItem: false,
    readOnly: true,
    destructive: false,
  },
  get: {
    templates: [
      "Gets one {noun} from {product} by its ID.",
      "Returns the details of a {product} {noun}.",
      "Fetches a single {noun} in {where}, with all its fields.",
    ],
    pluralName: false,
    onItem: true,
    readOnly: true,
    destructive: false,
  },
  create: {
    templates: [
      "Creates a new {noun} in {where}.",
      "Adds a {noun} to {where} and returns it.",
      "Creates a {product} {noun} from the given fields.",
    ],
    pluralName: false,
    onItem: false,
    readOnly: false,
    destructive: false,
  },
  update: {
    templates: [
      "Updates an existing {noun} in {product}; fields left out are unchanged.",
      "Changes the fields of a {product} {noun}.",
      "Edits a {noun} in {where}.",
    ],
    pluralName: false,
    onItem: true,
    readOnly: false,
    destructive: false,
  },
  delete: {
    templates: [
      "Deletes a {noun} from {product}. This cannot be undone.",
      "Permanently removes a {product} {noun}.",
      "Deletes the {noun} with the given ID in {where}.",
    ],
    pluralName: false,
    onItem: true,
    readOnly: false,
    destructive: true,
  },
  count: {
    templates: [
      "Counts the {plural} in {where} that match the filters.",
      "Returns how many {plural} {where} holds, without listing them.",
    ],
    pluralName: true,
    onItem: false,
    readOnly: true,
    destructive: false,
  },
  archive: {
    templates: [
      "Archives a {noun} in {product}: it is hidden from lists but kept, and can be restored.",
      "Moves a {product} {noun} to the archive.",
    ],
    pluralName: false,
    onItem: true,
    readOnly: false,
    destructive: false,
  },
  export: {
    templates: [
      "Exports the {plural} in {where} as a CSV or JSON file.",
      "Downloads {product} {plural} in bulk, as CSV or JSON.",
    ],
    pluralName: true,
    onItem: false,
    readOnly: true,
    destructive: false,
  },
};
