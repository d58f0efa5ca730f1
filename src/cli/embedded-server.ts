import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** What a running embedded-mode server writes next to its PGlite data (see src/database/embedded-postgres.ts). */
export const EMBEDDED_POSTGRES_FILE = 'embedded-postgres.json';

export interface RunningEmbeddedServer {
  readonly pid: number;
  readonly connectionString: string;
}

/**
 * PGlite in DATA_DIR can be opened by one process only. When a live server holds it, the CLI connects to that
 * server's PGlite socket instead; a file left behind by a process that is gone is ignored.
 */
export async function findRunningEmbeddedServer(dataDir: string): Promise<RunningEmbeddedServer | undefined> {
  let content: string;
  try {
    content = await readFile(path.resolve(dataDir, EMBEDDED_POSTGRES_FILE), 'utf8');
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { pid, connectionString } = parsed as { pid?: unknown; connectionString?: unknown };
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  if (typeof connectionString !== 'string' || !/^postgres(ql)?:\/\//.test(connectionString)) return undefined;
  return isAlive(pid) ? { pid, connectionString } : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
