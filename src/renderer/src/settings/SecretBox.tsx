import { useState } from 'react';
import type { TokenWithSecret } from '../api/tokens.ts';

/** The token's secret with a copy button; shown after creating or revealing. */
export function SecretBox({ token, onDismiss }: { token: TokenWithSecret; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(token.token);
      setCopied(true);
    } catch {
      // Clipboard refused (no permission, not a secure context): select the text instead.
      document.getSelection()?.selectAllChildren(document.getElementById('token-secret') ?? document.body);
    }
  };
  return (
    <div className="secret" role="status">
      <p>
        <strong>{token.name}</strong>: copy this token now and store it somewhere safe.
      </p>
      <div className="row">
        <code id="token-secret" className="secret-value" data-testid="token-secret">
          {token.token}
        </code>
        <button type="button" className="button small" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="button small ghost" onClick={onDismiss}>
          Done
        </button>
      </div>
    </div>
  );
}
