import type { CliContext } from './cli-context.js';
import type { CommandScope } from './command-scope.js';

/** The work of a command whose arguments are valid; resolves to the process exit status. */
export type CommandRun = (ctx: CliContext) => Promise<number>;

export interface CliCommand {
  /** One usage line, without the program name: `org create --name <name> ...`. */
  readonly usage: string;
  readonly summary: string;
  /** Validates the arguments (throwing a UsageError) before anything connects, and returns the work. */
  parse(args: readonly string[]): CommandRun;
}

/** `org`, `project`, `key`, `projections`: one file each. */
export interface CommandGroup {
  readonly name: string;
  readonly summary: string;
  readonly scope: CommandScope;
  readonly commands: Readonly<Record<string, CliCommand>>;
}
