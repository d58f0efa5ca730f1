import { csvField, csvRecord, csvRecords, prefersCsv } from './csv.js';
import { formatScaled, toScaled } from './decimal.js';
import { decodeCursor, encodeCursor } from './ledger-cursor.js';

describe('ledger formats', () => {
  test('credits as exact ten-thousandths, rounded like numeric(20, 4)', () => {
    expect(toScaled(3.2)).toBe(32000n);
    expect(toScaled('3.2000')).toBe(32000n);
    expect(toScaled(0.1 + 0.2)).toBe(3000n);
    expect(toScaled(0.00005)).toBe(1n);
    expect(toScaled(0.00004)).toBe(0n);
    expect(toScaled(1e-7)).toBe(0n);
    expect(toScaled(1e21)).toBe(10n ** 25n);
    expect(toScaled(-2.5)).toBe(-25000n);
    expect(toScaled('12')).toBe(120000n);
    expect(toScaled('abc')).toBeUndefined();
    expect(toScaled('')).toBeUndefined();
    expect(toScaled(Number.NaN)).toBeUndefined();
    expect(formatScaled(32000n)).toBe('3.2');
    expect(formatScaled(50000n)).toBe('5');
    expect(formatScaled(1n)).toBe('0.0001');
    expect(formatScaled(-25000n)).toBe('-2.5');
    expect(formatScaled(0n)).toBe('0');
  });

  test('RFC 4180 fields and records', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('Ops, "primary"')).toBe('"Ops, ""primary"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(2.5)).toBe('2.5');
    expect(csvField({ a: 1, b: 'x' })).toBe('"{""a"":1,""b"":""x""}"');
    expect(csvRecord(['a', 'b,c', null])).toBe('a,"b,c",\r\n');
  });

  test('a cell that would start a formula is written as quoted text; plain numbers stay numbers', () => {
    expect(csvField('=1+1')).toBe(`"'=1+1"`);
    expect(csvField('+1+1')).toBe(`"'+1+1"`);
    expect(csvField('-2+3')).toBe(`"'-2+3"`);
    expect(csvField('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvField('\t=1')).toBe(`"'\t=1"`);
    expect(csvField('\r=1')).toBe(`"'\r=1"`);
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField(-2.5)).toBe('-2.5');
    expect(csvField('-7')).toBe('-7');
    expect(csvField('+3.25')).toBe('+3.25');
    expect(csvField('a=1')).toBe('a=1');
  });

  test('csvRecords: a header, then one record per row of every page', async () => {
    async function* pages() {
      yield [{ a: 1, b: 'x' }];
      yield [];
      yield [
        { a: 2, b: 'y' },
        { a: 3, b: 'z,' },
      ];
    }
    let text = '';
    for await (const chunk of csvRecords(['a', 'b'], pages())) text += chunk;
    expect(text).toBe('a,b\r\n1,x\r\n2,y\r\n3,"z,"\r\n');
  });

  test('Accept negotiation: CSV only when it weighs more than JSON', () => {
    expect(prefersCsv('text/csv')).toBe(true);
    expect(prefersCsv('text/csv; charset=utf-8')).toBe(true);
    expect(prefersCsv('application/json;q=0.5, text/csv')).toBe(true);
    expect(prefersCsv('text/*')).toBe(true);
    expect(prefersCsv(undefined)).toBe(false);
    expect(prefersCsv('*/*')).toBe(false);
    expect(prefersCsv('application/json')).toBe(false);
    expect(prefersCsv('text/csv, application/json')).toBe(false);
    expect(prefersCsv('text/csv;q=0, */*')).toBe(false);
    expect(prefersCsv('text/html')).toBe(false);
  });

  test('cursors: opaque base64url positions; anything else is refused', () => {
    const position = { commit: 123456789012n, prepare: 42n };
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(position);
    expect(decodeCursor(encodeCursor({ commit: 2n ** 63n - 1n, prepare: 0n }))).toEqual({
      commit: 2n ** 63n - 1n,
      prepare: 0n,
    });
    for (const bad of [
      '',
      'not a cursor',
      '!!!',
      Buffer.from('1:2:3').toString('base64url'),
      Buffer.from('a:b').toString('base64url'),
      Buffer.from('-1:2').toString('base64url'),
      Buffer.from(`${2n ** 63n}:0`).toString('base64url'),
      `${cursor}=`,
    ]) {
      expect(decodeCursor(bad)).toBeUndefined();
    }
  });
});
