import { useState, type FormEvent } from 'react';
import { errorText } from '../api/http.ts';
import { flowsApi, type FlowSummary } from '../api/flows.ts';
import { hrefFor, navigate } from '../router.ts';
import { timeAgo } from '../ui/format.ts';
import { EmptyState, ErrorNote } from '../ui/Notice.tsx';
import { useLoad } from '../ui/useLoad.ts';
import { ActiveToggle } from './ActiveToggle.tsx';

/** The caller's flows: create, rename, switch on and off, open on the canvas. */
export function FlowsPage() {
  const flows = useLoad(() => flowsApi.listFlows(), 'flows');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);

  const create = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setError(null);
    try {
      const flow = await flowsApi.createFlow(name.trim() || 'Untitled flow');
      navigate({ page: 'flow', flowId: flow.id });
    } catch (e) {
      setError(errorText(e));
    }
  };

  const replace = (updated: FlowSummary): void => flows.setData((list) => (list ?? []).map((f) => (f.id === updated.id ? updated : f)));

  const rename = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if (!renaming) return;
    try {
      replace(await flowsApi.updateFlow(renaming.id, { name: renaming.name.trim() }));
      setRenaming(null);
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Workflows</h1>
          <p className="muted">Node graphs that run asynchronously: triggers, models, HTTP calls, branches.</p>
        </div>
        <form className="row" onSubmit={(e) => void create(e)}>
          <input placeholder="New flow name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} aria-label="New flow name" />
          <button type="submit" className="button primary">
            New flow
          </button>
        </form>
      </header>
      <ErrorNote error={flows.error ?? error} />
      {flows.data?.length === 0 && (
        <EmptyState title="No flows yet">
          <p>Name a flow above to open it on the canvas, then add a trigger and the steps after it.</p>
        </EmptyState>
      )}
      {flows.data && flows.data.length > 0 && (
        <table className="table" aria-label="Flows">
          <thead>
            <tr>
              <th>Name</th>
              <th className="col-num">Nodes</th>
              <th className="col-num">Edges</th>
              <th className="col-date">Updated</th>
              <th className="col-status">Active</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {flows.data.map((flow) => (
              <tr key={flow.id}>
                <td>
                  {renaming?.id === flow.id ? (
                    <form className="row" onSubmit={(e) => void rename(e)}>
                      <input autoFocus value={renaming.name} onChange={(e) => setRenaming({ id: flow.id, name: e.target.value })} onKeyDown={(e) => e.key === 'Escape' && setRenaming(null)} aria-label="Flow name" maxLength={200} />
                      <button type="submit" className="button small primary">
                        Save
                      </button>
                    </form>
                  ) : (
                    <a className="strong-link" href={hrefFor({ page: 'flow', flowId: flow.id })}>
                      {flow.name}
                    </a>
                  )}
                </td>
                <td className="col-num">{flow.nodeCount}</td>
                <td className="col-num">{flow.edgeCount}</td>
                <td className="col-date">{timeAgo(flow.updatedAt)}</td>
                <td className="col-status">
                  <ActiveToggle flow={flow} onChanged={replace} onError={setError} />
                </td>
                <td className="col-actions">
                  <button type="button" className="button small ghost" onClick={() => setRenaming({ id: flow.id, name: flow.name })}>
                    Rename
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
