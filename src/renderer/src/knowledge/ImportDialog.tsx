import { useState } from 'react';
import { ApiRequestError, errorText } from '../api/http.ts';
import { knowledgeApi } from '../api/knowledge.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { ErrorNote, Note } from '../ui/Notice.tsx';
import { parseEntriesCsv, type ParsedCsv } from './csvRows.ts';

/** The API takes at most 2000 rows per call; bigger files go in several. */
const ROWS_PER_CALL = 2000;

interface ImportDialogProps {
  baseId: string;
  onClose: () => void;
  onImported: () => void;
}

interface ImportTotals {
  inserted: number;
  duplicates: number;
  conflicts: number;
}

/** CSV import: parsed here, sent as rows, stored verbatim by the engine. */
export function ImportDialog({ baseId, onClose, onImported }: ImportDialogProps) {
  const [fileName, setFileName] = useState<string | null>(null);
  const [parsed, setParsed] = useState<ParsedCsv | null>(null);
  const [totals, setTotals] = useState<ImportTotals | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const read = async (file: File | undefined): Promise<void> => {
    setTotals(null);
    setError(null);
    if (!file) return;
    setFileName(file.name);
    setParsed(parseEntriesCsv(await file.text()));
  };

  const send = async (): Promise<void> => {
    if (!parsed?.rows.length) return;
    setBusy(true);
    setError(null);
    const sum: ImportTotals = { inserted: 0, duplicates: 0, conflicts: 0 };
    try {
      for (let start = 0; start < parsed.rows.length; start += ROWS_PER_CALL) {
        const result = await knowledgeApi.importRows(baseId, parsed.rows.slice(start, start + ROWS_PER_CALL));
        sum.inserted += result.inserted;
        sum.duplicates += result.duplicates;
        sum.conflicts += result.conflicts;
      }
      setTotals(sum);
      onImported();
    } catch (e) {
      const fieldErrors = e instanceof ApiRequestError ? Object.entries(e.fieldErrors).slice(0, 5) : [];
      setError([errorText(e), ...fieldErrors.map(([field, messages]) => `${field}: ${messages.join('; ')}`)].join('\n'));
      if (sum.inserted) setTotals(sum);
      onImported();
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog title="Import entries from CSV" onClose={onClose} wide>
      <div className="form">
        <p className="muted">
          A header row with <code>subject</code>, <code>question</code>, <code>answer</code> and optionally <code>altQuestions</code> and <code>keywords</code> (several values joined
          with <code> | </code>), the same columns Export writes. Rows are stored as they are.
        </p>
        <label className="dropzone">
          <input type="file" accept=".csv,text/csv" aria-label="CSV file" onChange={(e) => void read(e.target.files?.[0])} />
          <span>{fileName ?? 'Choose a CSV file'}</span>
        </label>
        {parsed && (
          <>
            <Note tone={parsed.rows.length ? 'info' : 'warn'}>
              {parsed.rows.length.toLocaleString()} rows ready to import{parsed.problems.length ? `, ${parsed.problems.length} problem(s)` : ''}.
            </Note>
            {parsed.problems.length > 0 && (
              <ul className="problems">
                {parsed.problems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            )}
            {parsed.rows.length > 0 && (
              <table className="table compact">
                <thead>
                  <tr>
                    <th>Subject</th>
                    <th>Question</th>
                    <th>Answer</th>
                  </tr>
                </thead>
                <tbody>
                  {parsed.rows.slice(0, 5).map((row, i) => (
                    <tr key={i}>
                      <td>{row.subject ?? 'General'}</td>
                      <td>{row.question}</td>
                      <td className="clip">{row.answer}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
        {totals && (
          <Note tone="success">
            <span data-testid="import-result">
              {totals.inserted} inserted, {totals.duplicates} duplicates skipped, {totals.conflicts} near-duplicates saved as drafts.
            </span>
          </Note>
        )}
        <ErrorNote error={error} />
        <footer className="form-actions">
          <button type="button" className="button" onClick={onClose}>
            {totals ? 'Done' : 'Cancel'}
          </button>
          <button type="button" className="button primary" disabled={busy || !parsed?.rows.length || Boolean(totals)} onClick={() => void send()}>
            {busy ? 'Importing…' : `Import ${parsed?.rows.length ? parsed.rows.length.toLocaleString() : ''} rows`}
          </button>
        </footer>
      </div>
    </Dialog>
  );
}
