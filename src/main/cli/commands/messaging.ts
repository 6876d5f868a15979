import type { Command } from 'commander';
import type { Engine } from '../../engine/engine.ts';
import { ALL_SCOPES, type Principal } from '../../engine/identity/identity.types.ts';

interface SendOptions {
  from: string;
  text: string;
  channel: string;
  workspace?: string;
  user?: string;
  json?: boolean;
}

/**
 * `hearth message send`: delivers an incoming message the way POST /messaging/inbound does, in this
 * process: every active flow of the user with a matching messagingTrigger runs, and the command waits
 * for those runs and prints how each ended. Runs appear in the flows' execution lists.
 */
export function registerMessagingCommands(program: Command, openEngine: (program: Command) => Engine): void {
  const message = program.command('message').description('Messaging: deliver incoming messages to flows');
  message
    .command('send')
    .description('Deliver an incoming message: fires every active flow with a messagingTrigger')
    .requiredOption('--from <sender>', 'who sent it (a phone number, a handle)')
    .requiredOption('--text <text>', 'the message text')
    .option('--channel <name>', 'channel it arrived on', 'local')
    .option('--workspace <id>', 'workspace id or name (default: the first)')
    .option('--user <id>', 'user whose flows receive it (default: the workspace\'s first user)')
    .option('--json', 'print the result as JSON')
    .action(async (opts: SendOptions) => {
      const engine = openEngine(program);
      try {
        const workspace = engine.identity.resolveWorkspace(opts.workspace);
        const user = engine.identity.resolveUser(workspace.id, opts.user);
        const principal: Principal = { kind: 'app', workspaceId: workspace.id, userId: user.id, scopes: ALL_SCOPES, tokenId: null, knowledgeBaseId: null, flowId: null };
        const { fired, skipped, done } = engine.flows.receiveMessage(principal, { channel: opts.channel, from: opts.from, text: opts.text });
        await done;
        const runs = fired.map((f) => {
          const execution = engine.flows.getExecution(principal, f.flowId, f.executionId);
          return { flowId: f.flowId, executionId: f.executionId, status: execution.status, ...(execution.error ? { error: execution.error } : {}) };
        });
        const result = { count: runs.length, runs, skipped };
        if (opts.json) process.stdout.write(JSON.stringify(result) + '\n');
        else if (runs.length === 0) process.stdout.write('No active flow has a messagingTrigger for this message.\n');
        else process.stdout.write(runs.map((r) => `${r.flowId}  ${r.executionId}  ${r.status}${r.error ? `  ${r.error}` : ''}`).join('\n') + '\n');
        if (runs.some((r) => r.status === 'error')) process.exitCode = 1;
      } finally {
        await engine.dispose();
      }
    });
}
