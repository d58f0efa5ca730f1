import os from 'node:os';
import type { INestApplicationContext, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { ProjectionRunner } from '../../projections/projection-runner.js';
import { type AppConfig, loadConfig } from '../config/app-config.js';
import { Database } from '../database/database.js';
import { INDEX_DATABASE } from '../database/index-database.js';
import type { Actor } from '../event-store/domain-event.js';
import { ProjectionTimeoutError } from '../event-store/read-model-progress.port.js';
import {
  EVENT_STORE,
  type EventStore,
  type From,
  type Position,
  START,
  isAtOrAfter,
} from '../event-store/event-store.port.js';
import type { CommandScope } from './command-scope.js';
import { findRunningEmbeddedServer } from './embedded-server.js';
import { type CliIo, writeJson, writeLine } from './output.js';

/** The CLI runs one statement at a time; a small pool also leaves a running embedded server its connections. */
const CLI_POOL_SIZE = 4;

/**
 * The validated configuration, adapted to a short-lived operator process: it never runs the projector (a running
 * server does, or `catchUp` after a write) nor seeds the demo, and in embedded mode it uses the database of a
 * server that is running on the same DATA_DIR instead of opening PGlite a second time.
 */
export async function cliConfig(env: NodeJS.ProcessEnv): Promise<AppConfig> {
  const config = loadConfig(env);
  const server = config.databaseUrl ? undefined : await findRunningEmbeddedServer(config.dataDir);
  return {
    ...config,
    // `mode` stays 'embedded': the PGlite socket has no LISTEN/NOTIFY, and the CLI never subscribes anyway.
    databaseUrl: config.databaseUrl ?? server?.connectionString,
    databasePoolSize: Math.min(config.databasePoolSize, CLI_POOL_SIZE),
    indexDatabasePoolSize: Math.min(config.indexDatabasePoolSize, CLI_POOL_SIZE),
    // Operator commands (a rebuild, a verify) may run statements far longer than a request would.
    databaseQueryTimeoutMs: env.DATABASE_QUERY_TIMEOUT_MS ? config.databaseQueryTimeoutMs : 0,
    runProjections: false,
    demoSeed: false,
  };
}

export function operatorActor(env: NodeJS.ProcessEnv): Actor {
  let username: string | undefined;
  try {
    username = os.userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers).
  }
  return { type: 'operator', id: username || env.USER || env.LOGNAME || 'operator' };
}

function nestLogger(config: AppConfig): LogLevel[] | false {
  if (config.logLevel === 'debug' || config.logLevel === 'trace') return ['error', 'warn', 'log', 'debug'];
  return false;
}

/** One command's view of the booted application: the command bus, the stores, and the operator's output. */
export class CliContext {
  readonly commands: CommandBus;
  readonly db: Database;
  /** The search index's, page cache's, request log's and feedback's database (the main one unless INDEX_DATABASE_URL). */
  readonly indexDb: Database;
  readonly store: EventStore;
  readonly runner: ProjectionRunner;

  private constructor(
    readonly app: INestApplicationContext,
    readonly config: AppConfig,
    readonly io: CliIo,
    readonly actor: Actor,
  ) {
    this.commands = app.get(CommandBus);
    this.db = app.get(Database);
    this.indexDb = app.get<Database>(INDEX_DATABASE);
    this.store = app.get<EventStore>(EVENT_STORE);
    this.runner = app.get(ProjectionRunner);
  }

  static async open(env: NodeJS.ProcessEnv, io: CliIo, scope: CommandScope = 'application'): Promise<CliContext> {
    const config = await cliConfig(env);
    if (!config.databaseUrl) {
      // PGlite opens on its thread while the modules load.
      const [{ EmbeddedPostgres }, { embeddedPostgresArguments }] = await Promise.all([
        import('../database/embedded-postgres.js'),
        import('../database/database.module.js'),
      ]);
      EmbeddedPostgres.prestart(...embeddedPostgresArguments(config));
    }
    // Modules are imported only when a command needs them (`help` and usage errors answer at once), and the data
    // plane only for the commands that use it.
    const root =
      scope === 'control-plane'
        ? (await import('./cli-control-plane.module.js')).CliControlPlaneModule.forRoot(config)
        : (await import('../app/app.module.js')).AppModule.forRoot(config);
    const app = await NestFactory.createApplicationContext(root, {
      logger: nestLogger(config),
      abortOnError: false,
    });
    return new CliContext(app, config, io, operatorActor(env));
  }

  async close(): Promise<void> {
    await this.app.close();
  }

  out(line = ''): void {
    writeLine(this.io.stdout, line);
  }

  json(value: unknown): void {
    writeJson(this.io.stdout, value);
  }

  note(line: string): void {
    writeLine(this.io.stderr, `note: ${line}`);
  }

  /**
   * After a write: bring the read models up to `position`. With no projector running anywhere, this process
   * applies the new events itself (one catch-up pass under the projection lock); when a running server leads the
   * projection, it waits for that server's checkpoint to pass the position.
   */
  async afterWrite(position: Position | null): Promise<void> {
    if (!position) return;
    const deadline = Date.now() + this.config.projectionWaitTimeoutMs;
    for (;;) {
      const pass = await this.runner.catchUp();
      if (isAtOrAfter(pass.position, position)) return;
      const left = deadline - Date.now();
      try {
        if (left <= 0) throw new ProjectionTimeoutError(this.config.projectionWaitTimeoutMs);
        // Not the leader: the server's projector applies it. Leader, but the event is not readable yet (an older
        // transaction is still open): look again shortly.
        if (!pass.ran) return await this.runner.waitFor(position, left);
        await new Promise((resolve) => setTimeout(resolve, Math.min(left, 50)));
      } catch (error) {
        if (!(error instanceof ProjectionTimeoutError)) throw error;
        this.note('the change is recorded, but the read models do not show it yet (the projector is behind)');
        return;
      }
    }
  }

  /** Before a listing: catch up if no projector runs, and say so when the read models still lag the store. */
  async beforeRead(): Promise<void> {
    const pass = await this.runner.catchUp();
    const head = await this.store.headPosition();
    if (head !== START && !isAtOrAfter(pass.position, head)) {
      this.note(
        `the read models are behind the event store (checkpoint ${formatPosition(pass.position)}, ` +
          `head ${formatPosition(head)}); a projector is catching up, this listing may be stale`,
      );
    }
  }
}

export function formatPosition(position: From): string {
  return position === START ? 'start' : `${position.commit}/${position.prepare}`;
}
