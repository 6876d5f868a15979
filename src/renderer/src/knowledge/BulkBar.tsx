import { useState } from 'react';
import { errorText } from '../api/http.ts';
import { knowledgeApi, type BulkAction, type SubjectCount } from '../api/knowledge.ts';
import { ErrorNote } from '../ui/Notice.tsx';

interface BulkBarProps {
  baseId: string;
  ids: string[];
  subjects: SubjectCount[];
  onDone: () => Promise<void>;
  onClear: () => void;
}

/** Actions on the selected rows: approve, activate, archive, delete, set subject. */
export function BulkBar({ baseId, ids, subjects, onDone, onClear }: BulkBarProps) {
  const [subject, setSubject] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<string | null>(null);

  const run = async (action: BulkAction): Promise<void> => {
    if (action === 'delete' && !window.confirm(`Delete ${ids.length} entries permanently?`)) return;
    setBusy(true);
    setError(null);
    try {
      const { affected } = await knowledgeApi.bulk(baseId, ids, action, action === 'setSubject' ? subject.trim() : undefined);
      setResult(`${affected} ${affected === 1 ? 'entry' : 'entries'} updated`);
      await onDone();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="bulk-bar" role="toolbar" aria-label="Bulk actions">
      <strong>{ids.length} selected</strong>
      <button type="button" className="button small" disabled={busy} onClick={() => void run('approve')}>
        Approve
      </button>
      <button type="button" className="button small" disabled={busy} onClick={() => void run('activate')}>
        Activate
      </button>
      <button type="button" className="button small" disabled={busy} onClick={() => void run('archive')}>
        Archive
      </button>
      <button type="button" className="button small danger" disabled={busy} onClick={() => void run('delete')}>
        Delete
      </button>
      <span className="bulk-subject">
        <input list="bulk-subjects" placeholder="Subject" value={subject} onChange={(e) => setSubject(e.target.value)} aria-label="New subject" />
        <datalist id="bulk-subjects">
          {subjects.map((s) => (
            <option key={s.subject} value={s.subject} />
          ))}
        </datalist>
        <button type="button" className="button small" disabled={busy || !subject.trim()} onClick={() => void run('setSubject')}>
          Set subject
        </button>
      </span>
      <button type="button" className="button small ghost" onClick={onClear}>
        Clear
      </button>
      {result && !error && <span className="muted small">{result}</span>}
      <ErrorNote error={error} />
    </div>
  );
}
