import type { Entry } from '../api/knowledge.ts';
import { timeAgo } from '../ui/format.ts';
import { EmptyState } from '../ui/Notice.tsx';

interface EntriesTableProps {
  entries: Entry[];
  loading: boolean;
  filtered: boolean;
  selected: Set<string>;
  onSelectionChange: (selected: Set<string>) => void;
  onOpen: (entry: Entry) => void;
  onAdd: () => void;
}

export function StatusBadge({ entry }: { entry: Pick<Entry, 'status' | 'conflictOfId'> }) {
  if (entry.conflictOfId) return <span className="badge badge-warn">conflict</span>;
  return <span className={`badge badge-${entry.status}`}>{entry.status}</span>;
}

/** The page of entries; rows open the editor, checkboxes feed the bulk bar. */
export function EntriesTable({ entries, loading, filtered, selected, onSelectionChange, onOpen, onAdd }: EntriesTableProps) {
  if (loading) return <p className="muted pad">Loading entries…</p>;
  if (entries.length === 0) {
    return filtered ? (
      <EmptyState title="Nothing matches">
        <p>Try another search, subject or status.</p>
      </EmptyState>
    ) : (
      <EmptyState title="No entries yet">
        <p>Add a question and its answer, or import a CSV of them.</p>
        <button type="button" className="button primary" onClick={onAdd}>
          Add entry
        </button>
      </EmptyState>
    );
  }
  const allSelected = entries.every((e) => selected.has(e.id));
  const toggle = (id: string): void => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    onSelectionChange(next);
  };
  return (
    <table className="table entries-table">
      <thead>
        <tr>
          <th className="col-check">
            <input type="checkbox" aria-label="Select all on this page" checked={allSelected} onChange={() => onSelectionChange(allSelected ? new Set() : new Set(entries.map((e) => e.id)))} />
          </th>
          <th>Question</th>
          <th className="col-subject">Subject</th>
          <th className="col-status">Status</th>
          <th className="col-num">Hits</th>
          <th className="col-date">Updated</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id} className={selected.has(entry.id) ? 'selected' : undefined}>
            <td className="col-check">
              <input type="checkbox" aria-label={`Select ${entry.question}`} checked={selected.has(entry.id)} onChange={() => toggle(entry.id)} />
            </td>
            <td>
              <button type="button" className="row-link" onClick={() => onOpen(entry)}>
                <span className="entry-question">{entry.question}</span>
                <span className="entry-answer">{entry.answer}</span>
              </button>
            </td>
            <td className="col-subject">{entry.subject}</td>
            <td className="col-status">
              <StatusBadge entry={entry} />
            </td>
            <td className="col-num">{entry.hitCount}</td>
            <td className="col-date" title={entry.updatedAt}>
              {timeAgo(entry.updatedAt)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
