import { type JsonRecord, bool, count, num, recordsAt, str, strings } from '../../../search/upstream/json-shape.js';
import { canonicalUrl, plainText } from '../../../search/upstream/upstream-text.js';
import { currencyOf, priceOf } from '../../local/schema-org.js';
import { asinOf } from '../../local/shopping-records.js';
import type { AmazonResult, ProductResult } from '../../dto/shopping-results.dto.js';
import { PROVIDER } from './serp-record.js';

/**
 * The currency of a SerpAPI price text (`$24.99`, `€19,99`, `₹67,400`): SerpAPI writes the symbol only. `$` is read
 * as USD only for US searches (no country, or `us`): elsewhere it may be any dollar, and is left unknown.
 */
export function serpCurrency(priceText: string | null, country: string | null): string | null {
  if (!priceText) return null;
  if (/^\s*\$/.test(priceText) && country && country.toUpperCase() !== 'US') return null;
  return currencyOf(null, priceText);
}

// ---------------------------------------------------------------------------------------------------------- shopping

/** engine=google_shopping: `shopping_results` (and `inline_shopping_results`). */
export function serpProducts(root: JsonRecord, country: string | null): ProductResult[] {
  const entries = [
    ...recordsAt(root, 'shopping_results', 'the answer'),
    ...recordsAt(root, 'inline_shopping_results', 'the answer'),
  ];
  return entries.flatMap((entry): ProductResult[] => {
    const title = plainText(str(entry.title));
    const url = canonicalUrl(str(entry.product_link) ?? str(entry.link));
    if (!title || !url) return [];
    const priceText = str(entry.price);
    return [
      {
        title,
        url,
        price: num(entry.extracted_price) ?? priceOf(priceText),
        currency: serpCurrency(priceText, country),
        availability: availabilityFromText(strings(entry.extensions).join(' ') + ' ' + (str(entry.delivery) ?? '')),
        rating: num(entry.rating),
        reviews: count(entry.reviews),
        seller: str(entry.source),
        brand: null,
        image: canonicalUrl(str(entry.thumbnail)),
        provider: PROVIDER,
      },
    ];
  });
}

function availabilityFromText(value: string): string | null {
  if (/out of stock|sold out/i.test(value)) return 'out_of_stock';
  if (/in stock/i.test(value)) return 'in_stock';
  if (/pre-?order/i.test(value)) return 'pre_order';
  return null;
}

/** engine=amazon: `organic_results` with `asin`, `extracted_price`, `rating`, `reviews`, Prime badges. */
export function serpAmazon(root: JsonRecord, country: string | null): AmazonResult[] {
  return recordsAt(root, 'organic_results', 'the answer').flatMap((entry): AmazonResult[] => {
    const title = plainText(str(entry.title));
    const url = canonicalUrl(str(entry.link_clean) ?? str(entry.link));
    if (!title || !url) return [];
    const priceText = str(entry.price);
    const delivery = strings(entry.delivery).join(' ');
    const prime = bool(entry.prime) ?? bool(entry.is_prime) ?? (/\bprime\b/i.test(delivery) ? true : null);
    return [
      {
        title,
        url,
        price: num(entry.extracted_price) ?? priceOf(priceText),
        currency: serpCurrency(priceText, country),
        availability: availabilityFromText(`${delivery} ${str(entry.stock) ?? ''}`),
        rating: num(entry.rating),
        reviews: count(entry.reviews),
        seller: str(entry.seller) ?? str(entry.brand_store),
        brand: str(entry.brand),
        image: canonicalUrl(str(entry.thumbnail)),
        asin: str(entry.asin) ?? asinOf(url),
        prime,
        provider: PROVIDER,
      },
    ];
  });
}
