import { stemmer } from "stemmer";

/**
 * Words that carry no meaning for finding a tool: English function words and what agents wrap a need in
 * ("please", "I need to", "can you"). Words that change which tool is meant are kept even when short: `on`,
 * `off`, `up`, `down`, `out`, `back`, `new`, `all`, `not`.
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but of to in into at by for from with without about as is are was were be been being " +
    "it its this that these those there here than then so such via per some any each every both either " +
    "i me my mine we us our ours you your yours he him his she her they them their theirs one's " +
    "do does did doing done have has had having can could would should will shall may might must " +
    "please need needs want wants like just also very really right now currently today's " +
    "what which who whom whose when where why how whether if else " +
    "tool tools using use uses used let lets give gives get gets got make makes made"
  ).split(" "),
);

const CASE_CHANGE = /[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;

/** Splits one token at its case changes: `getHTTPResponse` → `get`, `HTTP`, `Response`. */
function splitCase(token: string): string[] {
  if (!CASE_CHANGE.test(token)) return [token];
  return token
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .split(" ");
}

/**
 * Splits text into words: at anything but letters and digits (so snake_case, kebab-case and dotted names come
 * apart), and inside camelCase and PascalCase. A token made of several cased parts also yields itself whole,
 * so "GitHub" in a description meets `github_create_issue`, and "MongoDB" in a query meets `mongodbFind`.
 */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const token of text.split(/[^\p{L}\p{N}]+/u)) {
    if (token.length === 0) continue;
    const parts = splitCase(token);
    words.push(...parts);
    if (parts.length > 1) words.push(token);
  }
  return words;
}

/** A word as the index holds it: lower case, stemmed (`issues` → `issu`, `running` → `run`). */
export function normalizeWord(word: string): string {
  const lower = word.toLowerCase();
  return /^\p{L}+$/u.test(lower) ? stemmer(lower) : lower;
}

/** Whether a word (before normalizing) is a stop word. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}

/**
 * The index terms of a text: its words without stop words, normalized. Used for the indexed fields and for
 * queries alike, so both sides agree.
 */
export function termsOf(text: string): string[] {
  const terms: string[] = [];
  for (const word of splitWords(text)) if (!isStopWord(word)) terms.push(normalizeWord(word));
  return terms;
}
