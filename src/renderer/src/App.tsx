import { useEffect, useState } from 'react';
import { apiRequest } from './api.ts';
import { readSession } from './session.ts';

interface Identity {
  userId: string;
  orgId: string;
  tokenKind: string;
  scopes: string[];
}

const session = readSession();

export function App() {
  const [identity, setIdentity] = useState<Identity | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!session.token) {
      setError('Open Hearth from the link that `hearth serve` prints, or from the desktop app.');
      return;
    }
    apiRequest<Identity>(session, 'GET', '/api/ai/knowledge/me')
      .then(setIdentity)
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  }, []);

  return (
    <main className="shell">
      <header>
        <h1>Hearth</h1>
        <p className="tagline">Offline knowledge bases and AI workflows.</p>
      </header>
      {error && <p role="alert" className="error">{error}</p>}
      {identity && (
        <section aria-label="Workspace">
          <p>
            Workspace <code data-testid="workspace-id">{identity.orgId}</code>
          </p>
          <p>Signed in as the app ({identity.scopes.join(', ')}).</p>
        </section>
      )}
    </main>
  );
}
