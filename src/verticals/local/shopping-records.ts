import type { AmazonResult, ProductResult } from '../dto/shopping-results.dto.js';
import type { LocalDocument } from './local-documents.js';
import { availabilityOf, currencyOf, hasType, nameOf, priceOf, text, texts, urlOf } from './schema-org.js';
import { RESIDENCE_TYPES, offerOf, offerPrice, ogValue, pageOf, ratingOf, set } from './structured-page.js';

const PRODUCT_TYPES = set(
  'Product',
  'ProductGroup',
  'IndividualProduct',
  'ProductModel',
  'SomeProducts',
  'Vehicle',
  'Car',
);

export function productsOf(doc: LocalDocument): ProductResult[] {
  const { found, og, schema } = pageOf(doc);
  const siteName = ogValue(og, 'og:site_name');
  const products: ProductResult[] = [];
  for (const entry of schema) {
    const { item } = entry;
    if (!hasType(item, PRODUCT_TYPES) || hasType(item, RESIDENCE_TYPES)) continue;
    // A group whose variants are listed is represented by its variants.
    if (hasType(item, set('ProductGroup')) && item.hasVariant !== undefined) continue;
    const offer = offerOf(entry, found);
    const { price, currency } = offerPrice(offer);
    const title = text(item.name) ?? ogValue(og, 'og:title') ?? doc.title;
    if (!title) continue;
    products.push({
      title,
      url: urlOf(item.url, doc.url) ?? urlOf(offer.url, doc.url) ?? doc.url,
      price,
      currency,
      availability: availabilityOf(offer.availability),
      ...ratingOf(item),
      seller: nameOf(offer.seller) ?? siteName,
      brand: nameOf(item.brand) ?? nameOf(item.manufacturer),
      image: urlOf(item.image, doc.url) ?? urlOf(ogValue(og, 'og:image'), doc.url) ?? doc.images[0] ?? null,
      provider: 'local',
    });
  }
  const ogType = ogValue(og, 'og:type')?.toLowerCase() ?? '';
  if (products.length === 0 && og && /(^|[.:])product/.test(ogType)) {
    const title = ogValue(og, 'og:title') ?? doc.title;
    const priceText = ogValue(og, 'product:price:amount', 'og:price:amount', 'product:sale_price:amount');
    if (title) {
      products.push({
        title,
        url: urlOf(ogValue(og, 'og:url'), doc.url) ?? doc.url,
        price: priceOf(priceText),
        currency: currencyOf(ogValue(og, 'product:price:currency', 'og:price:currency'), priceText),
        availability: availabilityOf(ogValue(og, 'product:availability', 'og:availability')),
        rating: null,
        reviews: null,
        seller: siteName,
        brand: ogValue(og, 'product:brand'),
        image: urlOf(ogValue(og, 'og:image'), doc.url) ?? doc.images[0] ?? null,
        provider: 'local',
      });
    }
  }
  return products;
}

const AMAZON_HOST = /(^|\.)amazon\.[a-z.]+$/i;
const ASIN = /^(B0[A-Z0-9]{8}|\d{9}[\dX])$/;

/** Amazon products: products of pages on an amazon.* host, with the ASIN from the URL or the product's identifiers. */
export function amazonOf(doc: LocalDocument): AmazonResult[] {
  if (!AMAZON_HOST.test(doc.domain)) return [];
  const { schema } = pageOf(doc);
  const identifiers = schema
    .filter((f) => hasType(f.item, PRODUCT_TYPES))
    .flatMap((f) => texts([f.item.sku, f.item.productID, f.item.mpn, f.item.identifier].flat()))
    .map((id) => id.replace(/^asin:/i, '').toUpperCase());
  return productsOf(doc).map((product) => ({
    ...product,
    asin: asinOf(product.url) ?? asinOf(doc.url) ?? identifiers.find((id) => ASIN.test(id)) ?? null,
    prime: null,
  }));
}

export function asinOf(url: string | null): string | null {
  if (!url) return null;
  const match = /\/(?:dp|gp\/product|gp\/aw\/d|product)\/([A-Z0-9]{10})(?:[/?]|$)/i.exec(url);
  return match ? match[1]!.toUpperCase() : null;
}
