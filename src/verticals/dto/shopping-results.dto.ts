import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { VerticalRecord } from './vertical-record.dto.js';

@ApiSchema({ description: 'products: a product offer (shopping).' })
export class ProductResult extends VerticalRecord {
  /** Product name. */
  title!: string;

  /** Product page. */
  url!: string;

  /** Price. */
  price!: number | null;

  /** ISO 4217 currency code. */
  currency!: string | null;

  /** in_stock, out_of_stock, pre_order, back_order, limited_availability, sold_out, discontinued, … */
  availability!: string | null;

  /** Average rating (usually out of 5). */
  rating!: number | null;

  /** Number of reviews or ratings. */
  @ApiProperty({ type: 'integer', nullable: true })
  reviews!: number | null;

  /** Seller. */
  seller!: string | null;

  /** Brand. */
  brand!: string | null;

  /** Image URL. */
  image!: string | null;
}

@ApiSchema({ description: 'amazon: a product, with its ASIN and Prime eligibility.' })
export class AmazonResult extends ProductResult {
  /** ASIN (Amazon Standard Identification Number). */
  asin!: string | null;

  /** Prime eligibility. */
  prime!: boolean | null;
}
