import { useState, type FormEvent } from 'react';
import { ApiRequestError, errorText } from '../api/http.ts';
import { knowledgeApi, type KnowledgeBase } from '../api/knowledge.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { Field } from '../ui/Field.tsx';
import { ErrorNote } from '../ui/Notice.tsx';

interface BaseFormProps {
  existing?: KnowledgeBase;
  onClose: () => void;
  onSaved: (base: KnowledgeBase) => void;
}

/** Create a base, or edit its name, description, review rule and language. */
export function BaseForm({ existing, onClose, onSaved }: BaseFormProps) {
  const [name, setName] = useState(existing?.name ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [reviewBeforeIndex, setReview] = useState(existing?.reviewBeforeIndex ?? false);
  const [defaultLanguage, setLanguage] = useState(existing?.defaultLanguage ?? '');
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setSaving(true);
    setError(null);
    setFieldErrors({});
    const input = { name: name.trim(), description, reviewBeforeIndex, defaultLanguage: defaultLanguage.trim() || null };
    try {
      const saved = existing ? await knowledgeApi.updateBase(existing.id, input) : await knowledgeApi.createBase(input);
      onSaved(saved);
    } catch (e) {
      setError(errorText(e));
      if (e instanceof ApiRequestError) setFieldErrors(e.fieldErrors);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog title={existing ? 'Edit knowledge base' : 'New knowledge base'} onClose={onClose}>
      <form className="form" onSubmit={(e) => void submit(e)}>
        <Field label="Name" errors={fieldErrors.name}>
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={120} required placeholder="Support answers" />
        </Field>
        <Field label="Description" hint="Flows read this to decide when to search the base." errors={fieldErrors.description}>
          <textarea value={description} onChange={(e) => setDescription(e.target.value)} maxLength={2000} rows={3} />
        </Field>
        <Field label="Default language" hint="Language that extraction writes in; empty keeps the source's language." errors={fieldErrors.defaultLanguage}>
          <input value={defaultLanguage} onChange={(e) => setLanguage(e.target.value)} placeholder="e.g. English" />
        </Field>
        <label className="check">
          <input type="checkbox" checked={reviewBeforeIndex} onChange={(e) => setReview(e.target.checked)} />
          Review AI-extracted entries before they become searchable
        </label>
        <ErrorNote error={error} />
        <footer className="form-actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={saving}>
            {existing ? 'Save' : 'Create base'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
