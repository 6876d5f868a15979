import type { ReactNode } from 'react';

interface FieldProps {
  label: string;
  hint?: string;
  errors?: string[];
  children: ReactNode;
}

/** A labelled control with its hint and the API's field errors beneath it. */
export function Field({ label, hint, errors, children }: FieldProps) {
  return (
    <label className={errors?.length ? 'field field-invalid' : 'field'}>
      <span className="field-label">{label}</span>
      {children}
      {hint && !errors?.length && <span className="field-hint">{hint}</span>}
      {errors?.map((message) => (
        <span key={message} className="field-error">
          {message}
        </span>
      ))}
    </label>
  );
}
