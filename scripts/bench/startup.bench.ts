// Time from `hearth serve` to the first answered API request, and the server's idle RSS.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './bench.types.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const hearth = join(root, 'bin', 'hearth.js');

function cli(dataDir: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [hearth, '--data-dir', dataDir, ...args]);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`hearth ${args.join(' ')} exited ${code}`))));
  });
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 102.4) / 10;
}

async function once(): Promise<{ firstAnswerMs: number; idleRssMb: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-startup-'));
  try {
    const { token } = JSON.parse(await cli(dataDir, ['token', 'create', '--name', 'bench', '--json'])) as { token: string };
    const started = performance.now();
    const child = spawn(process.execPath, [hearth, '--data-dir', dataDir, 'serve', '--port', '0', '--json']);
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0]) as { url: string }).url);
      });
      child.once('exit', () => reject(new Error('serve exited')));
    });
    for (;;) {
      const res = await fetch(`${url}/api/ai/knowledge/me`, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
      if (res?.status === 200) break;
    }
    const firstAnswerMs = Math.round(performance.now() - started);
    await new Promise((r) => setTimeout(r, 1500));
    const idleRssMb = rssMb(child.pid!);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    return { firstAnswerMs, idleRssMb };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchRow[]> {
  const runs = [];
  for (let i = 0; i < 5; i++) runs.push(await once());
  const ms = runs.map((r) => r.firstAnswerMs).sort((a, b) => a - b);
  const rss = runs.map((r) => r.idleRssMb).sort((a, b) => a - b);
  return [
    { group: 'startup', name: 'hearth serve -> first answered request (median of 5)', value: ms[2], unit: 'ms', note: `min ${ms[0]}, max ${ms[4]}` },
    { group: 'startup', name: 'idle RSS of hearth serve (median of 5)', value: rss[2], unit: 'MB' },
  ];
}
