import { useState, type FormEvent } from 'react';
import { ApiRequestError, errorText } from '../api/http.ts';
import { knowledgeApi, type Entry, type EntryInput, type SubjectCount } from '../api/knowledge.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { Field } from '../ui/Field.tsx';
import { splitList } from '../ui/format.ts';
import { ErrorNote, Note } from '../ui/Notice.tsx';
import { StatusBadge } from './EntriesTable.tsx';

interface EntryFormProps {
  baseId: string;
  entry: Entry | null;
  subjects: SubjectCount[];
  prefillQuestion?: string;
  onClose: () => void;
  onChanged: () => void;
}

function toDateInput(iso: string | null): string {
  return iso ? iso.slice(0, 10) : '';
}

/** Add or edit one entry; an add that lands as a near-duplicate draft offers keep or replace. */
export function EntryForm({ baseId, entry, subjects, prefillQuestion, onClose, onChanged }: EntryFormProps) {
  const [current, setCurrent] = useState<Entry | null>(entry);
  const [subject, setSubject] = useState(entry?.subject ?? '');
  const [question, setQuestion] = useState(entry?.question ?? prefillQuestion ?? '');
  const [altQuestions, setAltQuestions] = useState((entry?.altQuestions ?? []).join('\n'));
  const [answer, setAnswer] = useState(entry?.answer ?? '');
  const [keywords, setKeywords] = useState((entry?.keywords ?? []).join(', '));
  const [validUntil, setValidUntil] = useState(toDateInput(entry?.validUntil ?? null));
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const act = async (work: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(null);
    setFieldErrors({});
    setSaved(null);
    try {
      await work();
    } catch (e) {
      setError(errorText(e));
      if (e instanceof ApiRequestError) setFieldErrors(e.fieldErrors);
    } finally {
      setBusy(false);
    }
  };

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const input: EntryInput = {
      subject: subject.trim(),
      question: question.trim(),
      answer: answer.trim(),
      altQuestions: splitList(altQuestions, /\n/),
      keywords: splitList(keywords, /,/),
      validUntil: validUntil ? new Date(`${validUntil}T23:59:59.000Z`).toISOString() : null,
    };
    void act(async () => {
      const result = current ? await knowledgeApi.updateEntry(baseId, current.id, input) : await knowledgeApi.addEntry(baseId, input);
      setCurrent(result);
      onChanged();
      if (!current && !result.conflictOfId) onClose();
      else setSaved(current ? 'Saved.' : null);
    });
  };

  const resolve = (resolution: 'keep' | 'replace'): void => {
    if (!current) return;
    void act(async () => {
      const result = await knowledgeApi.updateEntry(baseId, current.id, { resolveConflict: resolution });
      setCurrent(result);
      onChanged();
      setSaved(resolution === 'keep' ? 'Both entries kept; this one stays a draft until you approve it.' : 'This entry replaced the older one, which is now archived.');
    });
  };

  const setStatus = (status: Entry['status']): void => {
    if (!current) return;
    void act(async () => {
      setCurrent(await knowledgeApi.updateEntry(baseId, current.id, { status }));
      onChanged();
    });
  };

  const remove = (): void => {
    if (!current || !window.confirm('Delete this entry permanently?')) return;
    void act(async () => {
      await knowledgeApi.deleteEntry(baseId, current.id);
      onChanged();
      onClose();
    });
  };

  return (
    <Dialog title={current ? 'Edit entry' : 'Add entry'} onClose={onClose} wide>
      <form className="form" onSubmit={submit}>
        {current?.conflictOfId && (
          <div className="conflict" role="status" data-testid="conflict-panel">
            <p>
              <strong>This looks like a near-duplicate</strong> of an existing entry (<code>{current.conflictOfId.slice(0, 8)}</code>), so it was saved as a draft and is not searchable yet.
            </p>
            <div className="row">
              <button type="button" className="button small" disabled={busy} onClick={() => resolve('keep')}>
                Keep both
              </button>
              <button type="button" className="button small primary" disabled={busy} onClick={() => resolve('replace')}>
                Replace the older entry
              </button>
            </div>
          </div>
        )}
        <div className="form-row">
          <Field label="Subject" hint="One or two words, Title Case." errors={fieldErrors.subject}>
            <input list="entry-subjects" value={subject} onChange={(e) => setSubject(e.target.value)} maxLength={60} required />
            <datalist id="entry-subjects">
              {subjects.map((s) => (
                <option key={s.subject} value={s.subject} />
              ))}
            </datalist>
          </Field>
          <Field label="Valid until" hint="Optional. Listed as expiring 30 days before." errors={fieldErrors.validUntil}>
            <input type="date" value={validUntil} onChange={(e) => setValidUntil(e.target.value)} />
          </Field>
        </div>
        <Field label="Question" errors={fieldErrors.question}>
          <input value={question} onChange={(e) => setQuestion(e.target.value)} maxLength={500} required />
        </Field>
        <Field label="Other ways to ask" hint="One per line, up to 5." errors={fieldErrors.altQuestions}>
          <textarea value={altQuestions} onChange={(e) => setAltQuestions(e.target.value)} rows={2} />
        </Field>
        <Field label="Answer" hint="Complete and self-contained." errors={fieldErrors.answer}>
          <textarea value={answer} onChange={(e) => setAnswer(e.target.value)} maxLength={2000} rows={5} required />
        </Field>
        <Field label="Keywords" hint="Comma separated, up to 10." errors={fieldErrors.keywords}>
          <input value={keywords} onChange={(e) => setKeywords(e.target.value)} />
        </Field>
        {current && (
          <p className="entry-meta muted small">
            <StatusBadge entry={current} /> {current.hitCount} hits
            {current.sourceTitle && <> · from {current.sourceTitle}</>}
            {current.page !== null && <> · page {current.page}</>}
          </p>
        )}
        <ErrorNote error={error} />
        {saved && <Note tone="success">{saved}</Note>}
        <footer className="form-actions">
          {current && (
            <span className="form-actions-left">
              <button type="button" className="button danger ghost" disabled={busy} onClick={remove}>
                Delete
              </button>
              {current.status !== 'archived' ? (
                <button type="button" className="button ghost" disabled={busy} onClick={() => setStatus('archived')}>
                  Archive
                </button>
              ) : null}
              {current.status !== 'active' && (
                <button type="button" className="button ghost" disabled={busy} onClick={() => setStatus('active')}>
                  Activate
                </button>
              )}
            </span>
          )}
          <button type="button" className="button" onClick={onClose}>
            {current ? 'Close' : 'Cancel'}
          </button>
          <button type="submit" className="button primary" disabled={busy}>
            {current ? 'Save' : 'Add entry'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
