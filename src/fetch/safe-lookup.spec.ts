import type { LookupAddress } from 'node:dns';
import { AddressPolicy, AddressRefusedError } from './address-policy.js';
import { createSafeLookup } from './safe-lookup.js';

type Result = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function lookup(names: Record<string, string[]>, allow: string[] = []) {
  const resolve = async (hostname: string) =>
    (names[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const safe = createSafeLookup(new AddressPolicy(allow), resolve);
  return (hostname: string, options: { all?: boolean; family?: number }) =>
    new Promise<Result>((done) =>
      safe(hostname, options, (error, address, family) => done({ error, address, family })),
    );
}

describe('createSafeLookup (the lookup every connection uses)', () => {
  const names = {
    'public.test': ['93.184.215.14', '2606:4700::1111'],
    'evil.test': ['127.0.0.1'],
    'mixed.test': ['93.184.215.14', '10.0.0.1'],
  };

  it('hands the socket only checked addresses, in both calling conventions', async () => {
    const resolve = lookup(names);
    expect(await resolve('public.test', { all: true })).toEqual({
      error: null,
      address: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
      family: undefined,
    });
    expect(await resolve('public.test', {})).toEqual({ error: null, address: '93.184.215.14', family: 4 });
    expect(await resolve('public.test', { family: 6 })).toEqual({ error: null, address: '2606:4700::1111', family: 6 });
  });

  it('refuses a name when any of its addresses is refused', async () => {
    const resolve = lookup(names);
    for (const name of ['evil.test', 'mixed.test']) {
      const { error } = await resolve(name, { all: true });
      expect(error).toBeInstanceOf(AddressRefusedError);
    }
    expect((await resolve('mixed.test', {})).error?.message).toBe(
      'Refused: mixed.test resolves to 10.0.0.1, which is private',
    );
  });

  it('lets the allow-list through, and reports unknown names as ENOTFOUND', async () => {
    const resolve = lookup(names, ['10.0.0.0/8', 'evil.test']);
    expect((await resolve('mixed.test', {})).error).toBeNull();
    expect((await resolve('evil.test', {})).address).toBe('127.0.0.1');
    expect((await resolve('unknown.test', {})).error?.code).toBe('ENOTFOUND');
  });
});
