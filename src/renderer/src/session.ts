/**
 * Where the API is and how the UI authenticates: the desktop preload provides
 * both; in a browser the page is served by the engine itself and `hearth serve`
 * prints a link carrying the app session in the URL fragment (never sent to a server).
 */
export interface Session {
  apiBaseUrl: string;
  token: string | null;
}

const STORAGE_KEY = 'hearth.session';

export function readSession(): Session {
  if (window.hearth?.sessionToken) return { apiBaseUrl: window.hearth.apiBaseUrl, token: window.hearth.sessionToken };
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const fromUrl = fragment.get('session');
  if (fromUrl) {
    sessionStorage.setItem(STORAGE_KEY, fromUrl);
    history.replaceState(null, '', window.location.pathname + window.location.search);
  }
  return { apiBaseUrl: window.location.origin, token: fromUrl ?? sessionStorage.getItem(STORAGE_KEY) };
}
