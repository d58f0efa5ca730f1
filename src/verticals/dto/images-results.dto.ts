import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { VerticalRecord } from './vertical-record.dto.js';

@ApiSchema({ description: 'images: `url` is the image itself, `source_url` the page showing it.' })
export class ImageResult extends VerticalRecord {
  /** The image itself. */
  url!: string;

  /** Thumbnail URL. */
  thumbnail!: string | null;

  /** Title. */
  title!: string | null;

  /** The page showing the image. */
  source_url!: string | null;

  /** Width in pixels. */
  @ApiProperty({ type: 'integer', nullable: true })
  width!: number | null;

  /** Height in pixels. */
  @ApiProperty({ type: 'integer', nullable: true })
  height!: number | null;
}
