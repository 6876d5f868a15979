/**
 * The fused hybrid score, in [0, 1] and comparable across queries, so a fixed
 * `minScore` means the same thing for every question:
 *
 *   vector  = max(0, cosine of the query to the entry's best text)
 *   keyword = share of the query's information found in the entry:
 *             sum over query terms of idf(term) * weight(where the term occurs)
 *             / sum over query terms of idf(term)
 *             weight = 1 in the question, an alternative question, the subject or
 *             the keywords; ANSWER_WEIGHT when only in the answer; 0 when absent.
 *   score   = vector + KEYWORD_SHARE * keyword * (1 - vector)
 *
 * The keyword evidence closes part of the gap between the cosine and 1, so the
 * score never falls below the cosine, an exact wording match lifts a weak cosine,
 * and a score of 0.35 reads as "at least 0.35 similar, or less similar with the
 * words of the question in the entry". Raw reciprocal-rank fusion was not used:
 * it says how two lists ordered the entries, not how well any entry matches.
 */
export const KEYWORD_SHARE = 0.5;
export const ANSWER_WEIGHT = 0.5;

export function fuse(cosine: number, keyword: number): number {
  const vector = Math.max(0, Math.min(1, cosine));
  return vector + KEYWORD_SHARE * keyword * (1 - vector);
}

/** BM25's idf, always positive. */
export function idf(documents: number, documentsWithTerm: number): number {
  return Math.log(1 + (documents - documentsWithTerm + 0.5) / (documentsWithTerm + 0.5));
}

export interface IndexedFields {
  /** Normalised terms of the question, alternative questions, subject and keywords, space-separated with a space at each end. */
  primary: string;
  /** Normalised terms of the answer, the same way. */
  answer: string;
}

/** `queryIdf` keys are normalised terms; fields hold normalised terms between spaces, so a padded substring test is a term test. */
export function keywordEvidence(queryIdf: ReadonlyMap<string, number>, fields: IndexedFields): number {
  let total = 0;
  let found = 0;
  for (const [term, weight] of queryIdf) {
    total += weight;
    const padded = ` ${term} `;
    if (fields.primary.includes(padded)) found += weight;
    else if (fields.answer.includes(padded)) found += weight * ANSWER_WEIGHT;
  }
  return total > 0 ? found / total : 0;
}
