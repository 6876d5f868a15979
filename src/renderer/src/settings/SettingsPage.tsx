import { ModelPanel } from './ModelPanel.tsx';
import { TokensPanel } from './TokensPanel.tsx';

/** API tokens, and the models Hearth answers and embeds with. */
export function SettingsPage() {
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Settings</h1>
          <p className="muted">Tokens for scripts, and the models this workspace uses.</p>
        </div>
      </header>
      <TokensPanel />
      <ModelPanel />
    </div>
  );
}
