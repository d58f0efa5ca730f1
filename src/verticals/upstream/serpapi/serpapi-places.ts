import { type JsonRecord, count, isRecord, num, recordsAt, str, strings } from '../../../search/upstream/json-shape.js';
import { canonicalUrl, plainText } from '../../../search/upstream/upstream-text.js';
import type { PlaceResult } from '../../dto/places-results.dto.js';
import { PROVIDER, record } from './serp-record.js';

function place(entry: JsonRecord): PlaceResult | null {
  const name = plainText(str(entry.title));
  if (!name) return null;
  const gps = record(entry.gps_coordinates);
  const placeId = str(entry.place_id);
  return {
    name,
    address: str(entry.address),
    latitude: num(gps.latitude),
    longitude: num(gps.longitude),
    rating: num(entry.rating),
    reviews: count(entry.reviews),
    phone: str(entry.phone),
    website: canonicalUrl(str(entry.website)),
    category: str(entry.type) ?? strings(entry.types)[0] ?? null,
    url: placeId ? `https://www.google.com/maps/place/?q=place_id:${encodeURIComponent(placeId)}` : null,
    provider: PROVIDER,
  };
}

/** engine=google_maps (type=search): `local_results`, or `place_results` when the search names one place. */
export function serpPlaces(root: JsonRecord): PlaceResult[] {
  const single = isRecord(root.place_results) ? [root.place_results] : [];
  return [...recordsAt(root, 'local_results', 'the answer'), ...single]
    .map(place)
    .filter((p): p is PlaceResult => p !== null);
}
