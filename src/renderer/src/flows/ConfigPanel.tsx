import { useEffect, useState, type FormEvent } from 'react';
import { ApiRequestError, errorText } from '../api/http.ts';
import { flowsApi, type FlowNode, type LogEntry, type NodeTypeInfo } from '../api/flows.ts';
import { ErrorNote, Note } from '../ui/Notice.tsx';
import { NodeRunResult } from './RunPanel.tsx';
import { JsonField, SchemaForm } from './SchemaForm.tsx';

interface ConfigPanelProps {
  flowId: string;
  node: FlowNode;
  typeInfo: NodeTypeInfo | undefined;
  logEntry: LogEntry | undefined;
  onSaved: (node: FlowNode) => void;
  onDelete: () => void;
  onClose: () => void;
}

/** The selected node: label, description and its config form; saved with PATCH config. */
export function ConfigPanel({ flowId, node, typeInfo, logEntry, onSaved, onDelete, onClose }: ConfigPanelProps) {
  const [label, setLabel] = useState(node.label);
  const [description, setDescription] = useState(node.description);
  const [config, setConfig] = useState<Record<string, unknown>>(node.config ?? {});
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const [asJson, setAsJson] = useState(false);

  // Another edit (API, live feed) replaced the node: show the new values.
  useEffect(() => {
    setLabel(node.label);
    setDescription(node.description);
    setConfig(node.config ?? {});
  }, [node]);

  const dirty = label !== node.label || description !== node.description || JSON.stringify(config) !== JSON.stringify(node.config ?? {});

  const save = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    setFieldErrors({});
    try {
      onSaved(await flowsApi.updateNode(flowId, node.id, { label, description, config }));
      setSaved(true);
    } catch (e) {
      setError(errorText(e));
      if (e instanceof ApiRequestError) setFieldErrors(e.fieldErrors);
    } finally {
      setBusy(false);
    }
  };

  return (
    <aside className="inspector" aria-label="Node settings">
      <form className="form" onSubmit={(e) => void save(e)}>
        <header className="inspector-head">
          <div>
            <h2>{node.label || typeInfo?.label || node.type}</h2>
            <p className="muted small">
              {typeInfo?.label ?? node.type} · <code>{node.id}</code>
            </p>
          </div>
          <button type="button" className="icon-button" aria-label="Close node settings" onClick={onClose}>
            ×
          </button>
        </header>
        <label className="field">
          <span className="field-label">Label</span>
          <input value={label} onChange={(e) => setLabel(e.target.value)} aria-label="Label" />
        </label>
        <label className="field">
          <span className="field-label">Description</span>
          <input value={description} onChange={(e) => setDescription(e.target.value)} aria-label="Description" />
        </label>
        <div className="row">
          <h3 className="sidebar-title grow">Configuration</h3>
          <button type="button" className="button small ghost" onClick={() => setAsJson((v) => !v)}>
            {asJson ? 'Form' : 'JSON'}
          </button>
        </div>
        {asJson ? (
          <JsonField label="Config (JSON)" value={config} onChange={(v) => setConfig(v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {})} />
        ) : (
          <SchemaForm schema={typeInfo?.configSchema ?? {}} value={config} onChange={setConfig} errors={fieldErrors} path="config" />
        )}
        <p className="muted small">
          Use <code>{'{{field}}'}</code> for a field of the incoming item, <code>{'{{[node1].field}}'}</code> for another node&apos;s output.
        </p>
        <ErrorNote error={error} />
        {saved && !dirty && <Note tone="success">Saved.</Note>}
        <footer className="form-actions">
          <button type="button" className="button ghost danger" onClick={onDelete}>
            Delete node
          </button>
          <button type="submit" className="button primary" disabled={busy || !dirty}>
            Save
          </button>
        </footer>
      </form>
      {logEntry && (
        <section className="inspector-run" aria-label="Last run of this node">
          <h3 className="sidebar-title">Last run</h3>
          <NodeRunResult entry={logEntry} />
        </section>
      )}
    </aside>
  );
}
