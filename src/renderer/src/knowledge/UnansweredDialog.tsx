import { useState } from 'react';
import { errorText } from '../api/http.ts';
import { knowledgeApi } from '../api/knowledge.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { timeAgo } from '../ui/format.ts';
import { EmptyState, ErrorNote } from '../ui/Notice.tsx';
import { useLoad } from '../ui/useLoad.ts';

interface UnansweredDialogProps {
  baseId: string;
  onClose: () => void;
  onAnswer: (query: string) => void;
}

/** Questions that found no entry, most frequent first: a to-do list for the base. */
export function UnansweredDialog({ baseId, onClose, onAnswer }: UnansweredDialogProps) {
  const items = useLoad(() => knowledgeApi.listUnanswered(baseId), baseId);
  const [error, setError] = useState<string | null>(null);

  const clear = async (query?: string): Promise<void> => {
    if (query === undefined && !window.confirm('Clear the whole unanswered list?')) return;
    try {
      await knowledgeApi.clearUnanswered(baseId, query);
      await items.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <Dialog title="Unanswered questions" onClose={onClose} wide>
      <ErrorNote error={items.error ?? error} />
      {items.data?.length === 0 && (
        <EmptyState title="Nothing unanswered">
          <p>Questions asked here, by flows or through the API that found no entry show up in this list.</p>
        </EmptyState>
      )}
      {items.data && items.data.length > 0 && (
        <>
          <table className="table">
            <thead>
              <tr>
                <th>Question</th>
                <th className="col-num">Times</th>
                <th className="col-date">Last asked</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {items.data.map((item) => (
                <tr key={item.query}>
                  <td>{item.query}</td>
                  <td className="col-num">{item.count}</td>
                  <td className="col-date">{timeAgo(item.lastAt)}</td>
                  <td className="col-actions">
                    <button type="button" className="button small" onClick={() => onAnswer(item.query)}>
                      Answer it
                    </button>
                    <button type="button" className="button small ghost" onClick={() => void clear(item.query)}>
                      Dismiss
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <footer className="form-actions">
            <button type="button" className="button ghost danger" onClick={() => void clear()}>
              Clear all
            </button>
          </footer>
        </>
      )}
    </Dialog>
  );
}
