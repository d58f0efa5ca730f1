import { operatorCli } from './support/operator-cli.js';
import { TEST_DATABASE_URL, type TestDatabase, createTestDatabase } from './support/test-database.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `org grant`, `org grants`, `org revoke-grant` and `org plan --overage-*`: the same events as the HTTP routes. */
describe('operator CLI: credit grants and overage', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  const cli = (...argv: string[]) => operatorCli(env, ...argv);

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: database.schema, LOG_LEVEL: 'error' };
  });
  afterAll(async () => {
    await database.drop();
  });

  const grants = async (orgId: string) => {
    const listed = await cli('org', 'grants', orgId, '--json');
    expect(listed.code).toBe(0);
    return JSON.parse(listed.stdout) as {
      grants: { grant_id: string; credits: number; recurrence: string; remaining: number; status: string }[];
      overage: { credit_cap: number; price_per_credit: string; credits_used: number } | null;
    };
  };

  test('grant, list with balances, revoke; a plan with overage', async () => {
    const created = await cli('org', 'create', '--name', 'Granted');
    const orgId = created.stdout.trim();
    const granted = await cli(
      'org',
      'grant',
      orgId,
      '--credits',
      '500',
      '--every-month',
      '--expires',
      '2999-12-31',
      '--note',
      'pilot',
    );
    expect(granted).toMatchObject({ code: 0, stderr: '' });
    const grantId = granted.stdout.trim();
    expect(grantId).toMatch(UUID);
    expect((await grants(orgId)).grants).toEqual([
      expect.objectContaining({
        grant_id: grantId,
        credits: 500,
        recurrence: 'monthly',
        remaining: 500,
        status: 'active',
      }),
    ]);
    const table = await cli('org', 'grants', orgId);
    expect(table.stdout).toMatch(/pilot/);
    expect(table.stdout).toMatch(/no overage on this plan/);

    const plan = await cli('org', 'plan', orgId, '--plan', 'free', '--overage-cap', '100', '--overage-price', '0.008');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/overage up to 100 credits at 0.008 a credit/);
    expect((await grants(orgId)).overage).toEqual({
      credit_cap: 100,
      price_per_credit: '0.008',
      credits_used: 0,
      amount: '0',
    });

    expect((await cli('org', 'revoke-grant', orgId, grantId)).stdout).toMatch(/revoked/);
    expect((await cli('org', 'revoke-grant', orgId, grantId)).stdout).toMatch(/already revoked/);
    expect((await grants(orgId)).grants[0]).toMatchObject({ remaining: 0, status: 'revoked' });
  });

  test('bad arguments exit 2 and grant nothing', async () => {
    const orgId = (await cli('org', 'create', '--name', 'Refused')).stdout.trim();
    const cases: [string[], RegExp][] = [
      [['org', 'grant', orgId], /--credits is required/],
      [['org', 'grant', orgId, '--credits', '0'], /--credits must be an integer >= 1/],
      [['org', 'grant', orgId, '--credits', '5', '--expires', '2001-01-01'], /--expires must be a date/],
      [['org', 'grant', orgId, '--credits', '5', '--expires', 'soon'], /--expires must be a date/],
      [['org', 'plan', orgId, '--plan', 'free', '--overage-cap', '5'], /--overage-cap and --overage-price go together/],
      [
        ['org', 'plan', orgId, '--plan', 'free', '--overage-cap', '5', '--overage-price', 'x'],
        /--overage-price must be/,
      ],
    ];
    for (const [argv, message] of cases) {
      const result = await cli(...argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    expect((await grants(orgId)).grants).toEqual([]);
    const unknown = await cli('org', 'revoke-grant', orgId, '00000000-0000-4000-8000-000000000000');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/credit grant not found/);
  });
});
