import { useState } from 'react';
import { knowledgeApi } from '../api/knowledge.ts';
import { hrefFor, navigate } from '../router.ts';
import { timeAgo } from '../ui/format.ts';
import { EmptyState, ErrorNote } from '../ui/Notice.tsx';
import { useLoad } from '../ui/useLoad.ts';
import { BaseForm } from './BaseForm.tsx';

/** Every knowledge base of the workspace, most recently updated first. */
export function BasesPage() {
  const bases = useLoad(() => knowledgeApi.listBases(), 'bases');
  const [creating, setCreating] = useState(false);

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Knowledge</h1>
          <p className="muted">Q&amp;A entries that flows and the API search and answer from.</p>
        </div>
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          New base
        </button>
      </header>
      <ErrorNote error={bases.error} />
      {bases.data && bases.data.length === 0 && (
        <EmptyState title="No knowledge bases yet">
          <p>A base holds question-and-answer entries. Create one, then add entries or import a CSV.</p>
          <button type="button" className="button primary" onClick={() => setCreating(true)}>
            Create your first base
          </button>
        </EmptyState>
      )}
      {bases.data && bases.data.length > 0 && (
        <ul className="card-grid" aria-label="Knowledge bases">
          {bases.data.map((base) => (
            <li key={base.id}>
              <a className="card card-link" href={hrefFor({ page: 'base', baseId: base.id })}>
                <h3>{base.name}</h3>
                <p className="card-description">{base.description || <span className="muted">No description</span>}</p>
                <p className="card-meta">
                  <span>{base.entryCount.toLocaleString()} entries</span>
                  {base.reviewBeforeIndex && <span className="badge">review</span>}
                  <span>updated {timeAgo(base.updatedAt)}</span>
                </p>
              </a>
            </li>
          ))}
        </ul>
      )}
      {creating && <BaseForm onClose={() => setCreating(false)} onSaved={(base) => navigate({ page: 'base', baseId: base.id })} />}
    </div>
  );
}
