import type { CreditsCharged, PriceItem, UnitCharge } from '../events/credits-charged.event.js';

type Counts = CreditsCharged['data']['counts'];

/** What a price class counts, in words (singular, plural). */
const UNIT_NAMES: Record<string, [string, string]> = {
  'extract:basic': ['successful URL', 'successful URLs'],
  'extract:advanced': ['successful URL', 'successful URLs'],
  map: ['mapped page', 'mapped pages'],
  'map:instructions': ['mapped page', 'mapped pages'],
};
const UNIT_CLASS_LABELS: Record<string, string> = {
  'extract:basic': 'basic extraction',
  'extract:advanced': 'advanced extraction',
  map: 'map',
  'map:instructions': 'map with instructions',
};

const plural = (n: number, one: string, many: string) => `${formatAmount(n)} ${n === 1 ? one : many}`;
const credits = (n: number) => plural(n, 'credit', 'credits');

function formatAmount(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(4)));
}

function itemLabel(item: string): string {
  const [kind = item, detail, part] = item.split(':');
  if (kind === 'search') return `${detail ?? 'basic'} search`;
  if (kind === 'answer') return `answer surcharge (${detail ?? 'basic'})`;
  if (kind === 'vertical') return `${detail ?? ''} vertical search`.trim();
  if (kind === 'research') return `research (${detail ?? 'mini'})${part ? ` ${part}` : ''}`;
  return item;
}

/** An answer surcharge at 0 credits: no answer came back, so none was charged. */
function unansweredNote(item: PriceItem, counts: Counts): string {
  return item.item.startsWith('answer:') && item.credits === 0 && counts.answers === 0 ? ' (no answer returned)' : '';
}

function unitsPhrase(units: UnitCharge, charged: number, counts: Counts): string {
  const [one, many] = UNIT_NAMES[units.price_class] ?? ['unit', 'units'];
  const blocks = units.credits_per_block > 0 ? Math.round(charged / units.credits_per_block) : 0;
  const rule = `${credits(units.credits_per_block)} per ${units.units_per_block}, counted over the month`;
  const completed =
    blocks === 0
      ? `no block of ${units.units_per_block} completed by this call`
      : `${plural(blocks, 'block', 'blocks')} of ${units.units_per_block} completed by this call`;
  const failed = counts.failed_urls ? `; ${plural(counts.failed_urls, 'failed URL', 'failed URLs')} free` : '';
  const label = UNIT_CLASS_LABELS[units.price_class] ?? units.price_class;
  return `${label}: ${plural(units.count, one, many)} (${rule}), ${completed}: ${credits(charged)}${failed}`;
}

/**
 * One ledger entry's price in words, from its own pricing record: each fixed item with its credits, and volume
 * units with their rule and the blocks this call completed (why two URLs can cost 0 credits or 1). Entries written
 * before pricing records existed say so.
 */
export function explainPrice(entry: {
  readonly credits: number;
  readonly counts: Counts | Record<string, unknown>;
  readonly pricing: { items: PriceItem[]; units: UnitCharge | null } | Record<string, unknown> | null;
}): string {
  const pricing = entry.pricing as { items?: PriceItem[]; units?: UnitCharge | null } | null;
  if (!pricing || !Array.isArray(pricing.items)) return `${credits(entry.credits)} (no price record kept)`;
  const units = pricing.units ?? null;
  const counts = entry.counts as Counts;
  const parts = pricing.items.map((item) =>
    units && item.item === units.price_class
      ? unitsPhrase(units, item.credits, counts)
      : `${itemLabel(item.item)}: ${credits(item.credits)}${unansweredNote(item, counts)}`,
  );
  if (parts.length === 0) return credits(entry.credits);
  return parts.length === 1 ? parts[0]! : `${parts.join(' + ')} = ${credits(entry.credits)}`;
}
