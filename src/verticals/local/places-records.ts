import { type JsonRecord, isRecord } from '../../search/upstream/json-shape.js';
import type { PlaceResult, RealEstateResult } from '../dto/places-results.dto.js';
import type { LocalDocument } from './local-documents.js';
import { addressOf, deref, firstOf, hasType, numberOf, plain, text, typesOf, urlOf } from './schema-org.js';
import { RESIDENCE_TYPES, offerOf, offerPrice, ogValue, pageOf, ratingOf, record, set } from './structured-page.js';

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
