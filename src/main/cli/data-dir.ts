import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The per-user application folder, the same one the desktop app uses
 * (Electron's userData for an app named Hearth), so both see one workspace.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.HEARTH_DATA_DIR) return env.HEARTH_DATA_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Hearth');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Hearth');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Hearth');
}
