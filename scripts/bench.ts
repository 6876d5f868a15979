// `npm run bench [-- --json] [-- NAME[,NAME]...]` (`--only NAME,NAME` too): every benchmark module in scripts/bench (or the named ones), one table.
// Each module measures its subsystem and, where the issue asks, a baseline in the same run.
import type { BenchRow } from './bench/bench.types.ts';

const modules: Array<{ name: string; load: () => Promise<{ run(): Promise<BenchRow[]> }> }> = [
  { name: 'startup', load: () => import('./bench/startup.bench.ts') },
  { name: 'embeddings', load: () => import('./bench/embeddings.bench.ts') },
  { name: 'search', load: () => import('./bench/search.bench.ts') },
  { name: 'ask', load: () => import('./bench/ask.bench.ts') },
  { name: 'flows', load: () => import('./bench/flows.bench.ts') },
];

const json = process.argv.includes('--json');
const named = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'))
  .flatMap((a) => a.split(','))
  .filter(Boolean);
const unknown = named.filter((n) => !modules.some((m) => m.name === n));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown module ${unknown.join(', ')}; modules: ${modules.map((m) => m.name).join(', ')}\n`);
  process.exit(2);
}
const rows: BenchRow[] = [];
for (const mod of modules.filter((m) => named.length === 0 || named.includes(m.name))) {
  if (!json) process.stderr.write(`bench: ${mod.name}...\n`);
  rows.push(...(await (await mod.load()).run()));
}
if (json) {
  process.stdout.write(JSON.stringify(rows) + '\n');
} else {
  for (const row of rows) {
    process.stdout.write(`${row.group.padEnd(14)} ${row.name.padEnd(52)} ${String(row.value).padStart(12)} ${row.unit}${row.note ? `  (${row.note})` : ''}\n`);
  }
}
