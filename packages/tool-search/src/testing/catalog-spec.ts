/**
 * The shapes the generated catalog is described in: categories of products (GitHub, Jira, Stripe, …) that share
 * entities (issue, customer, …), each entity with its fields and the verbs a product offers on it.
 */

/** How a product's tool names are spelled. */
export type NameStyle = "snake" | "camel" | "pascal" | "kebab" | "dot";

/**
 * One field or argument: `[name, type, description]`. A name may end with markers: `!` required (on create, or
 * for a custom verb's argument), `?` offered as a filter when listing, searching, counting or exporting.
 *
 * Types: `string`, `integer`, `number`, `boolean`, `object`, `date`, `date-time`, `email`, `uri`, `string[]`,
 * `integer[]`, `enum:a|b|c`.
 */
export type FieldTuple = readonly [name: string, type: string, description: string];

/** The verbs every product phrases the same way. */
export type StandardVerb =
  | "list"
  | "get"
  | "create"
  | "update"
  | "delete"
  | "search"
  | "count"
  | "archive"
  | "export";

/** A verb particular to an entity (merge a pull request, refund a payment, …). */
export interface CustomVerbSpec {
  /** The verb's words as they appear in the tool's name: `merge`, `add labels`. */
  verb: string;
  /** The name's words after the product when they are not `<verb> <noun>`: `add labels to issue`. */
  name?: string;
  /** The description; `{product}`, `{noun}`, `{plural}`, `{where}` are filled in. */
  description: string;
  /** Its own arguments, besides the parent's and (when `onItem`) the item's id. */
  args?: readonly FieldTuple[];
  /** Whether it acts on one existing item, and so takes the item's id. Default true. */
  onItem?: boolean;
  readOnly?: boolean;
  destructive?: boolean;
}

/** Something a product manages: an issue, a customer, a DNS record. */
export interface EntitySpec {
  /** Singular, in words: `pull request`. */
  noun: string;
  /** Plural, in words; the noun plus `s` when absent. */
  plural?: string;
  /** One sentence saying what it is, in the words people use for it; `{noun}`, `{product}` are filled in. */
  gloss: string;
  /** The thing it lives in (a repository, a channel), and the arguments that name it. */
  parent?: { noun: string; fields: readonly FieldTuple[] };
  /** The argument naming one item; `<noun>_id`, a string, when absent. */
  id?: FieldTuple;
  fields: readonly FieldTuple[];
  verbs: readonly StandardVerb[];
  custom?: readonly CustomVerbSpec[];
}

/** One product of a category. */
export interface ProductSpec {
  /** Its words in tool names: `github`, `google calendar`. */
  key: string;
  /** Its name in prose: `GitHub`. */
  label: string;
  style: NameStyle;
  /** Nouns it calls differently: `{ "pull request": "merge request" }`. */
  rename?: Readonly<Record<string, string>>;
  /** Nouns of the category it lacks. */
  without?: readonly string[];
  /** Entities only it has. */
  extra?: readonly EntitySpec[];
}

/** Products of one kind, and the entities they share. */
export interface CategorySpec {
  category: string;
  entities: readonly EntitySpec[];
  products: readonly ProductSpec[];
}
