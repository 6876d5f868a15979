/**
 * Text normalisation shared by the keyword index and the keyword scorer, so the
 * terms SQLite indexes and the terms the engine counts are the same.
 *
 * - NFKD, combining marks removed, lower-cased: "Crème" and "creme" are one term
 *   (unicode61 with remove_diacritics 2 would fold them too; doing it here keeps
 *   the JS side identical).
 * - Scripts written without spaces (Han, Hiragana, Katakana, Hangul syllables, Thai)
 *   are split into overlapping character bigrams, the usual trick for CJK
 *   retrieval without a dictionary: "東京都" -> "東京 京都". A single character stays itself.
 */

const NO_SPACE_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\u3005\u30fc]/u;
const WORD = /[\p{L}\p{N}]+/gu;
const COMBINING = /\p{M}+/gu;

export function foldText(text: string): string {
  return text.normalize('NFKD').replace(COMBINING, '').toLowerCase().normalize('NFC');
}

/** The normalised terms of a text, in order, with repeats. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const match of foldText(text).matchAll(WORD)) {
    splitWord(match[0], out);
  }
  return out;
}

function splitWord(word: string, out: string[]): void {
  let run: string[] = [];
  let plain = '';
  const flushRun = (): void => {
    if (run.length === 1) out.push(run[0]);
    for (let i = 0; i + 1 < run.length; i++) out.push(run[i] + run[i + 1]);
    run = [];
  };
  for (const ch of word) {
    if (NO_SPACE_SCRIPT.test(ch)) {
      if (plain) out.push(plain);
      plain = '';
      run.push(ch);
    } else {
      flushRun();
      plain += ch;
    }
  }
  if (plain) out.push(plain);
  flushRun();
}

/** What goes into an FTS5 column: the terms joined by spaces. */
export function indexText(text: string): string {
  return terms(text).join(' ');
}

/** Distinct query terms, each quoted for an FTS5 MATCH expression. */
export function queryTerms(query: string): string[] {
  return [...new Set(terms(query))];
}

export function ftsOrExpression(distinctTerms: readonly string[]): string {
  return distinctTerms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}
