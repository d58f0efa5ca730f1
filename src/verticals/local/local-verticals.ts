import { type JsonRecord, isRecord } from '../../search/upstream/json-shape.js';
import { isoDay } from '../../search/upstream/upstream-text.js';
import type {
  AmazonResult,
  ImageResult,
  JobResult,
  NewsResult,
  PatentResult,
  PlaceResult,
  ProductResult,
  RealEstateResult,
  Salary,
  ScholarResult,
} from '../vertical-results.js';
import type { LocalDocument } from './local-documents.js';
import {
  type Found,
  addressOf,
  availabilityOf,
  countOf,
  currencyOf,
  dateOf,
  deref,
  firstOf,
  hasType,
  meta,
  metas,
  nameOf,
  namesOf,
  numberOf,
  plain,
  priceOf,
  sourceOf,
  text,
  texts,
  typedItems,
  typesOf,
  urlOf,
} from './schema-org.js';

/**
 * Vertical records from the structured data of one local page (schema.org JSON-LD and microdata, OpenGraph, citation
 * meta tags). Each function answers the page's records of one vertical, in page order; the service then keeps the
 * ones that match the query.
 */

const set = (...names: string[]) => new Set(names);

const PRODUCT_TYPES = set(
  'Product',
  'ProductGroup',
  'IndividualProduct',
  'ProductModel',
  'SomeProducts',
  'Vehicle',
  'Car',
);
const OFFER_TYPES = set('Offer', 'AggregateOffer');
const RESIDENCE_TYPES = set(
  'Accommodation',
  'Apartment',
  'House',
  'SingleFamilyResidence',
  'Residence',
  'ApartmentComplex',
  'GatedResidenceCommunity',
  'Room',
  'Suite',
);
const NEWS_TYPES = set(
  'NewsArticle',
  'ReportageNewsArticle',
  'AnalysisNewsArticle',
  'OpinionNewsArticle',
  'ReviewNewsArticle',
  'BackgroundNewsArticle',
  'AskPublicNewsArticle',
  'SatiricalArticle',
  'Article',
  'BlogPosting',
  'LiveBlogPosting',
);
const SCHOLARLY_TYPES = set('ScholarlyArticle', 'MedicalScholarlyArticle', 'Thesis');
const PLACE_TYPES = set(
  'Place',
  'LocalBusiness',
  'TouristAttraction',
  'LandmarksOrHistoricalBuildings',
  'CivicStructure',
  'Restaurant',
  'CafeOrCoffeeShop',
  'BarOrPub',
  'Bakery',
  'FastFoodRestaurant',
  'FoodEstablishment',
  'Winery',
  'Brewery',
  'IceCreamShop',
  'Hotel',
  'Hostel',
  'Motel',
  'BedAndBreakfast',
  'LodgingBusiness',
  'Store',
  'BookStore',
  'ClothingStore',
  'GroceryStore',
  'HardwareStore',
  'Museum',
  'Park',
  'Library',
  'Hospital',
  'MedicalClinic',
  'Dentist',
  'Pharmacy',
  'ExerciseGym',
  'MovieTheater',
  'PerformingArtsTheater',
  'Zoo',
  'Aquarium',
  'StadiumOrArena',
  'Beach',
  'Airport',
  'TrainStation',
  'BusStation',
);
/** Subtypes of LocalBusiness and Place not listed above, recognized by their names when they carry an address. */
const PLACE_NAME =
  /(Business|Store|Shop|Restaurant|Hotel|Museum|Park|Attraction|Clinic|Gym|Salon|Agency|Office|Station|Venue|Theater|Gallery|Center|Centre)$/;

const IMAGE_TYPES = set('ImageObject', 'Photograph');

function pageOf(doc: LocalDocument) {
  const found = typedItems(doc.structuredData);
  const og = doc.structuredData.find((item) => sourceOf(item) === 'opengraph') ?? null;
  const citation = doc.structuredData.find((item) => sourceOf(item) === 'citation') ?? null;
  return { found, og, citation, schema: found.filter((f) => f.item['@type'] !== undefined) };
}

function ogValue(og: JsonRecord | null, ...names: string[]): string | null {
  if (!og) return null;
  for (const name of names) {
    const value = meta(og, name);
    if (value) return value;
  }
  return null;
}

function snippetOf(doc: LocalDocument, max = 300): string | null {
  return plain(doc.snippet.replace(/[#*_>`|[\]]+/g, ' '), max);
}

function record(value: unknown): JsonRecord {
  const v = firstOf(value);
  return isRecord(v) ? v : {};
}

/** The offer of a product: its `offers` (the first, or an AggregateOffer), or the Offer it is the itemOffered of. */
function offerOf(found: Found, page: readonly Found[]): JsonRecord {
  const offers = deref(firstOf(found.item.offers), page);
  if (isRecord(offers)) return offers;
  if (found.parent && hasType(found.parent, OFFER_TYPES)) return found.parent;
  return {};
}

function offerPrice(offer: JsonRecord): { price: number | null; currency: string | null } {
  const spec = record(offer.priceSpecification);
  const raw = offer.price ?? offer.lowPrice ?? spec.price ?? spec.minPrice;
  return { price: priceOf(raw), currency: currencyOf(offer.priceCurrency ?? spec.priceCurrency, raw) };
}

function ratingOf(item: JsonRecord): { rating: number | null; reviews: number | null } {
  const aggregate = record(item.aggregateRating);
  return {
    rating: numberOf(aggregate.ratingValue),
    reviews: countOf(aggregate.reviewCount ?? aggregate.ratingCount),
  };
}

// ---------------------------------------------------------------------------------------------------------- products

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

// ------------------------------------------------------------------------------------------------------------ images

export function imagesOf(doc: LocalDocument): ImageResult[] {
  const { og, schema } = pageOf(doc);
  const images: ImageResult[] = [];
  const seen = new Set<string>();
  const add = (image: ImageResult) => {
    if (seen.has(image.url)) return;
    seen.add(image.url);
    images.push(image);
  };
  for (const { item, parent } of schema) {
    if (!hasType(item, IMAGE_TYPES)) continue;
    // Publishers' logos are not what an image search is after.
    if (parent && (parent.logo === item || (Array.isArray(parent.logo) && parent.logo.includes(item)))) continue;
    const url = urlOf(item.contentUrl ?? item.url, doc.url);
    if (!url) continue;
    add({
      url,
      thumbnail: urlOf(item.thumbnailUrl ?? item.thumbnail, doc.url),
      title: text(item.name ?? item.caption ?? item.headline ?? item.description) ?? doc.title,
      source_url: doc.url,
      width: numberOf(item.width),
      height: numberOf(item.height),
      provider: 'local',
    });
  }
  if (og) {
    metas(og, 'og:image').forEach((value, index) => {
      const url = urlOf(value, doc.url);
      if (!url) return;
      add({
        url,
        thumbnail: null,
        title: (index === 0 ? ogValue(og, 'og:image:alt') : null) ?? ogValue(og, 'og:title') ?? doc.title,
        source_url: doc.url,
        width: index === 0 ? numberOf(ogValue(og, 'og:image:width')) : null,
        height: index === 0 ? numberOf(ogValue(og, 'og:image:height')) : null,
        provider: 'local',
      });
    });
  }
  for (const image of doc.images) {
    const url = urlOf(image, doc.url);
    if (url) {
      add({
        url,
        thumbnail: null,
        title: doc.title,
        source_url: doc.url,
        width: null,
        height: null,
        provider: 'local',
      });
    }
  }
  return images;
}

// ------------------------------------------------------------------------------------------------------------ places

function isPlace(item: JsonRecord): boolean {
  if (hasType(item, RESIDENCE_TYPES) || hasType(item, set('PostalAddress', 'GeoCoordinates', 'GeoShape'))) return false;
  if (hasType(item, PLACE_TYPES)) return true;
  return typesOf(item).some((t) => PLACE_NAME.test(t)) && (item.address !== undefined || item.geo !== undefined);
}

function categoryOf(item: JsonRecord): string | null {
  const types = typesOf(item);
  return types.find((t) => t !== 'Place' && t !== 'LocalBusiness' && t !== 'Organization') ?? types[0] ?? null;
}

export function placesOf(doc: LocalDocument): PlaceResult[] {
  const { found, og, schema } = pageOf(doc);
  const places: PlaceResult[] = [];
  for (const { item } of schema) {
    if (!isPlace(item)) continue;
    const name = text(item.name);
    if (!name) continue;
    const geo = record(deref(item.geo, found));
    places.push({
      name,
      address: addressOf(deref(item.address, found)),
      latitude: numberOf(geo.latitude ?? item.latitude),
      longitude: numberOf(geo.longitude ?? item.longitude),
      ...ratingOf(item),
      phone: text(item.telephone),
      website: urlOf(item.url, doc.url) ?? urlOf(item.sameAs, doc.url),
      category: categoryOf(item),
      url: doc.url,
      provider: 'local',
    });
  }
  const ogType = ogValue(og, 'og:type')?.toLowerCase() ?? '';
  if (places.length === 0 && og && /(place|business)/.test(ogType)) {
    const street = ogValue(og, 'business:contact_data:street_address');
    const locality = ogValue(og, 'business:contact_data:locality');
    const country = ogValue(og, 'business:contact_data:country_name');
    const name = ogValue(og, 'og:title') ?? doc.title;
    if (name) {
      places.push({
        name,
        address: [street, locality, country].filter(Boolean).join(', ') || null,
        latitude: numberOf(ogValue(og, 'place:location:latitude')),
        longitude: numberOf(ogValue(og, 'place:location:longitude')),
        rating: null,
        reviews: null,
        phone: ogValue(og, 'business:contact_data:phone_number'),
        website: urlOf(ogValue(og, 'business:contact_data:website'), doc.url),
        category: ogType,
        url: doc.url,
        provider: 'local',
      });
    }
  }
  return places;
}

// -------------------------------------------------------------------------------------------------------------- news

export function newsOf(doc: LocalDocument): NewsResult[] {
  const { og, schema } = pageOf(doc);
  const siteName = ogValue(og, 'og:site_name');
  const news: NewsResult[] = [];
  for (const { item } of schema) {
    if (!hasType(item, NEWS_TYPES)) continue;
    const title = text(item.headline ?? item.name) ?? ogValue(og, 'og:title') ?? doc.title;
    if (!title) continue;
    const published = dateOf(item.datePublished) ?? dateOf(item.dateCreated) ?? doc.publishedDate;
    news.push({
      title,
      url: urlOf(item.url, doc.url) ?? urlOf(item.mainEntityOfPage, doc.url) ?? doc.url,
      source: nameOf(item.publisher) ?? siteName ?? doc.domain,
      published_date: published ? published.toISOString() : null,
      snippet: plain(item.description, 300) ?? ogValue(og, 'og:description') ?? snippetOf(doc),
      image: urlOf(item.image, doc.url) ?? urlOf(ogValue(og, 'og:image'), doc.url),
      provider: 'local',
    });
  }
  if (news.length === 0 && og && ogValue(og, 'og:type')?.toLowerCase() === 'article') {
    const title = ogValue(og, 'og:title') ?? doc.title;
    const published = dateOf(ogValue(og, 'article:published_time')) ?? doc.publishedDate;
    if (title) {
      news.push({
        title,
        url: urlOf(ogValue(og, 'og:url'), doc.url) ?? doc.url,
        source: siteName ?? doc.domain,
        published_date: published ? published.toISOString() : null,
        snippet: ogValue(og, 'og:description') ?? snippetOf(doc),
        image: urlOf(ogValue(og, 'og:image'), doc.url),
        provider: 'local',
      });
    }
  }
  return news;
}

// -------------------------------------------------------------------------------------------------------------- jobs

const PERIODS: Record<string, string> = { HOUR: 'hour', DAY: 'day', WEEK: 'week', MONTH: 'month', YEAR: 'year' };

/** schema.org employment types (FULL_TIME) and written ones (Full-time) as full_time, part_time, ... */
export function employmentTypeOf(value: string | null): string | null {
  if (!value) return null;
  const key = value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  const known: Record<string, string> = {
    full_time: 'full_time',
    fulltime: 'full_time',
    part_time: 'part_time',
    parttime: 'part_time',
    contractor: 'contractor',
    contract: 'contractor',
    temporary: 'temporary',
    temp: 'temporary',
    intern: 'intern',
    internship: 'intern',
    volunteer: 'volunteer',
    per_diem: 'per_diem',
    other: 'other',
  };
  return known[key] ?? key;
}

function formatAmount(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

function salaryOf(value: unknown): Salary | null {
  const amount = record(value);
  if (Object.keys(amount).length === 0) {
    const written = text(value);
    return written ? { min: numberOf(written), max: null, currency: null, period: null, text: written } : null;
  }
  const quantity = record(amount.value);
  const single = Object.keys(quantity).length === 0 ? numberOf(amount.value) : numberOf(quantity.value);
  const min = numberOf(quantity.minValue ?? amount.minValue) ?? single;
  const max = numberOf(quantity.maxValue ?? amount.maxValue) ?? (single !== null ? single : null);
  const currency = currencyOf(amount.currency);
  const unit = text(quantity.unitText ?? amount.unitText)?.toUpperCase() ?? null;
  const period = unit ? (PERIODS[unit] ?? unit.toLowerCase()) : null;
  if (min === null && max === null) return null;
  const range =
    min !== null && max !== null && min !== max
      ? `${formatAmount(min)}–${formatAmount(max)}`
      : formatAmount((min ?? max)!);
  return {
    min,
    max,
    currency,
    period,
    text: [currency, range, period ? `per ${period}` : null].filter(Boolean).join(' '),
  };
}

function localityOf(value: unknown): string | null {
  const place = record(value);
  const address = record(place.address ?? value);
  if (Object.keys(address).length === 0) return text(place.address ?? value);
  const parts = [text(address.addressLocality), text(address.addressRegion), nameOf(address.addressCountry)].filter(
    (p): p is string => Boolean(p),
  );
  return parts.length > 0 ? parts.join(', ') : addressOf(address);
}

export function jobsOf(doc: LocalDocument): JobResult[] {
  const { found, schema } = pageOf(doc);
  const jobs: JobResult[] = [];
  for (const { item } of schema) {
    if (!hasType(item, set('JobPosting'))) continue;
    const title = text(item.title ?? item.name);
    if (!title) continue;
    const places = (Array.isArray(item.jobLocation) ? item.jobLocation : [item.jobLocation])
      .map((place) => localityOf(deref(place, found)))
      .filter((p): p is string => Boolean(p));
    const remote = texts(item.jobLocationType).some((t) => /telecommute/i.test(t));
    const location = [...(remote ? ['Remote'] : []), ...places].join('; ') || null;
    const posted = dateOf(item.datePosted);
    jobs.push({
      title,
      company: nameOf(deref(item.hiringOrganization, found)),
      location,
      salary: salaryOf(item.baseSalary ?? firstOf(item.estimatedSalary)),
      employment_type: employmentTypeOf(texts(item.employmentType)[0] ?? null),
      posted_date: isoDay(posted),
      url: urlOf(item.url, doc.url) ?? doc.url,
      description: plain(item.description, 300),
      provider: 'local',
    });
  }
  return jobs;
}

// -------------------------------------------------------------------------------------------------------- realestate

function floorAreaOf(value: unknown): { area: number | null; unit: string | null } {
  const size = record(value);
  const area = numberOf(Object.keys(size).length > 0 ? size.value : value);
  const unitText = (text(size.unitCode) ?? text(size.unitText) ?? (typeof value === 'string' ? value : '') ?? '')
    .trim()
    .toLowerCase();
  let unit: string | null = null;
  if (/^(mtk|m2|m²|sqm|sq\.? ?m)|square ?met/.test(unitText) || /m²|sqm/.test(unitText)) unit = 'sqm';
  else if (/^(ftk|ft2|ft²|sqft|sq\.? ?ft)|square ?f(oo|ee)t/.test(unitText) || /sq\.? ?ft|ft²/.test(unitText))
    unit = 'sqft';
  return { area, unit: area === null ? null : unit };
}

function listingTypeOf(offer: JsonRecord, ...texts_: (string | null)[]): string | null {
  const fn = text(offer.businessFunction) ?? '';
  if (/LeaseOut|rent/i.test(fn)) return 'rent';
  if (/Sell/i.test(fn)) return 'sale';
  const spec = record(offer.priceSpecification);
  const unit = `${text(spec.unitCode) ?? ''} ${text(spec.unitText) ?? ''} ${text(spec.referenceQuantity) ?? ''}`;
  if (/\b(MON|month|monthly|week|WEE|night)\b/i.test(unit)) return 'rent';
  const words = texts_.filter(Boolean).join(' ');
  if (/\b(for rent|to let|to rent|rental|per month|\/month)\b/i.test(words)) return 'rent';
  if (/\bfor sale\b/i.test(words)) return 'sale';
  return null;
}

export function realEstateOf(doc: LocalDocument): RealEstateResult[] {
  const { found, schema } = pageOf(doc);
  const listings: RealEstateResult[] = [];
  const covered = new Set<JsonRecord>();
  const build = (listing: JsonRecord | null, residence: JsonRecord, offer: JsonRecord): RealEstateResult | null => {
    const title = text(listing?.name) ?? text(residence.name) ?? doc.title;
    if (!title) return null;
    const { price, currency } = offerPrice(offer);
    const floor = floorAreaOf(residence.floorSize ?? listing?.floorSize);
    const description = plain(listing?.description ?? residence.description, 1000);
    return {
      title,
      price,
      currency,
      address: addressOf(deref(residence.address ?? listing?.address, found)),
      bedrooms: numberOf(residence.numberOfBedrooms ?? residence.numberOfRooms),
      bathrooms: numberOf(residence.numberOfBathroomsTotal ?? residence.numberOfFullBathrooms),
      floor_area: floor.area,
      floor_area_unit: floor.unit,
      listing_type: listingTypeOf(offer, title, description),
      image: urlOf(listing?.image ?? residence.image, doc.url) ?? doc.images[0] ?? null,
      url: urlOf(listing?.url, doc.url) ?? urlOf(residence.url, doc.url) ?? urlOf(offer.url, doc.url) ?? doc.url,
      provider: 'local',
    };
  };
  for (const { item } of schema) {
    if (!hasType(item, set('RealEstateListing'))) continue;
    const about = [item.about, item.mainEntity, item.itemOffered]
      .flatMap((v) => (Array.isArray(v) ? v : [v]))
      .map((v) => deref(v, found))
      .find((v): v is JsonRecord => isRecord(v) && hasType(v, RESIDENCE_TYPES));
    let offer = record(deref(firstOf(item.offers), found));
    const offered = record(offer.itemOffered);
    const residence = about ?? (hasType(offered, RESIDENCE_TYPES) ? offered : {});
    if (Object.keys(offer).length === 0) offer = record(deref(firstOf(residence.offers), found));
    covered.add(residence);
    const listing = build(item, residence, offer);
    if (listing) listings.push(listing);
  }
  for (const entry of schema) {
    const { item, parent } = entry;
    if (!hasType(item, RESIDENCE_TYPES) || covered.has(item)) continue;
    if (parent && hasType(parent, set('RealEstateListing'))) continue;
    const offer = offerOf(entry, found);
    if (Object.keys(offer).length === 0) continue;
    const listing = build(null, item, offer);
    if (listing) listings.push(listing);
  }
  return listings;
}

// ----------------------------------------------------------------------------------------------------------- scholar

const DOI = /\b(10\.\d{4,9}\/[^\s"<>]+)/;

export function doiOf(value: string | null): string | null {
  if (!value) return null;
  const match = DOI.exec(decodeURIComponent(value.replace(/%(?![0-9a-f]{2})/gi, '%25')));
  return match ? match[1]!.replace(/[.,;]$/, '') : null;
}

function yearOf(value: unknown): number | null {
  const t = text(value);
  if (!t) return null;
  const match = /\b(1[5-9]\d{2}|2\d{3})\b/.exec(t);
  return match ? Number(match[1]) : null;
}

function venueOf(item: JsonRecord, depth = 0): string | null {
  if (depth > 4) return null;
  const partOf = record(item.isPartOf);
  if (Object.keys(partOf).length === 0) return text(item.isPartOf) ?? nameOf(item.publisher);
  if (hasType(partOf, set('Periodical', 'Journal', 'PublicationVolume', 'PublicationIssue'))) {
    return venueOf(partOf, depth + 1) ?? text(partOf.name);
  }
  return text(partOf.name) ?? nameOf(item.publisher);
}

function pdfOf(item: JsonRecord, base: string): string | null {
  for (const media of [item.encoding, item.associatedMedia, item.distribution].flatMap((m) =>
    Array.isArray(m) ? m : [m],
  )) {
    const m = record(media);
    if (/pdf/i.test(text(m.encodingFormat) ?? '') || /\.pdf([?#]|$)/i.test(text(m.contentUrl) ?? '')) {
      const url = urlOf(m.contentUrl ?? m.url, base);
      if (url) return url;
    }
  }
  const url = urlOf(item.url, base);
  return url && /\.pdf([?#]|$)/i.test(url) ? url : null;
}

function doiOfItem(item: JsonRecord): string | null {
  for (const id of [item.identifier, item.sameAs, item['@id'], item.url].flatMap((v) => (Array.isArray(v) ? v : [v]))) {
    if (isRecord(id) && /doi/i.test(text(id.propertyID) ?? '')) return doiOf(text(id.value));
    const doi = doiOf(text(id));
    if (doi) return doi;
  }
  return null;
}

function mergeInto<T extends object>(target: T, other: T): T {
  const merged = { ...target } as Record<string, unknown>;
  for (const [key, value] of Object.entries(other)) {
    const current = merged[key];
    if (current === null || current === undefined || (Array.isArray(current) && current.length === 0))
      merged[key] = value;
  }
  return merged as T;
}

const sameTitle = (a: string, b: string) => a.toLowerCase().replace(/\W+/g, '') === b.toLowerCase().replace(/\W+/g, '');

export function scholarOf(doc: LocalDocument): ScholarResult[] {
  const { citation, schema } = pageOf(doc);
  const papers: ScholarResult[] = [];
  const add = (paper: ScholarResult) => {
    const index = papers.findIndex((p) => sameTitle(p.title, paper.title));
    if (index >= 0) papers[index] = mergeInto(papers[index]!, paper);
    else papers.push(paper);
  };
  if (citation && !Object.keys(citation).some((key) => key.startsWith('citation_patent'))) {
    const title = meta(citation, 'citation_title');
    if (title) {
      add({
        title,
        authors: metas(citation, 'citation_author'),
        venue:
          meta(citation, 'citation_journal_title') ??
          meta(citation, 'citation_conference_title') ??
          meta(citation, 'citation_inbook_title') ??
          meta(citation, 'citation_publisher') ??
          meta(citation, 'citation_dissertation_institution') ??
          meta(citation, 'citation_technical_report_institution'),
        year:
          yearOf(meta(citation, 'citation_publication_date')) ??
          yearOf(meta(citation, 'citation_date')) ??
          yearOf(meta(citation, 'citation_online_date')) ??
          yearOf(meta(citation, 'citation_year')),
        doi: doiOf(meta(citation, 'citation_doi')),
        pdf_url: urlOf(meta(citation, 'citation_pdf_url'), doc.url),
        citations: null,
        url:
          urlOf(meta(citation, 'citation_abstract_html_url'), doc.url) ??
          urlOf(meta(citation, 'citation_fulltext_html_url'), doc.url) ??
          doc.url,
        snippet: plain(meta(citation, 'citation_abstract'), 500) ?? snippetOf(doc, 500),
        provider: 'local',
      });
    }
  }
  for (const { item } of schema) {
    if (!hasType(item, SCHOLARLY_TYPES)) continue;
    const title = text(item.headline ?? item.name);
    if (!title) continue;
    add({
      title,
      authors: namesOf(item.author),
      venue: venueOf(item),
      year: yearOf(item.datePublished) ?? yearOf(item.dateCreated),
      doi: doiOfItem(item),
      pdf_url: pdfOf(item, doc.url),
      citations: null,
      url: doc.url,
      snippet: plain(item.abstract ?? item.description, 500) ?? snippetOf(doc, 500),
      provider: 'local',
    });
  }
  return papers;
}

// ----------------------------------------------------------------------------------------------------------- patents

const isPatentType = (item: JsonRecord) =>
  (Array.isArray(item['@type']) ? item['@type'] : [item['@type']]).some(
    (t) => typeof t === 'string' && /(^|[#/:])Patent$/.test(t.trim()),
  );

export function patentsOf(doc: LocalDocument): PatentResult[] {
  const { citation, schema } = pageOf(doc);
  const patents: PatentResult[] = [];
  const add = (patent: PatentResult) => {
    const index = patents.findIndex(
      (p) => (p.patent_number && p.patent_number === patent.patent_number) || sameTitle(p.title, patent.title),
    );
    if (index >= 0) patents[index] = mergeInto(patents[index]!, patent);
    else patents.push(patent);
  };
  if (citation && Object.keys(citation).some((key) => key.startsWith('citation_patent'))) {
    const title = meta(citation, 'citation_title') ?? doc.title;
    if (title) {
      const filed =
        meta(citation, 'citation_patent_filing_date') ??
        meta(citation, 'citation_filing_date') ??
        meta(citation, 'citation_patent_application_date');
      const published =
        meta(citation, 'citation_patent_publication_date') ??
        meta(citation, 'citation_publication_date') ??
        meta(citation, 'citation_date');
      const inventors = metas(citation, 'citation_patent_inventor');
      add({
        title,
        patent_number:
          meta(citation, 'citation_patent_number')?.replace(/:/g, '') ??
          meta(citation, 'citation_patent_publication_number') ??
          meta(citation, 'citation_patent_application_number'),
        assignee: meta(citation, 'citation_patent_assignee') ?? meta(citation, 'citation_assignee'),
        inventors:
          inventors.length > 0
            ? inventors
            : [...metas(citation, 'citation_inventor'), ...metas(citation, 'citation_author')],
        filing_date: isoDay(dateOf(filed)),
        publication_date: isoDay(dateOf(published)),
        abstract: plain(meta(citation, 'citation_abstract'), 1000) ?? snippetOf(doc, 500),
        url: doc.url,
        pdf_url: urlOf(meta(citation, 'citation_pdf_url'), doc.url),
        provider: 'local',
      });
    }
  }
  for (const { item } of schema) {
    if (!isPatentType(item)) continue;
    const title = text(item.name ?? item.headline ?? item.title);
    if (!title) continue;
    add({
      title,
      patent_number: text(item.patentNumber ?? item.publicationNumber ?? item.identifier),
      assignee: nameOf(item.assignee ?? item.assigneeOriginal ?? item.assigneeCurrent ?? item.applicant),
      inventors: namesOf(item.inventor ?? item.creator ?? item.author),
      filing_date: isoDay(dateOf(item.filingDate ?? item.dateCreated)),
      publication_date: isoDay(dateOf(item.publicationDate ?? item.datePublished)),
      abstract: plain(item.abstract ?? item.description, 1000),
      url: urlOf(item.url, doc.url) ?? doc.url,
      pdf_url: pdfOf(item, doc.url),
      provider: 'local',
    });
  }
  return patents;
}
