import { trimEndChars } from '../../common/linear-text.js';

/**
 * Credits as exact fixed-point numbers: ten-thousandths in a bigint, the scale of the read models' numeric(20, 4).
 * Summing event credits this way gives exactly what PostgreSQL sums (each value rounded to 4 places on insert,
 * half away from zero, from the same decimal text that `pg` sends for a JS number), without float drift.
 */
export const CREDIT_SCALE = 4;
const FACTOR = 10n ** BigInt(CREDIT_SCALE);
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/** `3.2` or `'3.2000'` → 32000n; undefined when the value is not a finite decimal. */
export function toScaled(value: number | string | null | undefined): bigint | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  const match = DECIMAL.exec(String(value).trim());
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  if (whole === '' && fraction === '') return undefined;
  const digits = BigInt(`${whole}${fraction}` || '0');
  // digits × 10^shift ten-thousandths
  const shift = Number(exponent) - fraction.length + CREDIT_SCALE;
  let scaled: bigint;
  if (shift >= 0) {
    scaled = digits * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    scaled = digits / divisor;
    if ((digits % divisor) * 2n >= divisor) scaled += 1n;
  }
  return sign === '-' ? -scaled : scaled;
}

/** 32000n → '3.2'; 50000n → '5'. */
export function formatScaled(value: bigint): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = abs / FACTOR;
  const fraction = trimEndChars((abs % FACTOR).toString().padStart(CREDIT_SCALE, '0'), '0');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** A numeric column's text ('3.2000') as a JSON number (3.2). */
export function creditsNumber(value: string | number | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}
