import { useEffect, useState } from 'react';
import { apiRequest, errorText, useSessionForApi } from './api/http.ts';
import { readSession } from './session.ts';
import { AppFrame } from './AppFrame.tsx';

export interface Identity {
  userId: string;
  orgId: string;
  tokenKind: string;
  scopes: string[];
}

const session = readSession();
useSessionForApi(session);

export function App() {
  const [identity, setIdentity] = useState<Identity | null>(null);
  const [error, setError] = useState<string | null>(session.token ? null : 'Open Hearth from the link that `hearth serve` prints, or from the desktop app.');

  useEffect(() => {
    if (!session.token) return;
    apiRequest<Identity>('GET', '/api/ai/knowledge/me')
      .then(setIdentity)
      .catch((e: unknown) => setError(`${errorText(e)} Open Hearth again from the link that \`hearth serve\` prints.`));
  }, []);

  if (identity) return <AppFrame identity={identity} />;
  return (
    <main className="signin">
      <div className="signin-card">
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true" />
          Hearth
        </div>
        <p className="muted">Offline knowledge bases and AI workflows.</p>
        {error ? (
          <p role="alert" className="notice notice-error">
            {error}
          </p>
        ) : (
          <p className="muted">Connecting…</p>
        )}
      </div>
    </main>
  );
}
