import { useState } from 'react';
import { errorText } from '../api/http.ts';
import { tokensApi, type TokenSummary, type TokenWithSecret } from '../api/tokens.ts';
import { timeAgo } from '../ui/format.ts';
import { EmptyState, ErrorNote } from '../ui/Notice.tsx';
import { useLoad } from '../ui/useLoad.ts';
import { NewTokenForm } from './NewTokenForm.tsx';
import { SecretBox } from './SecretBox.tsx';

function scopeText(token: TokenSummary): string {
  return `${token.access === 'write' ? 'Read & write' : 'Read only'} · ${token.resources.join(', ')}`;
}

/** Personal tokens: create (secret shown once, with copy), reveal again, revoke. */
export function TokensPanel() {
  const tokens = useLoad(() => tokensApi.list(), 'tokens');
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<TokenWithSecret | null>(null);
  const [error, setError] = useState<string | null>(null);

  const act = async (work: () => Promise<void>): Promise<void> => {
    setError(null);
    try {
      await work();
      await tokens.reload();
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <section className="panel" aria-labelledby="tokens-title">
      <header className="panel-header">
        <div>
          <h2 id="tokens-title">API tokens</h2>
          <p className="muted small">
            Scripts call <code>{window.location.origin}/api/ai/knowledge</code> and <code>/api/ai/simple-flow</code> with <code>Authorization: Bearer &lt;token&gt;</code>. A write token can change
            content and spend credits: keep it server-side.
          </p>
        </div>
        {!creating && (
          <button type="button" className="button primary" onClick={() => setCreating(true)}>
            New token
          </button>
        )}
      </header>
      {creating && (
        <NewTokenForm
          onCancel={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setSecret(created);
            void tokens.reload();
          }}
        />
      )}
      {secret && <SecretBox token={secret} onDismiss={() => setSecret(null)} />}
      <ErrorNote error={tokens.error ?? error} />
      {tokens.data?.length === 0 && !creating && (
        <EmptyState title="No tokens yet">
          <p>Create one to use the API from a script, curl or another tool.</p>
        </EmptyState>
      )}
      {tokens.data && tokens.data.length > 0 && (
        <table className="table" aria-label="Tokens">
          <thead>
            <tr>
              <th>Name</th>
              <th>Access</th>
              <th className="col-date">Created</th>
              <th className="col-date">Last used</th>
              <th className="col-date">Expires</th>
              <th className="col-status">State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((token) => (
              <tr key={token.id} data-testid={`token-row-${token.name}`}>
                <td>{token.name}</td>
                <td>{scopeText(token)}</td>
                <td className="col-date">{timeAgo(token.createdAt)}</td>
                <td className="col-date">{token.lastUsedAt ? timeAgo(token.lastUsedAt) : 'never'}</td>
                <td className="col-date">{token.expiresAt ? new Date(token.expiresAt).toLocaleDateString() : 'never'}</td>
                <td className="col-status">
                  <span className={`badge badge-token-${token.state}`}>{token.state}</span>
                </td>
                <td className="col-actions">
                  {token.state === 'active' && (
                    <>
                      <button type="button" className="button small ghost" onClick={() => void act(async () => setSecret(await tokensApi.reveal(token.id)))}>
                        Reveal
                      </button>
                      <button
                        type="button"
                        className="button small ghost danger"
                        onClick={() => {
                          if (window.confirm(`Revoke “${token.name}”? Scripts using it stop working at once.`)) void act(async () => void (await tokensApi.revoke(token.id)));
                        }}
                      >
                        Revoke
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
