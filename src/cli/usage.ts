import type { CommandGroup } from './command.js';

export const PROGRAM = 'npm run cli --';

export function groupUsage(group: CommandGroup): string {
  const lines = [`${group.name}: ${group.summary}`];
  for (const command of Object.values(group.commands)) {
    lines.push(`  ${command.usage}`, `      ${command.summary}`);
  }
  return lines.join('\n');
}

export function fullUsage(groups: readonly CommandGroup[]): string {
  return [
    `usage: ${PROGRAM} <command> [options]`,
    '',
    ...groups.flatMap((g) => [groupUsage(g), '']),
    'help [<group>]',
    '      this text',
    '',
    'The CLI reads the same environment as the server (DATABASE_URL, DATABASE_SCHEMA, EVENTSTORE_URL, REDIS_URL,',
    'DATA_DIR, ...). Every change goes through the command handlers and is recorded as events by the operator',
    '(your user name). In embedded mode (no DATABASE_URL) it uses the database of a server running on the same',
    'DATA_DIR, or opens DATA_DIR itself when no server runs.',
    '',
    'Exit status: 0 done, 1 failed (or a verify found a difference), 2 bad command line or configuration.',
  ].join('\n');
}
