import { useCallback, useEffect, useState } from 'react';
import { errorText } from '../api/http.ts';
import { knowledgeApi, type Entry, type EntryFilter, type EntrySort } from '../api/knowledge.ts';
import { hrefFor } from '../router.ts';
import { ErrorNote } from '../ui/Notice.tsx';
import { useLoad } from '../ui/useLoad.ts';
import { BaseForm } from './BaseForm.tsx';
import { BulkBar } from './BulkBar.tsx';
import { EntriesTable } from './EntriesTable.tsx';
import { EntryForm } from './EntryForm.tsx';
import { ImportDialog } from './ImportDialog.tsx';
import { SubjectsSidebar } from './SubjectsSidebar.tsx';
import { TestDrawer } from './TestDrawer.tsx';
import { UnansweredDialog } from './UnansweredDialog.tsx';

const PAGE_SIZE = 50;

type Panel = { kind: 'none' } | { kind: 'editBase' } | { kind: 'entry'; entry: Entry | null; prefill?: string } | { kind: 'import' } | { kind: 'test' } | { kind: 'unanswered' };

/** One base: its entries with filters, subjects, bulk actions, import/export and the test drawer. */
export function BasePage({ baseId }: { baseId: string }) {
  const base = useLoad(() => knowledgeApi.getBase(baseId), baseId);
  const subjects = useLoad(() => knowledgeApi.listSubjects(baseId), baseId);
  const [q, setQ] = useState('');
  const [debouncedQ, setDebouncedQ] = useState('');
  const [subject, setSubject] = useState('');
  const [status, setStatus] = useState<EntryFilter>('');
  const [sort, setSort] = useState<EntrySort>('newest');
  const [offset, setOffset] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [panel, setPanel] = useState<Panel>({ kind: 'none' });
  const [actionError, setActionError] = useState<string | null>(null);

  useEffect(() => {
    const timer = setTimeout(() => setDebouncedQ(q.trim()), 250);
    return () => clearTimeout(timer);
  }, [q]);
  useEffect(() => setOffset(0), [debouncedQ, subject, status, sort]);

  const query = { q: debouncedQ, subject, status, sort, limit: PAGE_SIZE, offset };
  const entries = useLoad(() => knowledgeApi.listEntries(baseId, query), JSON.stringify(query));

  const refresh = useCallback(async () => {
    setSelected(new Set());
    await Promise.all([entries.reload(), subjects.reload(), base.reload()]);
  }, [entries, subjects, base]);

  const closePanel = useCallback(() => setPanel({ kind: 'none' }), []);

  // "n" adds an entry, "/" focuses search, "t" opens the test drawer.
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      const target = event.target as HTMLElement;
      if (target.closest('input, textarea, select, [role=dialog]') || event.metaKey || event.ctrlKey || event.altKey || panel.kind !== 'none') return;
      if (event.key === 'n') {
        event.preventDefault();
        setPanel({ kind: 'entry', entry: null });
      } else if (event.key === '/') {
        event.preventDefault();
        document.getElementById('entry-search')?.focus();
      } else if (event.key === 't') {
        setPanel({ kind: 'test' });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [panel.kind]);

  const exportAs = (format: 'csv' | 'json'): void => {
    const fileName = `${(base.data?.name ?? 'knowledge').replace(/[^\w.-]+/g, '-')}.${format}`;
    knowledgeApi.exportBase(baseId, format, fileName).catch((e: unknown) => setActionError(errorText(e)));
  };

  const total = entries.data?.total ?? 0;

  return (
    <div className="page page-wide">
      <nav className="crumbs" aria-label="Breadcrumb">
        <a href={hrefFor({ page: 'knowledge' })}>Knowledge</a> <span aria-hidden="true">/</span>
      </nav>
      <ErrorNote error={base.error} />
      <header className="page-header">
        <div>
          <h1>{base.data?.name ?? '…'}</h1>
          <p className="muted">{base.data?.description || 'No description yet.'}</p>
        </div>
        <div className="header-actions">
          <button type="button" className="button" onClick={() => setPanel({ kind: 'editBase' })} disabled={!base.data}>
            Edit
          </button>
          <button type="button" className="button" onClick={() => setPanel({ kind: 'import' })}>
            Import CSV
          </button>
          <div className="split">
            <button type="button" className="button" onClick={() => exportAs('csv')}>
              Export CSV
            </button>
            <button type="button" className="button" onClick={() => exportAs('json')}>
              JSON
            </button>
          </div>
          <button type="button" className="button" onClick={() => setPanel({ kind: 'unanswered' })}>
            Unanswered
          </button>
          <button type="button" className="button" onClick={() => setPanel({ kind: 'test' })} title="Test search and answers (t)">
            Test
          </button>
          <button type="button" className="button primary" onClick={() => setPanel({ kind: 'entry', entry: null })} title="Add entry (n)">
            Add entry
          </button>
        </div>
      </header>
      <ErrorNote error={actionError} />

      <div className="base-layout">
        <SubjectsSidebar subjects={subjects.data ?? []} selected={subject} onSelect={setSubject} total={base.data?.entryCount} />
        <section className="base-main" aria-label="Entries">
          <div className="toolbar">
            <input
              id="entry-search"
              type="search"
              className="search-input"
              placeholder="Search questions, answers, subjects…  ( / )"
              value={q}
              onChange={(e) => setQ(e.target.value)}
              aria-label="Filter entries"
            />
            <select aria-label="Status" value={status} onChange={(e) => setStatus(e.target.value as EntryFilter)}>
              <option value="">Active and drafts</option>
              <option value="active">Active</option>
              <option value="draft">Drafts</option>
              <option value="conflicts">Conflicts</option>
              <option value="expiring">Expiring</option>
              <option value="archived">Archived</option>
              <option value="all">All</option>
            </select>
            <select aria-label="Sort" value={sort} onChange={(e) => setSort(e.target.value as EntrySort)}>
              <option value="newest">Newest</option>
              <option value="hits">Most used</option>
              <option value="unused">Unused</option>
              <option value="subject">Subject</option>
            </select>
          </div>
          {selected.size > 0 && (
            <BulkBar baseId={baseId} ids={[...selected]} subjects={subjects.data ?? []} onDone={refresh} onClear={() => setSelected(new Set())} />
          )}
          <ErrorNote error={entries.error} />
          <EntriesTable
            entries={entries.data?.items ?? []}
            loading={entries.loading && !entries.data}
            filtered={Boolean(debouncedQ || subject || status)}
            selected={selected}
            onSelectionChange={setSelected}
            onOpen={(entry) => setPanel({ kind: 'entry', entry })}
            onAdd={() => setPanel({ kind: 'entry', entry: null })}
          />
          {total > 0 && (
            <footer className="pager">
              <span className="muted" data-testid="entries-total">
                {offset + 1}–{Math.min(offset + PAGE_SIZE, total)} of {total.toLocaleString()}
              </span>
              <button type="button" className="button small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                Previous
              </button>
              <button type="button" className="button small" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
                Next
              </button>
            </footer>
          )}
        </section>
      </div>

      {panel.kind === 'editBase' && base.data && (
        <BaseForm
          existing={base.data}
          onClose={closePanel}
          onSaved={(saved) => {
            base.setData(saved);
            closePanel();
          }}
        />
      )}
      {panel.kind === 'entry' && <EntryForm baseId={baseId} entry={panel.entry} prefillQuestion={panel.prefill} subjects={subjects.data ?? []} onClose={closePanel} onChanged={() => void refresh()} />}
      {panel.kind === 'import' && <ImportDialog baseId={baseId} onClose={closePanel} onImported={() => void refresh()} />}
      {panel.kind === 'test' && <TestDrawer baseId={baseId} onClose={closePanel} />}
      {panel.kind === 'unanswered' && <UnansweredDialog baseId={baseId} onClose={closePanel} onAnswer={(query) => setPanel({ kind: 'entry', entry: null, prefill: query })} />}
    </div>
  );
}
