/**
 * How results are ranked. MiniSearch scores each tool with BM25+ over its fields (with these boosts); the best
 * `RERANK_DEPTH` the caller may see are then re-scored by how much of the query they match and whether the query
 * names their leading name words. The numbers were tuned on the generated catalog's quality queries.
 */

/** Relative weight of a match in each field. */
export const FIELD_BOOSTS = { name: 3, title: 2, description: 1, parameters: 0.5 };
/** Weight of a term the thesaurus adds, against 1 for the query's own. */
export const EXPANSION_WEIGHT = 0.4;
/** Most terms of one query searched, the query's own first: bounds the work per search. */
export const MAX_QUERY_TERMS = 48;

/**
 * How many of the best BM25 matches are re-ranked by how much of the query they match and whether the query names
 * their leading name words.
 */
export const RERANK_DEPTH = 100;
/** Score factor per leading name word the query says itself. */
const LEADING_NAME_BOOST = 1;
/** Exponent of the share of the query a tool matches: tools that match more of what was asked rank first. */
const COVERAGE_EXPONENT = 2;

/**
 * How many of a name's first words the query says itself (not through the thesaurus), up to the first it does
 * not say. Names in large catalogs lead with their server or product (`github_…`, `googleCalendar…`), and a
 * query that names the product means that product's tools.
 */
function leadingWordsSaid(terms: readonly string[], weights: ReadonlyMap<string, number>): number {
  let said = 0;
  while (said < terms.length && weights.get(terms[said] as string) === 1) said++;
  return said;
}

/**
 * The share of the query a tool matches: the weights of the query terms found anywhere in it, over the number of
 * the query's own terms (BM25 alone lets one frequent term outweigh several matched ones).
 */
function queryCoverage(
  matchedTerms: readonly string[],
  weights: ReadonlyMap<string, number>,
  own: number,
): number {
  let matched = 0;
  for (const term of matchedTerms) matched += weights.get(term) ?? 0;
  return own === 0 ? 0 : matched / own;
}

/** Query terms of at least this many characters also match words they begin (`config` → `configuration`). */
export const PREFIX_MIN_LENGTH = 4;

/** How many of a query's terms are its own (weight 1), not added by the thesaurus. */
export function ownTermCount(weights: ReadonlyMap<string, number>): number {
  let own = 0;
  for (const weight of weights.values()) if (weight === 1) own++;
  return own;
}

/**
 * The factor a BM25 score is multiplied by: more for a tool whose name starts with words the query says, and by
 * the square of the share of the query the tool matches.
 */
export function rerankFactor(
  nameTerms: readonly string[],
  matchedTerms: readonly string[],
  weights: ReadonlyMap<string, number>,
  ownTerms: number,
): number {
  return (
    (1 + LEADING_NAME_BOOST * leadingWordsSaid(nameTerms, weights)) *
    queryCoverage(matchedTerms, weights, ownTerms) ** COVERAGE_EXPONENT
  );
}
