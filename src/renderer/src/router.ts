import { useEffect, useState } from 'react';

/**
 * Hash routes (`#/knowledge/<id>`): they work both when the engine serves the UI
 * and when Electron loads it from a file, where there is no server to fall back on.
 */
export type Route =
  | { page: 'knowledge' }
  | { page: 'base'; baseId: string }
  | { page: 'workflows' }
  | { page: 'flow'; flowId: string }
  | { page: 'settings' };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'knowledge' && parts[1]) return { page: 'base', baseId: parts[1] };
  if (parts[0] === 'workflows' && parts[1]) return { page: 'flow', flowId: parts[1] };
  if (parts[0] === 'workflows') return { page: 'workflows' };
  if (parts[0] === 'settings') return { page: 'settings' };
  return { page: 'knowledge' };
}

export function hrefFor(route: Route): string {
  switch (route.page) {
    case 'knowledge':
      return '#/knowledge';
    case 'base':
      return `#/knowledge/${encodeURIComponent(route.baseId)}`;
    case 'workflows':
      return '#/workflows';
    case 'flow':
      return `#/workflows/${encodeURIComponent(route.flowId)}`;
    case 'settings':
      return '#/settings';
  }
}

export function navigate(route: Route): void {
  window.location.hash = hrefFor(route).slice(1);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
