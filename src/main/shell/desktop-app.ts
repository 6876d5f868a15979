import { app, BrowserWindow, dialog, shell } from 'electron';
import { join } from 'node:path';
import { Engine } from '../engine/engine.ts';
import { DEFAULT_PORT, PortInUseError, startServer, type RunningServer } from '../engine/http/server.ts';
import { BRIDGE_ARG_PREFIX } from '../../shared/bridge.ts';

/**
 * Starts the engine on Electron's user-data folder, serves the API on the usual
 * loopback port (so local scripts reach the desktop app as they reach `hearth serve`),
 * and opens a window on the UI the engine serves.
 */
export function startDesktopApp(): void {
  let engine: Engine | undefined;
  let server: RunningServer | undefined;

  const uiDir = join(import.meta.dirname, '..', 'renderer');

  async function boot(): Promise<void> {
    // Packaged builds carry the bundled models in resources/models (electron-builder extraResources).
    const bundledModelsDir = app.isPackaged ? join(process.resourcesPath, 'models') : undefined;
    engine = new Engine({ dataDir: app.getPath('userData'), bundledModelsDir });
    try {
      server = await startServer(engine, { port: Number(process.env.HEARTH_PORT ?? DEFAULT_PORT), uiDir });
    } catch (error) {
      if (!(error instanceof PortInUseError)) throw error;
      // Another Hearth (perhaps `hearth serve`) holds the port: run on a free one instead.
      server = await startServer(engine, { port: 0, uiDir });
    }
    openWindow(server.url, engine.identity.appSessionSecret);
  }

  function openWindow(apiBaseUrl: string, sessionToken: string): void {
    const bridgeArg = BRIDGE_ARG_PREFIX + encodeURIComponent(JSON.stringify({ apiBaseUrl, sessionToken }));
    const window = new BrowserWindow({
      width: 1280,
      height: 820,
      title: 'Hearth',
      webPreferences: {
        preload: join(import.meta.dirname, '..', 'preload', 'index.mjs'),
        contextIsolation: true,
        sandbox: false,
        nodeIntegration: false,
        additionalArguments: [bridgeArg],
      },
    });
    window.webContents.setWindowOpenHandler(({ url }) => {
      void shell.openExternal(url);
      return { action: 'deny' };
    });
    const devUrl = process.env.ELECTRON_RENDERER_URL;
    void window.loadURL(devUrl ?? apiBaseUrl);
  }

  async function shutdown(): Promise<void> {
    await server?.dispose();
    await engine?.dispose();
  }

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0 && server && engine) openWindow(server.url, engine.identity.appSessionSecret);
  });
  app.on('will-quit', (event) => {
    if (!engine) return;
    event.preventDefault();
    const stopping = shutdown();
    engine = undefined;
    void stopping.finally(() => app.quit());
  });

  app
    .whenReady()
    .then(boot)
    .catch((error: unknown) => {
      dialog.showErrorBox('Hearth could not start', error instanceof Error ? error.message : String(error));
      app.exit(1);
    });
}
