import { lazy, Suspense, useEffect, useState } from 'react';
import type { Identity } from './App.tsx';
import { settingsApi, type WorkspaceView } from './api/settings.ts';
import { BasesPage } from './knowledge/BasesPage.tsx';
import { BasePage } from './knowledge/BasePage.tsx';
import { FlowsPage } from './flows/FlowsPage.tsx';
import { SettingsPage } from './settings/SettingsPage.tsx';
import { hrefFor, useRoute, type Route } from './router.ts';
import { formatNumber } from './ui/format.ts';

// The canvas library is the largest part of the UI: load it when a flow is opened.
const FlowEditor = lazy(() => import('./flows/FlowEditor.tsx').then((m) => ({ default: m.FlowEditor })));

const NAV: { label: string; route: Route; matches: Route['page'][]; key: string }[] = [
  { label: 'Knowledge', route: { page: 'knowledge' }, matches: ['knowledge', 'base'], key: 'k' },
  { label: 'Workflows', route: { page: 'workflows' }, matches: ['workflows', 'flow'], key: 'w' },
  { label: 'Settings', route: { page: 'settings' }, matches: ['settings'], key: 's' },
];

/** Left navigation, workspace and balance; the page for the current route on the right. */
export function AppFrame({ identity }: { identity: Identity }) {
  const route = useRoute();
  const [workspace, setWorkspace] = useState<WorkspaceView | null>(null);
  const balance = workspace?.creditBalance ?? null;

  // The balance moves as asks and runs spend credits: refresh it now and then.
  useEffect(() => {
    const refresh = (): void => {
      settingsApi
        .workspace()
        .then(setWorkspace)
        .catch(() => setWorkspace(null));
    };
    refresh();
    const timer = setInterval(refresh, 15_000);
    return () => clearInterval(timer);
  }, []);

  // g then k/w/s jumps between sections, unless the user is typing.
  useEffect(() => {
    let armed = false;
    const onKey = (event: KeyboardEvent): void => {
      const target = event.target as HTMLElement;
      if (target.closest('input, textarea, select, [contenteditable]') || event.metaKey || event.ctrlKey || event.altKey) return;
      if (armed) {
        armed = false;
        const item = NAV.find((n) => n.key === event.key);
        if (item) window.location.hash = hrefFor(item.route).slice(1);
        return;
      }
      if (event.key === 'g') armed = true;
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="frame">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Hearth
        </div>
        <div className="workspace" title={`Workspace id ${identity.orgId}`}>
          <span className="sidebar-caption">Workspace</span>
          <strong className="workspace-name" data-testid="workspace-name">
            {workspace?.name ?? '…'}
          </strong>
          <code data-testid="workspace-id">{identity.orgId}</code>
        </div>
        <ul className="nav-list">
          {NAV.map((item) => (
            <li key={item.label}>
              <a href={hrefFor(item.route)} className={item.matches.includes(route.page) ? 'nav-link active' : 'nav-link'} aria-current={item.matches.includes(route.page) ? 'page' : undefined}>
                {item.label}
                <kbd>g {item.key}</kbd>
              </a>
            </li>
          ))}
        </ul>
        <div className="sidebar-footer">
          <span className="sidebar-caption">Credits</span>
          <strong data-testid="credit-balance">{balance === null ? '—' : formatNumber(balance, balance % 1 ? 2 : 0)}</strong>
        </div>
      </nav>
      <main className="content">
        <RoutedPage route={route} />
      </main>
    </div>
  );
}

function RoutedPage({ route }: { route: Route }) {
  switch (route.page) {
    case 'knowledge':
      return <BasesPage />;
    case 'base':
      return <BasePage key={route.baseId} baseId={route.baseId} />;
    case 'workflows':
      return <FlowsPage />;
    case 'flow':
      return (
        <Suspense fallback={<p className="muted pad">Opening the canvas…</p>}>
          <FlowEditor key={route.flowId} flowId={route.flowId} />
        </Suspense>
      );
    case 'settings':
      return <SettingsPage />;
  }
}
