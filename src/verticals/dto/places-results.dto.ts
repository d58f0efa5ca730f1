import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { VerticalRecord } from './vertical-record.dto.js';

@ApiSchema({ description: 'places: a place (maps).' })
export class PlaceResult extends VerticalRecord {
  /** Name. */
  name!: string;

  /** Address. */
  address!: string | null;

  /** Latitude. */
  latitude!: number | null;

  /** Longitude. */
  longitude!: number | null;

  /** Average rating. */
  rating!: number | null;

  /** Number of reviews. */
  @ApiProperty({ type: 'integer', nullable: true })
  reviews!: number | null;

  /** Phone number. */
  phone!: string | null;

  /** Website. */
  website!: string | null;

  /** Kind of place: a schema.org type (`CafeOrCoffeeShop`), or the upstream's category (`Coffee shop`). */
  category!: string | null;

  /** Where the place was found (its page, or the map service's page for it). */
  url!: string | null;
}

@ApiSchema({ description: 'realestate: a listing for sale or for rent.' })
export class RealEstateResult extends VerticalRecord {
  /** Listing title. */
  title!: string;

  /** Price. */
  price!: number | null;

  /** ISO 4217 code. */
  currency!: string | null;

  /** Address. */
  address!: string | null;

  /** Bedrooms. */
  bedrooms!: number | null;

  /** Bathrooms. */
  bathrooms!: number | null;

  /** Floor area, in `floor_area_unit`. */
  floor_area!: number | null;

  /** sqm or sqft. */
  floor_area_unit!: string | null;

  /** sale or rent. */
  listing_type!: string | null;

  /** Image URL. */
  image!: string | null;

  /** Listing URL. */
  url!: string;
}
