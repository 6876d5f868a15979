/** The engine logs through this; the CLI and the shell decide where it goes. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

function write(level: string, message: string, fields?: Record<string, unknown>): void {
  const line = fields ? `${message} ${JSON.stringify(fields)}` : message;
  process.stderr.write(`[hearth] ${level} ${line}\n`);
}

/** Logs to stderr so that stdout stays clean for `--json` output. */
export const stderrLogger: Logger = {
  info: (m, f) => write('info', m, f),
  warn: (m, f) => write('warn', m, f),
  error: (m, f) => write('error', m, f),
};

export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
