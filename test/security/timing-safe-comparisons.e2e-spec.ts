import * as realCrypto from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { jest } from '@jest/globals';
import ts from 'typescript';

/**
 * Issue 8, security item 4: no secret is compared in a way whose time depends on how much of it an attacker got
 * right. Two mechanisms are allowed, and this file proves they are the ones in use:
 * - hash, then an indexed equality lookup in PostgreSQL (API keys, session tokens, magic-link tokens): the attacker
 *   controls the secret, not its SHA-256, so an early-exit comparison of hashes reveals nothing usable;
 * - crypto.timingSafeEqual (through `secretsEqual` in src/common/secrets.ts) for anything compared in process.
 * A static scan of the sources refuses any other comparison involving a secret-named value (a reviewed allow-list
 * aside). No statistical timing measurement: those are flaky by nature.
 */

const ROOT = process.cwd();
const SOURCE_ROOTS = ['src', 'projections', 'dashboard/src'];

// --- node:crypto with a spy on timingSafeEqual, before any module of the service is loaded -------------------------
const timingSafeEqual = jest.fn(realCrypto.timingSafeEqual);
jest.unstable_mockModule('node:crypto', () => ({ ...realCrypto, default: realCrypto, timingSafeEqual }));
const { secretsEqual, sha256Hex } = await import('../../src/common/secrets.js');
const { SessionService } = await import('../../src/auth/session.service.js');
const { MagicLinkService } = await import('../../src/auth/magic-link.service.js');
const { RedemptionLimiter } = await import('../../src/auth/redemption-limiter.js');
const { KeyLookupService } = await import('../../src/keys/key-lookup.service.js');
const { loadConfig } = await import('../../src/config/app-config.js');
const { createTestDatabase } = await import('../support/test-database.js');

// --- the static scan -------------------------------------------------------------------------------------------------

/**
 * Names that hold secrets or their digests, as a word or a camelCase / snake_case / SCREAMING_CASE part of one
 * (`tokenHash`, `api_key`, `ADMIN_API_KEY`), but not inside another word (`tokenize`, `hashes`). A bare `key` is left
 * out on purpose: it names map and object keys everywhere.
 */
const SECRET_NAME = new RegExp(
  `(${['token', 'secret', 'hash', 'digest', 'passw', 'signature', 'hmac', 'credential', 'cookie', 'nonce', 'otp']
    .map((word) => `${word}|${word[0]!.toUpperCase()}${word.slice(1)}|${word.toUpperCase()}`)
    .join('|')}|[Aa]pi_?[Kk]ey|API_?KEY)(?![a-z])`,
);
const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);
/** Methods that compare or search content with an early exit. */
const COMPARING_METHODS = new Set([
  'includes',
  'indexOf',
  'lastIndexOf',
  'startsWith',
  'endsWith',
  'localeCompare',
  'equals',
  'compare',
]);

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly code: string;
}

/** A value whose content is public by construction: absent, a number, a boolean, the empty string, a type tag. */
function isHarmlessOperand(node: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(node)) return isHarmlessOperand(node.expression);
  if (ts.isTypeOfExpression(node)) return true;
  if (ts.isNumericLiteral(node) || ts.isBigIntLiteral(node)) return true;
  if (ts.isStringLiteralLike(node) && node.text === '') return true;
  if (node.kind === ts.SyntaxKind.NullKeyword || node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return true;
  if (ts.isIdentifier(node) && node.text === 'undefined') return true;
  // Lengths and sizes of secrets are public (every secret of a kind has the same length).
  if (ts.isPropertyAccessExpression(node) && ['length', 'size', 'byteLength'].includes(node.name.text)) return true;
  return false;
}

function namesSecret(node: ts.Node): boolean {
  if (ts.isStringLiteralLike(node)) return false;
  return SECRET_NAME.test(node.getText());
}

/** Every comparison of a secret-named value that is not constant-time (an equality, a comparing method, a switch). */
function findSecretComparisons(file: string, source: string): Finding[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const findings: Finding[] = [];
  const report = (node: ts.Node) =>
    findings.push({
      file,
      line: sourceFile.getLineAndCharacterOfPosition(node.getStart()).line + 1,
      code: node.getText().replace(/\s+/g, ' '),
    });
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind)) {
      const sides = [node.left, node.right];
      if (!sides.some(isHarmlessOperand) && sides.some(namesSecret)) report(node);
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      COMPARING_METHODS.has(node.expression.name.text)
    ) {
      const receiver = node.expression.expression;
      const args = [...node.arguments];
      // A check against public literals (`token.startsWith('sess_')`) compares nothing secret.
      const allLiteral = args.length > 0 && args.every((a) => ts.isStringLiteralLike(a));
      if (!allLiteral && (namesSecret(receiver) || args.some(namesSecret))) report(node);
    } else if (ts.isSwitchStatement(node) && namesSecret(node.expression)) {
      report(node.expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return findings;
}

/**
 * Reviewed comparisons that involve a secret-looking name but no secret content, keyed by file and code. An entry
 * that no longer matches anything fails the test too, so the list stays exact.
 */
const REVIEWED: Record<string, string> = {
  'src/fetch/safe-fetcher.ts :: CREDENTIAL_HEADERS.includes(key)':
    'membership of a header name in the list of credential header names: no secret is compared',
};

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir))) {
      const relative = path.join(dir, entry);
      if (statSync(path.join(ROOT, relative)).isDirectory()) walk(relative);
      else if (/\.ts$/.test(entry) && !/\.(spec|d)\.ts$/.test(entry)) out.push(relative.split(path.sep).join('/'));
    }
  };
  for (const root of SOURCE_ROOTS) walk(root);
  return out.sort();
}

describe('security: secrets are compared in constant time or looked up by hash', () => {
  describe('the static scan of the sources', () => {
    test('finds the non-constant-time comparisons it is meant to find, and nothing harmless (self-test)', () => {
      const sample = `
        function bad(presented: string, stored: { tokenHash: string }, apiKey: string, secret: Buffer, other: Buffer) {
          if (sha256Hex(presented) === stored.tokenHash) return 1;
          if (apiKey !== process.env.ADMIN_API_KEY) return 2;
          if (presented == stored.token_hash) return 3;
          if (signature.startsWith(expected)) return 4;
          if (secret.equals(other)) return 5;
          if (Buffer.compare(secret, other) === 0) return 6;
          if (allowed.includes(apiKey)) return 7;
          switch (sessionToken) { default: return 8; }
          if (cookieValue === 'hard-coded-session') return 9;
        }
        function fine(token: string, secret: Buffer, other: Buffer, apiKey: string | null, key: { status: string }) {
          if (secretsEqual(token, other.toString())) return 1;
          if (timingSafeEqual(secret, other)) return 2;
          if (typeof token === 'string' && token.length === 43 && token !== '') return 3;
          if (apiKey === null || apiKey === undefined) return 4;
          if (token.startsWith('sess_')) return 5;
          if (key.status !== 'active') return 6;
          if (secret.byteLength !== other.byteLength) return 7;
          return name === 'authorization' ? 8 : 9;
        }`;
      const findings = findSecretComparisons('sample.ts', sample).map((f) => f.code);
      expect(findings).toEqual([
        'sha256Hex(presented) === stored.tokenHash',
        'apiKey !== process.env.ADMIN_API_KEY',
        'presented == stored.token_hash',
        'signature.startsWith(expected)',
        'secret.equals(other)',
        'Buffer.compare(secret, other)',
        'allowed.includes(apiKey)',
        'sessionToken',
        "cookieValue === 'hard-coded-session'",
      ]);
    });

    test('src/, projections/ and dashboard/src/ compare no secret outside the reviewed list', () => {
      const files = sourceFiles();
      expect(files.length).toBeGreaterThan(100);
      const findings = files.flatMap((file) =>
        findSecretComparisons(file, readFileSync(path.join(ROOT, file), 'utf8')),
      );
      const unreviewed = findings.filter((f) => !(`${f.file} :: ${f.code}` in REVIEWED));
      expect(unreviewed.map((f) => `${f.file}:${f.line} ${f.code}`)).toEqual([]);
      const stale = Object.keys(REVIEWED).filter((entry) => !findings.some((f) => `${f.file} :: ${f.code}` === entry));
      expect(stale).toEqual([]);
    });

    test('anything that signs or MACs in process compares with timingSafeEqual (secretsEqual)', () => {
      const signing = /\b(createHmac|createSign|createVerify|hkdf|scrypt|pbkdf2)\b/;
      const offenders = sourceFiles().filter((file) => {
        const text = readFileSync(path.join(ROOT, file), 'utf8');
        return signing.test(text) && !/\b(secretsEqual|timingSafeEqual)\b/.test(text);
      });
      expect(offenders).toEqual([]);
    });
  });

  describe('secretsEqual', () => {
    beforeEach(() => timingSafeEqual.mockClear());

    test('always goes through crypto.timingSafeEqual, even for unequal lengths, and answers right', () => {
      const secret = 'sk_live_K7zLS2kX4ttE3YT59E990K6XUyjmxQLN';
      const cases: [string, string, boolean][] = [
        [secret, secret, true],
        [secret, `${secret.slice(0, -1)}M`, false],
        [secret, `X${secret.slice(1)}`, false],
        [secret, secret.slice(0, 10), false],
        [secret, `${secret}x`, false],
        ['', '', true],
        ['é', 'e\u0301', false],
      ];
      for (const [a, b, equal] of cases) {
        timingSafeEqual.mockClear();
        expect(secretsEqual(a, b)).toBe(equal);
        expect(timingSafeEqual).toHaveBeenCalledTimes(1);
      }
    });
  });

  describe('lookups by hash', () => {
    /** A Database that records every statement and answers from `rows(text, values)`. */
    function recordingDb(rows: (text: string, values: unknown[]) => Record<string, unknown>[] = () => []) {
      const statements: { text: string; values: unknown[] }[] = [];
      return {
        statements,
        db: {
          query: async (text: string, values: unknown[] = []) => {
            statements.push({ text, values });
            const found = rows(text, values);
            return { rows: found, rowCount: found.length };
          },
        },
      };
    }

    const config = loadConfig({ DATABASE_URL: 'postgres://unused', DEMO_SEED: 'false', LOG_LEVEL: 'silent' });
    const expectNoPlaintext = (statements: { text: string; values: unknown[] }[], plaintext: string) => {
      expect(JSON.stringify(statements)).not.toContain(plaintext);
    };

    test('a session token is resolved by its SHA-256 in an equality lookup, never compared in process', async () => {
      const token = `sess_${'Ab3'.repeat(14)}x`;
      const session = { session_id: 's', user_id: 'u', email: 'a@a.test' };
      const { db, statements } = recordingDb((_text, values) => (values[0] === sha256Hex(token) ? [session] : []));
      const sessions = new SessionService(db as never, config);
      expect(await sessions.resolve(token)).toEqual({ sessionId: 's', userId: 'u', email: 'a@a.test' });
      expect(await sessions.resolve(`${token.slice(0, -1)}y`)).toBeNull();
      expect(statements).toHaveLength(2);
      expect(statements[0]!.text).toMatch(/WHERE token_hash = \$1\b/);
      expect(statements[0]!.values[0]).toBe(sha256Hex(token));
      expectNoPlaintext(statements, token);
      // Malformed tokens never reach the database.
      expect(await sessions.resolve('sess_short')).toBeNull();
      expect(statements).toHaveLength(2);
    });

    test('a magic-link token is redeemed by its SHA-256 (atomically, in SQL), never compared in process', async () => {
      const token = 'Zz9'.repeat(14) + 'q';
      const { db, statements } = recordingDb();
      const unused = {} as never;
      const limiter = new RedemptionLimiter(null, config, null);
      const links = new MagicLinkService(db as never, unused, unused, unused, limiter, config);
      expect(await links.redeem(token, '192.0.2.1')).toEqual({ ok: false, reason: 'invalid' });
      expect(statements.length).toBeGreaterThanOrEqual(1);
      for (const statement of statements) {
        expect(statement.text).toMatch(/WHERE token_hash = \$1\b/);
        expect(statement.values[0]).toBe(sha256Hex(token));
      }
      expectNoPlaintext(statements, token);
      expect(await links.redeem('not a token', '192.0.2.1')).toEqual({ ok: false, reason: 'invalid' });
      expect(statements.length).toBeLessThanOrEqual(2);
    });

    test('an API key is looked up by its SHA-256 (in the cache and in the read model), never compared in process', async () => {
      const key = 'sk_live_K7zLS2kX4ttE3YT59E990K6XUyjmxQLN';
      const row = {
        key_id: 'k',
        org_id: 'o',
        project_id: 'p',
        environment: 'live',
        scopes: ['search'],
        depth_limit: null,
        status: 'active',
      };
      const { db, statements } = recordingDb((_text, values) => (values[0] === sha256Hex(key) ? [row] : []));
      const lookup = new KeyLookupService(db as never, { onEvict: () => {} } as never, { onEvents: () => {} } as never);
      expect(await lookup.lookup(key)).toMatchObject({ keyId: 'k', status: 'active' });
      expect(await lookup.lookup(key)).toMatchObject({ keyId: 'k' }); // from the cache, keyed by the hash
      expect(await lookup.lookup(`${key.slice(0, -1)}M`)).toBeNull();
      expect(statements).toHaveLength(2);
      expect(statements[0]!.text).toMatch(/WHERE (k\.)?key_hash = \$1\b/);
      expect(statements[0]!.values[0]).toBe(sha256Hex(key));
      expectNoPlaintext(statements, key);
      expect(await lookup.lookup('sk_live_short')).toBeNull();
      expect(statements).toHaveLength(2);
    });

    test('the hash columns are unique-indexed, and no column holds a credential in plaintext', async () => {
      const test = await createTestDatabase();
      try {
        const indexed = await test.db.query<{ table: string; column: string; unique: boolean }>(
          `SELECT t.relname AS table, a.attname AS column, bool_or(i.indisunique) AS unique
             FROM pg_index i
             JOIN pg_class t ON t.oid = i.indrelid
             JOIN pg_namespace n ON n.oid = t.relnamespace
             JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]
            WHERE n.nspname = $1 AND i.indnatts = 1
            GROUP BY t.relname, a.attname`,
          [test.schema],
        );
        const unique = indexed.rows.filter((r) => r.unique).map((r) => `${r.table}.${r.column}`);
        expect(unique).toEqual(
          expect.arrayContaining(['auth_sessions.token_hash', 'auth_magic_links.token_hash', 'api_keys.key_hash']),
        );
        const columns = await test.db.query<{ table_name: string; column_name: string }>(
          `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1`,
          [test.schema],
        );
        // Reviewed: a webhook endpoint's signing secret signs every delivery, so it cannot be a hash; it is kept
        // encrypted (AES-256-GCM under WEBHOOK_SECRET_KEY, `v1:` values; see webhook-secret-cipher.ts and, for rows
        // that were plaintext, webhook-secrets-sealer.ts), never logged nor shown again (secrets-in-logs checks that
        // its plaintext is in no table and no log line). Nothing else may hold a credential, even encrypted.
        const encrypted = ['webhook_endpoints.secret'];
        const plaintext = columns.rows
          .filter((c) => /(token|secret|passw|api_?key|credential|cookie)/i.test(c.column_name))
          .filter((c) => !/_hash$/.test(c.column_name))
          .filter((c) => !encrypted.includes(`${c.table_name}.${c.column_name}`))
          .map((c) => `${c.table_name}.${c.column_name}`);
        expect(columns.rows.length).toBeGreaterThan(50);
        expect(plaintext).toEqual([]);
      } finally {
        await test.drop();
      }
    });
  });
});
