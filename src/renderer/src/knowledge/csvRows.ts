import Papa from 'papaparse';
import type { ImportRow } from '../api/knowledge.ts';

export interface ParsedCsv {
  rows: ImportRow[];
  /** Human-readable problems, with their line numbers. */
  problems: string[];
}

const MULTI_SEPARATOR = ' | ';

function multi(value: string | undefined): string[] | undefined {
  if (!value?.trim()) return undefined;
  return value
    .split(MULTI_SEPARATOR)
    .map((part) => part.trim())
    .filter(Boolean);
}

/**
 * Reads a CSV with a header row (subject, question, answer, altQuestions,
 * keywords; the same columns export writes) into import rows. Multi-value
 * cells are joined with " | ", as in the export.
 */
export function parseEntriesCsv(text: string): ParsedCsv {
  const result = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: 'greedy', transformHeader: (h) => h.trim() });
  const problems = result.errors.slice(0, 5).map((e) => `Line ${(e.row ?? 0) + 2}: ${e.message}`);
  const fields = result.meta.fields ?? [];
  if (!fields.includes('question') || !fields.includes('answer')) {
    return { rows: [], problems: [`The header needs "question" and "answer" columns (found: ${fields.join(', ') || 'none'}).`] };
  }
  const rows: ImportRow[] = [];
  result.data.forEach((record, index) => {
    const question = record.question?.trim() ?? '';
    const answer = record.answer?.trim() ?? '';
    if (!question || !answer) {
      if (problems.length < 10) problems.push(`Line ${index + 2}: question and answer are both needed; skipped.`);
      return;
    }
    const row: ImportRow = { question, answer };
    if (record.subject?.trim()) row.subject = record.subject.trim();
    const altQuestions = multi(record.altQuestions);
    if (altQuestions) row.altQuestions = altQuestions;
    const keywords = multi(record.keywords);
    if (keywords) row.keywords = keywords;
    rows.push(row);
  });
  return { rows, problems };
}
