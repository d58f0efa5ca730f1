import { AddressPolicy, refusalReason } from './address-policy.js';

/** A host as a URL names it, as the WHATWG URL parser normalizes it (the way the fetcher sees it). */
const hostOf = (host: string) => new URL(`http://${host}/`).hostname;

describe('AddressPolicy', () => {
  const policy = new AddressPolicy();

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['[::]', 'unspecified'],
    ['[::1]', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['[::127.0.0.1]', 'loopback'],
    ['[::ffff:0:127.0.0.1]', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'linkLocal'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['198.18.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['[fc00::1]', 'uniqueLocal'],
    ['[fd12:3456::1]', 'uniqueLocal'],
    ['[fe80::1]', 'linkLocal'],
    ['[ff02::1]', 'multicast'],
    ['[fd00:ec2::254]', 'metadata'],
    ['[64:ff9b::7f00:1]', 'loopback'],
    ['[64:ff9b::a00:1]', 'private'],
    ['[64:ff9b:1::1]', 'reserved'],
    ['[2002:7f00:1::]', 'loopback'],
    ['[2002:a9fe:a9fe::]', 'metadata'],
    ['[::ffff:a9fe:a9fe]', 'metadata'],
    ['[2001:db8::1]', 'reserved'],
  ])('refuses %s (%s)', (host, reason) => {
    const refusal = policy.checkHost(hostOf(host));
    expect(refusal).not.toBeNull();
    expect(refusal?.reason).toBe(reason);
    expect(refusal?.message).toMatch(/^Refused: the address \S+ is /);
  });

  it('words the refusal for a failed_results entry', () => {
    expect(policy.checkHost('10.0.0.1')?.message).toBe('Refused: the address 10.0.0.1 is private');
    expect(policy.checkHost('127.0.0.1')?.message).toBe('Refused: the address 127.0.0.1 is a loopback address');
    expect(policy.checkAddress('169.254.169.254', 'evil.test')?.message).toBe(
      'Refused: evil.test resolves to 169.254.169.254, which is a cloud metadata address',
    );
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '[2606:4700::1111]',
    '[2a00:1450:4001:80b::200e]',
    '[::ffff:8.8.8.8]',
  ])('allows the public address %s', (host) => {
    expect(policy.checkHost(hostOf(host))).toBeNull();
    expect(refusalReason(hostOf(host).replace(/^\[|\]$/g, ''))).toBeNull();
  });

  it('refuses metadata services by name, and leaves other names to the resolved addresses', () => {
    expect(policy.checkHost('metadata.google.internal')?.message).toBe(
      'Refused: the host metadata.google.internal is a cloud metadata service',
    );
    expect(policy.checkHost('METADATA.GOOGLE.INTERNAL.')?.reason).toBe('metadata');
    expect(policy.checkHost('example.com')).toBeNull();
    expect(policy.checkAddress('127.0.0.1', 'localhost')?.message).toBe(
      'Refused: localhost resolves to 127.0.0.1, which is a loopback address',
    );
    expect(policy.checkAddress('93.184.215.14', 'example.com')).toBeNull();
  });

  describe('the allow-list', () => {
    it('permits an IP address, including its IPv4-mapped form, and nothing else', () => {
      const allow = new AddressPolicy(['127.0.0.1']);
      expect(allow.checkHost('127.0.0.1')).toBeNull();
      expect(allow.checkAddress('127.0.0.1', 'localhost')).toBeNull();
      expect(allow.checkAddress('::ffff:127.0.0.1')).toBeNull();
      expect(allow.checkHost('127.0.0.2')?.reason).toBe('loopback');
      expect(allow.checkHost('[::1]')?.reason).toBe('loopback');
      expect(allow.checkHost('10.0.0.1')?.reason).toBe('private');
    });

    it('permits a CIDR', () => {
      const allow = new AddressPolicy(['10.0.0.0/8', 'fd00::/8']);
      expect(allow.checkHost('10.1.2.3')).toBeNull();
      expect(allow.checkHost('[fd00::5]')).toBeNull();
      expect(allow.checkHost('11.0.0.1')).toBeNull(); // public anyway
      expect(allow.checkHost('192.168.0.1')?.reason).toBe('private');
      expect(allow.checkHost('[fc00::1]')?.reason).toBe('uniqueLocal');
    });

    it('permits a host name (whatever it resolves to), and subdomains with a leading *. or .', () => {
      const allow = new AddressPolicy(['intranet.test', '*.corp.test', '[::1]']);
      expect(allow.checkAddress('10.0.0.1', 'intranet.test')).toBeNull();
      expect(allow.checkAddress('10.0.0.1', 'INTRANET.test.')).toBeNull();
      expect(allow.checkAddress('10.0.0.1', 'wiki.corp.test')).toBeNull();
      expect(allow.checkAddress('10.0.0.1', 'other.test')?.reason).toBe('private');
      expect(allow.checkAddress('10.0.0.1', 'notintranet.test')?.reason).toBe('private');
      expect(allow.checkHost('[::1]')).toBeNull();
    });

    it('tells the hosts it names, by name or by address (the hosts an operator runs)', () => {
      const allow = new AddressPolicy(['127.0.0.1', '10.0.0.0/8', 'intranet.test', '*.corp.test']);
      for (const host of ['127.0.0.1', '10.2.3.4', 'intranet.test', 'wiki.corp.test', 'INTRANET.test.'])
        expect([host, allow.isAllowListed(host)]).toEqual([host, true]);
      for (const host of ['127.0.0.2', 'example.com', '[::1]', 'corp.test.example'])
        expect([host, allow.isAllowListed(host)]).toEqual([host, false]);
    });

    it('an entry with a port admits that port only; a check that does not say the port fails closed', () => {
      const allow = new AddressPolicy(['127.0.0.1:8080', '[::1]:8443', 'intranet.test:80', '10.0.0.0/8:3000']);
      expect(allow.checkHost('127.0.0.1', 8080)).toBeNull();
      expect(allow.checkAddress('127.0.0.1', 'localhost', 8080)).toBeNull();
      expect(allow.checkAddress('::ffff:127.0.0.1', undefined, 8080)).toBeNull();
      expect(allow.checkHost('[::1]', 8443)).toBeNull();
      expect(allow.checkAddress('10.9.9.9', 'db.test', 3000)).toBeNull();
      expect(allow.checkAddress('10.0.0.1', 'intranet.test', 80)).toBeNull();
      for (const [host, port] of [
        ['127.0.0.1', 6379],
        ['127.0.0.1', undefined],
        ['[::1]', 8080],
        ['10.9.9.9', 5432],
      ] as const)
        expect([host, port, allow.checkHost(host, port)?.code]).toEqual([host, port, 'EBLOCKED']);
      expect(allow.checkAddress('127.0.0.1', 'localhost', 6379)?.reason).toBe('loopback');
      expect(allow.checkAddress('10.0.0.1', 'intranet.test', 8080)?.reason).toBe('private');
      // The hosts an operator runs (crawl concurrency), on whatever port.
      expect(allow.isAllowListed('127.0.0.1')).toBe(true);
      expect(allow.isAllowListed('intranet.test')).toBe(true);
    });

    it('refuses, when built, an entry that cannot match', () => {
      expect(() => new AddressPolicy(['127.0.0.1:http'])).toThrow(/FETCH_ALLOW_HOSTS entry "127.0.0.1:http"/);
    });

    it('ignores blank entries', () => {
      expect(new AddressPolicy(['', ' ']).checkHost('127.0.0.1')?.reason).toBe('loopback');
    });
  });
});
