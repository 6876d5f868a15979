import type { ReactNode } from 'react';

/** An error line (role=alert, so screen readers hear it) or a quieter note. */
export function ErrorNote({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p role="alert" className="notice notice-error">
      {error}
    </p>
  );
}

export function Note({ children, tone = 'info' }: { children: ReactNode; tone?: 'info' | 'success' | 'warn' }) {
  return <p className={`notice notice-${tone}`}>{children}</p>;
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <h3>{title}</h3>
      {children}
    </div>
  );
}
