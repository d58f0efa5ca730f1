import { AddressPolicy } from '../../fetch/address-policy.js';
import { ChromiumRenderer, type Resolve } from './chromium-renderer.js';

const dns =
  (names: Record<string, string[]>): Resolve =>
  async (hostname) =>
    (names[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('ChromiumRenderer', () => {
  const renderer = new ChromiumRenderer(
    '/nonexistent/chromium',
    new AddressPolicy([]),
    'test-agent',
    dns({ 'rebind.test': ['93.184.216.34', '10.0.0.7'], 'public.test': ['93.184.216.34'] }),
  );
  const render = (url: string) => renderer.render(url, '<html></html>', { timeoutMs: 5000 });

  test.each([
    ['http://169.254.169.254/', /cloud metadata/],
    ['http://127.0.0.1:8080/', /loopback/],
    ['http://rebind.test/', /rebind\.test resolves to 10\.0\.0\.7/],
    ['http://metadata.google.internal/', /metadata/],
  ])('refuses %s before any browser starts', async (url, message) => {
    await expect(render(url)).rejects.toThrow(message);
  });

  test('uses only the configured executable (never a downloaded browser)', async () => {
    await expect(render('http://public.test/')).rejects.toThrow(/\/nonexistent\/chromium/);
  });
});
