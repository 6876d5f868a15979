import { useEffect, useState, type FormEvent } from 'react';
import { ApiRequestError, errorText } from '../api/http.ts';
import { settingsApi, type ModelSettingsInput, type ModelTestResult } from '../api/settings.ts';
import { Field } from '../ui/Field.tsx';
import { formatNumber } from '../ui/format.ts';
import { ErrorNote, Note } from '../ui/Notice.tsx';
import { useLoad } from '../ui/useLoad.ts';

function unavailable(error: string | null, status: unknown): boolean {
  return Boolean(error) && status === 404;
}

/** The OpenAI-compatible server that answers asks and runs LLM nodes. */
function AnswerModelSettings() {
  const [status, setStatus] = useState<number | null>(null);
  const settings = useLoad(
    () =>
      settingsApi.modelSettings().catch((e: unknown) => {
        if (e instanceof ApiRequestError) setStatus(e.status);
        throw e;
      }),
    'model',
  );
  const [baseUrl, setBaseUrl] = useState('');
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [test, setTest] = useState<ModelTestResult | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setBaseUrl(settings.data?.baseUrl ?? '');
    setModel(settings.data?.model ?? '');
  }, [settings.data]);

  if (unavailable(settings.error, status)) return <Note>Answer-model settings are not available in this build.</Note>;

  const input = (): ModelSettingsInput => ({ baseUrl: baseUrl.trim(), model: model.trim(), ...(apiKey ? { apiKey } : {}) });
  const act = async (work: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(null);
    setNote(null);
    setFieldErrors({});
    try {
      await work();
    } catch (e) {
      setError(errorText(e));
      if (e instanceof ApiRequestError) setFieldErrors(e.fieldErrors);
    } finally {
      setBusy(false);
    }
  };

  const save = (event: FormEvent): void => {
    event.preventDefault();
    void act(async () => {
      settings.setData(await settingsApi.saveModelSettings(input()));
      setApiKey('');
      setNote('Saved.');
    });
  };

  return (
    <form className="form" onSubmit={save} aria-label="Answer model">
      <h3>Answer model</h3>
      <p className="muted small">Any OpenAI-compatible server: Ollama, LM Studio, llama.cpp, vLLM or OpenAI. Used by Ask and by LLM nodes.</p>
      <div className="form-row">
        <Field label="Base URL" errors={fieldErrors.baseUrl}>
          <input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="http://127.0.0.1:11434/v1" aria-label="Base URL" />
        </Field>
        <Field label="Model" errors={fieldErrors.model}>
          <input value={model} onChange={(e) => setModel(e.target.value)} placeholder="llama3.2" aria-label="Model" />
        </Field>
      </div>
      <Field label="API key" hint={settings.data?.apiKeySet ? `A key is stored${settings.data.apiKeyHint ? ` (…${settings.data.apiKeyHint})` : ''}; leave empty to keep it.` : 'Only if the server needs one.'} errors={fieldErrors.apiKey}>
        <input type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} autoComplete="off" aria-label="API key" />
      </Field>
      <ErrorNote error={settings.error ?? error} />
      {note && <Note tone="success">{note}</Note>}
      {test && (
        <Note tone={test.ok ? 'success' : 'warn'}>
          {test.ok ? `The model answered in ${test.latencyMs} ms${test.reply ? `: “${test.reply.slice(0, 120)}”` : '.'}` : `Test failed: ${test.error ?? 'no answer'}`}
        </Note>
      )}
      <footer className="form-actions">
        {settings.data?.configured && (
          <button type="button" className="button ghost danger" disabled={busy} onClick={() => void act(async () => settings.setData(await settingsApi.clearModelSettings()))}>
            Remove
          </button>
        )}
        <button type="button" className="button" disabled={busy || !baseUrl.trim() || !model.trim()} onClick={() => void act(async () => setTest(await settingsApi.testModel(input())))}>
          Test
        </button>
        <button type="submit" className="button primary" disabled={busy}>
          Save
        </button>
      </footer>
    </form>
  );
}

function EmbeddingModels() {
  const [status, setStatus] = useState<number | null>(null);
  const models = useLoad(
    () =>
      settingsApi.embeddingModels().catch((e: unknown) => {
        if (e instanceof ApiRequestError) setStatus(e.status);
        throw e;
      }),
    'embedding-models',
  );
  const [path, setPath] = useState('');
  const [error, setError] = useState<string | null>(null);

  if (unavailable(models.error, status)) return null;

  const importFolder = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setError(null);
    try {
      await settingsApi.importEmbeddingModel(path.trim());
      setPath('');
      await models.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div className="form">
      <h3>Embedding models</h3>
      <p className="muted small">Run on this machine; they turn entries and questions into vectors for search.</p>
      <ErrorNote error={models.error ?? error} />
      {models.data && (
        <table className="table compact" aria-label="Embedding models">
          <thead>
            <tr>
              <th>Model</th>
              <th className="col-num">Dimensions</th>
              <th>Languages</th>
              <th className="col-num">Size</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {models.data.models.map((m) => (
              <tr key={m.id}>
                <td>
                  <code>{m.id}</code>
                </td>
                <td className="col-num">{m.dimensions}</td>
                <td>{m.languages}</td>
                <td className="col-num">{formatNumber(m.sizeBytes / 1_048_576, 1)} MB</td>
                <td>{m.isDefault ? <span className="badge">default</span> : <span className="muted small">{m.origin}</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="row" onSubmit={(e) => void importFolder(e)}>
        <input className="grow" value={path} onChange={(e) => setPath(e.target.value)} placeholder="/path/to/model-folder (ONNX sentence model)" aria-label="Model folder" />
        <button type="submit" className="button" disabled={!path.trim()}>
          Add from folder
        </button>
      </form>
    </div>
  );
}

/** Credits balance and its recent movements. */
function CreditsSummary() {
  const credits = useLoad(() => settingsApi.credits(), 'credits');
  if (!credits.data) return null;
  return (
    <div className="form">
      <h3>Credits</h3>
      <p>
        <strong className="big-number">{formatNumber(credits.data.balance, credits.data.balance % 1 ? 2 : 0)}</strong> <span className="muted">credits left in this workspace</span>
      </p>
      <p className="muted small">
        Set the balance with <code>hearth credits set --balance N</code>.
      </p>
    </div>
  );
}

export function ModelPanel() {
  return (
    <section className="panel" aria-label="Models and credits">
      <header className="panel-header">
        <h2>Models and credits</h2>
      </header>
      <AnswerModelSettings />
      <EmbeddingModels />
      <CreditsSummary />
    </section>
  );
}
