import { useState, type FormEvent } from 'react';
import { errorText } from '../api/http.ts';
import { knowledgeApi, type AskReply, type SearchHit, type SearchResult } from '../api/knowledge.ts';
import { Drawer } from '../ui/Drawer.tsx';
import { formatNumber } from '../ui/format.ts';
import { ErrorNote, Note } from '../ui/Notice.tsx';

type Mode = 'search' | 'ask';

function Hits({ hits }: { hits: SearchHit[] }) {
  return (
    <ol className="hits" aria-label="Hits">
      {hits.map((hit) => (
        <li key={hit.id} className="hit">
          <div className="hit-head">
            <span className="hit-question">{hit.question}</span>
            <span className="hit-scores" title="Fused score / vector similarity">
              <span data-testid="hit-score">{formatNumber(hit.score, 3)}</span>
              <span className="muted"> · vec {formatNumber(hit.vectorScore, 3)}</span>
            </span>
          </div>
          <p className="hit-answer">{hit.answer}</p>
          <span className="badge">{hit.subject}</span>
        </li>
      ))}
    </ol>
  );
}

/** Try the base the way a flow or script would: search (free) or ask (spends credits). */
export function TestDrawer({ baseId, onClose }: { baseId: string; onClose: () => void }) {
  const [mode, setMode] = useState<Mode>('search');
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState<SearchResult | null>(null);
  const [ask, setAsk] = useState<AskReply | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (!query.trim()) return;
    setBusy(true);
    setError(null);
    try {
      if (mode === 'search') setSearch(await knowledgeApi.search(baseId, query.trim()));
      else setAsk(await knowledgeApi.ask(baseId, query.trim()));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Drawer title="Test this base" onClose={onClose}>
      <div className="tabs" role="tablist">
        {(['search', 'ask'] as const).map((m) => (
          <button key={m} type="button" role="tab" aria-selected={mode === m} className={mode === m ? 'tab active' : 'tab'} onClick={() => setMode(m)}>
            {m === 'search' ? 'Search' : 'Ask'}
          </button>
        ))}
      </div>
      <p className="muted small">{mode === 'search' ? 'Hybrid vector + keyword retrieval. Free.' : 'Retrieves, then a model answers only from the hits. Spends credits.'}</p>
      <form className="row" onSubmit={(e) => void run(e)}>
        <input autoFocus type="search" className="grow" placeholder={mode === 'search' ? 'Search query' : 'Ask a question'} value={query} onChange={(e) => setQuery(e.target.value)} aria-label="Test query" />
        <button type="submit" className="button primary" disabled={busy || !query.trim()}>
          {busy ? '…' : mode === 'search' ? 'Search' : 'Ask'}
        </button>
      </form>
      <ErrorNote error={error} />
      {mode === 'search' && search && (
        <section aria-label="Search results">
          <p className="muted small">
            {search.hits.length} hits · {search.embeddingTokens} embedding tokens
          </p>
          {search.hits.length === 0 ? <Note>No entry matched.</Note> : <Hits hits={search.hits} />}
        </section>
      )}
      {mode === 'ask' && ask && (
        <section aria-label="Answer">
          {ask.answer && (
            <blockquote className="answer" data-testid="ask-answer">
              {ask.answer}
            </blockquote>
          )}
          {(ask.note ?? !ask.answer) && (
            <Note tone={ask.answer ? 'info' : 'warn'}>
              <span data-testid="ask-note">{ask.note ?? 'No entry matched, so there is no answer.'}</span>
            </Note>
          )}
          <p className="muted small">
            {ask.usage.model} · {ask.usage.inputTokens} in / {ask.usage.outputTokens} out · {formatNumber(ask.usage.credits, 4)} credits
          </p>
          {ask.hits.length > 0 && <Hits hits={ask.hits} />}
        </section>
      )}
    </Drawer>
  );
}
