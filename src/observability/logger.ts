import { Writable } from 'node:stream';
import type { LoggerService } from '@nestjs/common';
import { type DestinationStream, type Level, type Logger, type LoggerOptions, pino } from 'pino';
import { build as prettyStream } from 'pino-pretty';
import { currentRequestId } from './request-context.js';

/** Field names that hold secrets: never printed, whatever object they appear in (up to three levels deep). */
const SECRET_FIELDS = [
  'authorization',
  'x-api-key',
  'cookie',
  'set-cookie',
  'api_key',
  'apiKey',
  'token',
  'session_token',
  'key',
  'password',
  'secret',
];

export const REDACT_PATHS: readonly string[] = SECRET_FIELDS.flatMap((field) => {
  const segment = /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
  const join = (prefix: string) => (segment.startsWith('[') ? `${prefix}${segment}` : `${prefix}.${segment}`);
  return [segment, join('*'), join('*.*'), join('*.*.*')];
});

/**
 * Third line of defence (after "never log bodies or headers" and `redact`): credentials that end up inside a
 * message string are masked. API keys (`sk_live_...`), session tokens (`sess_...`) and Bearer credentials.
 * The sign-in link of the development mail outbox is deliberately left readable.
 */
const SECRET_PATTERNS: readonly [RegExp, string][] = [
  [/\b([a-z][a-z0-9]{1,11})_(live|test)_[0-9A-Za-z]{8,}/g, '$1_$2_[redacted]'],
  [/\bsess_[0-9A-Za-z]{8,}/g, 'sess_[redacted]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [redacted]'],
];

export function scrubSecrets(text: string): string {
  let result = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) result = result.replace(pattern, replacement);
  return result;
}

/**
 * A logged error, serialized, with the same masking applied to every string in it: libraries quote what they were
 * given in their messages (and so in their stacks), credentials included.
 */
function serializeError(error: unknown): unknown {
  return scrubStrings(pino.stdSerializers.err(error as Error), 0);
}

function scrubStrings(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => scrubStrings(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubStrings(item, depth + 1)]));
}

export type LogFormat = 'json' | 'pretty' | 'auto';

export interface CreateLoggerOptions {
  /** A pino level or 'silent'. */
  readonly level: string;
  /** Where the lines go; stdout when omitted. Tests pass a stream that captures them. */
  readonly destination?: DestinationStream;
  /** `json` unless said otherwise; `auto`: `pretty` when the destination (stdout by default) is a terminal. */
  readonly format?: LogFormat;
}

/** `auto` decided: pretty lines for a person at a terminal, JSON lines for everything else (files, pipes, collectors). */
export function resolveLogFormat(format: LogFormat, destination?: DestinationStream): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  const stream = (destination ?? process.stdout) as { isTTY?: boolean };
  return stream.isTTY === true ? 'pretty' : 'json';
}

/**
 * One human-readable line a record (pino-pretty): local time, level, `[context]` and message, then the other fields
 * inline. Redaction and masking happen before, in pino itself, so this sees only what a JSON line would hold.
 */
function prettyDestination(destination: DestinationStream | undefined): DestinationStream {
  const target = (destination ?? process.stdout) as DestinationStream & { isTTY?: boolean; on?: unknown };
  // pino-pretty pipes into its destination: a bare `{ write }` (what tests pass) becomes a stream first.
  const stream =
    typeof target.on === 'function'
      ? target
      : new Writable({
          write(chunk: Buffer, _encoding, done) {
            target.write(chunk.toString());
            done();
          },
        });
  return prettyStream({
    destination: stream as NodeJS.WritableStream,
    sync: true,
    colorize: target.isTTY === true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,context',
    messageFormat: '{if context}[{context}] {end}{msg}',
  });
}

/**
 * The process logger: one JSON object per line (or, with format `pretty`, one readable line), ISO time, textual
 * level, the current request id (when the line is emitted while a request is being served), secrets redacted.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const config: LoggerOptions = {
    level: options.level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => {
      const requestId = currentRequestId();
      return requestId ? { request_id: requestId } : {};
    },
    redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
    serializers: { err: serializeError },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((arg: unknown) => (typeof arg === 'string' ? scrubSecrets(arg) : arg));
        return method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
  };
  if (resolveLogFormat(options.format ?? 'json', options.destination) === 'pretty') {
    return pino(config, prettyDestination(options.destination));
  }
  return options.destination ? pino(config, options.destination) : pino(config);
}

type NestLevel = 'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal';
const PINO_LEVEL: Record<NestLevel, Level> = {
  log: 'info',
  error: 'error',
  warn: 'warn',
  debug: 'debug',
  verbose: 'trace',
  fatal: 'fatal',
};

/**
 * Nest's start-up narration (every module initialized, every controller and route mapped, "application started"):
 * logged at `debug`, so that a first start at `info` shows what the operator needs and not 150 lines of wiring.
 */
const FRAMEWORK_CONTEXTS: ReadonlySet<string> = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/**
 * Nest's `LoggerService` on top of pino, so `new Logger('X').log(...)` and Nest's own start-up lines become JSON
 * lines with a `context` field. Nest passes the context as the last argument and, for `error`, a stack trace
 * before it. An object first argument is merged into the line, pino style (`logger.error({ err }, 'message')`).
 */
export class PinoNestLogger implements LoggerService {
  constructor(readonly pino: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(nestLevel: NestLevel, message: unknown, params: unknown[]): void {
    const context = typeof params[params.length - 1] === 'string' ? (params[params.length - 1] as string) : null;
    const level = nestLevel === 'log' && context && FRAMEWORK_CONTEXTS.has(context) ? 'debug' : PINO_LEVEL[nestLevel];
    if (!this.pino.isLevelEnabled(level)) return;
    const rest = [...params];
    const fields: Record<string, unknown> = {};
    if (context !== null) fields.context = rest.pop();
    let text: string | undefined;
    if (message instanceof Error) {
      fields.err = message;
      text = message.message;
    } else if (typeof message === 'object' && message !== null) {
      Object.assign(fields, message);
      if (typeof rest[0] === 'string') text = rest.shift() as string;
    } else {
      text = String(message);
    }
    if (nestLevel === 'error' && typeof rest[0] === 'string') fields.stack = scrubSecrets(rest.shift() as string);
    if (rest[0] instanceof Error && fields.err === undefined) fields.err = rest.shift();
    const extra = rest.filter((value) => value !== undefined);
    if (extra.length > 0) fields.details = extra;
    this.pino[level](fields, text);
  }
}
