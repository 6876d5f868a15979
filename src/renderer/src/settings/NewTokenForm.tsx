import { useState, type FormEvent } from 'react';
import { ApiRequestError, errorText } from '../api/http.ts';
import { tokensApi, type Access, type Resource, type TokenWithSecret } from '../api/tokens.ts';
import { Field } from '../ui/Field.tsx';
import { ErrorNote } from '../ui/Notice.tsx';

const EXPIRY_CHOICES = [
  { label: 'Never', days: 0 },
  { label: '7 days', days: 7 },
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '1 year', days: 365 },
];

export function NewTokenForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (token: TokenWithSecret) => void }) {
  const [name, setName] = useState('');
  const [access, setAccess] = useState<Access>('read');
  const [resources, setResources] = useState<Resource[]>(['knowledge']);
  const [expiryDays, setExpiryDays] = useState(0);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const toggle = (resource: Resource): void => setResources((list) => (list.includes(resource) ? list.filter((r) => r !== resource) : [...list, resource]));

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setFieldErrors({});
    try {
      const expiresAt = expiryDays ? new Date(Date.now() + expiryDays * 86_400_000).toISOString() : null;
      onCreated(await tokensApi.create({ name: name.trim(), access, resources, expiresAt }));
    } catch (e) {
      setError(errorText(e));
      if (e instanceof ApiRequestError) setFieldErrors(e.fieldErrors);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="form card" onSubmit={(e) => void submit(e)} aria-label="New token">
      <div className="form-row">
        <Field label="Name" hint="What uses it, e.g. “nightly import”." errors={fieldErrors.name}>
          <input autoFocus value={name} onChange={(e) => setName(e.target.value)} maxLength={120} required aria-label="Token name" />
        </Field>
        <Field label="Expires" errors={fieldErrors.expiresAt}>
          <select value={expiryDays} onChange={(e) => setExpiryDays(Number(e.target.value))} aria-label="Expires">
            {EXPIRY_CHOICES.map((choice) => (
              <option key={choice.days} value={choice.days}>
                {choice.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <fieldset className="fieldset">
        <legend>Access</legend>
        <label className="check">
          <input type="radio" name="access" checked={access === 'read'} onChange={() => setAccess('read')} /> Read only
        </label>
        <label className="check">
          <input type="radio" name="access" checked={access === 'write'} onChange={() => setAccess('write')} /> Read and write
        </label>
      </fieldset>
      <fieldset className="fieldset">
        <legend>Resources</legend>
        <label className="check">
          <input type="checkbox" checked={resources.includes('knowledge')} onChange={() => toggle('knowledge')} /> Knowledge bases
        </label>
        <label className="check">
          <input type="checkbox" checked={resources.includes('workflows')} onChange={() => toggle('workflows')} /> Workflows
        </label>
        {fieldErrors.resources?.map((m) => (
          <span key={m} className="field-error">
            {m}
          </span>
        ))}
      </fieldset>
      <ErrorNote error={error} />
      <footer className="form-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={busy}>
          Create token
        </button>
      </footer>
    </form>
  );
}
