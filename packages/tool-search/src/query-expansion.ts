import { isStopWord, normalizeWord, splitWords, termsOf } from "./text-terms.js";

/** A query's terms, each with its weight: 1 for what the query says, less for what the thesaurus adds. */
export type WeightedTerms = Map<string, number>;

/** A thesaurus prepared for matching queries: phrases by their first normalized word. */
export interface PreparedThesaurus {
  /** For a first word, the phrases that start with it (normalized words) and the groups they belong to. */
  readonly phrasesByFirstWord: ReadonlyMap<string, readonly { words: readonly string[]; group: number }[]>;
  /** Each group's index terms. */
  readonly groupTerms: readonly (readonly string[])[];
}

/**
 * Prepares a thesaurus (groups of interchangeable words and phrases) for {@link expandQuery}. Phrases are matched
 * on normalized words with stop words kept ("where is"), and add their groups' terms without stop words.
 */
export function prepareThesaurus(groups: readonly (readonly string[])[]): PreparedThesaurus {
  const phrasesByFirstWord = new Map<string, { words: string[]; group: number }[]>();
  const groupTerms: string[][] = [];
  groups.forEach((group, index) => {
    const terms = new Set<string>();
    for (const phrase of group) {
      const words = splitWords(phrase).map(normalizeWord);
      const first = words[0];
      if (first === undefined) continue;
      const list = phrasesByFirstWord.get(first) ?? [];
      list.push({ words, group: index });
      phrasesByFirstWord.set(first, list);
      for (const term of termsOf(phrase)) terms.add(term);
    }
    groupTerms.push([...terms]);
  });
  return { phrasesByFirstWord, groupTerms };
}

/**
 * A query's weighted terms: its own terms at weight 1, and the terms of every thesaurus group that one of its
 * words or phrases belongs to at `expansionWeight`. At most `maxTerms` terms, the query's own first.
 */
export function expandQuery(
  query: string,
  thesaurus: PreparedThesaurus,
  expansionWeight: number,
  maxTerms: number,
): WeightedTerms {
  const words = splitWords(query);
  const normalized = words.map(normalizeWord);
  const weights: WeightedTerms = new Map();
  const groups = new Set<number>();
  normalized.forEach((word, i) => {
    if (!isStopWord(words[i] as string) && weights.size < maxTerms) weights.set(word, 1);
  });
  // Longest phrase first, and the words of a matched phrase start no other: "set up" is not also "set".
  for (let i = 0; i < normalized.length; ) {
    let longest = 0;
    const matched: number[] = [];
    for (const phrase of thesaurus.phrasesByFirstWord.get(normalized[i] as string) ?? []) {
      if (!phrase.words.every((w, k) => normalized[i + k] === w)) continue;
      if (phrase.words.length > longest) {
        longest = phrase.words.length;
        matched.length = 0;
      }
      if (phrase.words.length === longest) matched.push(phrase.group);
    }
    for (const group of matched) groups.add(group);
    i += Math.max(longest, 1);
  }
  for (const group of groups) {
    for (const term of thesaurus.groupTerms[group] ?? []) {
      if (weights.size >= maxTerms) return weights;
      if (!weights.has(term)) weights.set(term, expansionWeight);
    }
  }
  return weights;
}
