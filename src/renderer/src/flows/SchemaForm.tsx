import { useEffect, useRef, useState } from 'react';
import type { JsonSchema } from '../api/flows.ts';

interface SchemaFormProps {
  schema: JsonSchema;
  value: Record<string, unknown>;
  onChange: (value: Record<string, unknown>) => void;
  /** The API's fieldErrors; keys are dotted paths such as `config.prompt`. */
  errors?: Record<string, string[]>;
  path?: string;
}

function FieldErrors({ messages }: { messages: string[] | undefined }) {
  return (
    <>
      {messages?.map((m) => (
        <span key={m} className="field-error">
          {m}
        </span>
      ))}
    </>
  );
}

function schemaType(schema: JsonSchema): string {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type) return type;
  if (schema.enum) return 'enum';
  if (schema.properties) return 'object';
  return 'unknown';
}

function titleFor(name: string, schema: JsonSchema): string {
  if (schema.title) return schema.title;
  return name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());
}

function optionText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const LONG_TEXT = /prompt|template|body|text|message|content|script|code|instructions|sampleData/i;

/** A JSON editor for what the form cannot show as plain fields; invalid JSON is held back, not saved. */
export function JsonField({ value, onChange, label }: { value: unknown; onChange: (value: unknown) => void; label: string }) {
  const [text, setText] = useState(() => JSON.stringify(value ?? null, null, 2));
  const [invalid, setInvalid] = useState(false);
  const emitted = useRef<string>(JSON.stringify(value ?? null));
  // Only a value from outside (another node, a reload) replaces what is being typed.
  useEffect(() => {
    const incoming = JSON.stringify(value ?? null);
    if (incoming === emitted.current) return;
    emitted.current = incoming;
    setText(JSON.stringify(value ?? null, null, 2));
    setInvalid(false);
  }, [value]);
  return (
    <>
      <textarea
        className="code"
        aria-label={label}
        rows={Math.min(12, Math.max(3, text.split('\n').length))}
        value={text}
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          try {
            const parsed: unknown = JSON.parse(e.target.value);
            setInvalid(false);
            emitted.current = JSON.stringify(parsed);
            onChange(parsed);
          } catch {
            setInvalid(true);
          }
        }}
      />
      {invalid && <span className="field-error">Not valid JSON yet; the last valid value is kept.</span>}
    </>
  );
}

interface FieldForProps {
  name: string;
  schema: JsonSchema;
  value: unknown;
  onChange: (value: unknown) => void;
  errors: Record<string, string[]>;
  path: string;
}

function FieldFor({ name, schema, value, onChange, errors, path }: FieldForProps) {
  const own = errors[path];
  const label = titleFor(name, schema);
  const type = schemaType(schema);
  const hint = (
    <>
      {schema.description && <span className="field-hint">{schema.description}</span>}
      <FieldErrors messages={own} />
    </>
  );

  if (schema.enum) {
    return (
      <label className="field">
        <span className="field-label">{label}</span>
        <select aria-label={label} value={value === undefined ? '' : optionText(value)} onChange={(e) => onChange(schema.enum?.find((option) => optionText(option) === e.target.value) ?? e.target.value)}>
          {value === undefined && <option value="">—</option>}
          {schema.enum.map((option) => (
            <option key={optionText(option)} value={optionText(option)}>
              {optionText(option)}
            </option>
          ))}
        </select>
        {hint}
      </label>
    );
  }
  if (type === 'boolean') {
    return (
      <label className="check">
        <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
        {label}
        {hint}
      </label>
    );
  }
  if (type === 'number' || type === 'integer') {
    return (
      <label className="field">
        <span className="field-label">{label}</span>
        <input
          type="number"
          aria-label={label}
          value={typeof value === 'number' ? value : ''}
          min={schema.minimum}
          max={schema.maximum}
          step={type === 'integer' ? 1 : 'any'}
          onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
        />
        {hint}
      </label>
    );
  }
  if (type === 'string') {
    const long = LONG_TEXT.test(name) || schema.format === 'textarea' || schema.format === 'multiline';
    return (
      <label className="field">
        <span className="field-label">{label}</span>
        {long ? (
          <textarea aria-label={label} rows={4} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />
        ) : (
          <input aria-label={label} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />
        )}
        {hint}
      </label>
    );
  }
  if (type === 'array' && schema.items && ['string', 'number'].includes(schemaType(schema.items)) && !schema.items.enum) {
    const list = Array.isArray(value) ? value : [];
    const numeric = schemaType(schema.items) === 'number';
    return (
      <label className="field">
        <span className="field-label">{label}</span>
        <textarea
          aria-label={label}
          rows={3}
          value={list.map(String).join('\n')}
          onChange={(e) => {
            const lines = e.target.value.split('\n');
            onChange(numeric ? lines.filter((l) => l.trim()).map(Number) : lines);
          }}
        />
        <span className="field-hint">One per line.{schema.description ? ` ${schema.description}` : ''}</span>
        <FieldErrors messages={own} />
      </label>
    );
  }
  if (type === 'object' && schema.properties) {
    const object = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    return (
      <fieldset className="fieldset">
        <legend>{label}</legend>
        {hint}
        <SchemaForm schema={schema} value={object} onChange={onChange} errors={errors} path={path} />
      </fieldset>
    );
  }
  return (
    <label className="field">
      <span className="field-label">{label}</span>
      <JsonField label={label} value={value} onChange={onChange} />
      {hint}
    </label>
  );
}

/** Form fields generated from a node type's configSchema (JSON Schema). */
export function SchemaForm({ schema, value, onChange, errors = {}, path = '' }: SchemaFormProps) {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) return <JsonField label="Config (JSON)" value={value} onChange={(v) => onChange(v && typeof v === 'object' ? (v as Record<string, unknown>) : {})} />;
  return (
    <div className="schema-form">
      {properties.map(([name, property]) => (
        <FieldFor key={name} name={name} schema={property} value={value[name]} errors={errors} path={path ? `${path}.${name}` : name} onChange={(next) => onChange({ ...value, [name]: next })} />
      ))}
    </div>
  );
}
