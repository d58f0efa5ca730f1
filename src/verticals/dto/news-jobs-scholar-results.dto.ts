import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { VerticalRecord } from './vertical-record.dto.js';

@ApiSchema({ description: 'news: an article.' })
export class NewsResult extends VerticalRecord {
  /** Headline. */
  title!: string;

  /** Article URL. */
  url!: string;

  /** The publisher. */
  source!: string | null;

  /** When it was published, as an ISO 8601 instant. */
  published_date!: string | null;

  /** Snippet. */
  snippet!: string | null;

  /** Image URL. */
  image!: string | null;
}

@ApiSchema({ description: 'A salary, as a job posting states it.' })
export class Salary {
  /** Lower bound. */
  min!: number | null;

  /** Upper bound. */
  max!: number | null;

  /** ISO 4217 code. */
  currency!: string | null;

  /** hour, day, week, month or year. */
  period!: string | null;

  /** The salary as written (`USD 95,000–120,000 per year`, `80K–100K a year`). */
  text!: string;
}

@ApiSchema({ description: 'jobs: a job posting.' })
export class JobResult extends VerticalRecord {
  /** Job title. */
  title!: string;

  /** Employer. */
  company!: string | null;

  /** Where. */
  location!: string | null;

  /** Salary, when stated. */
  salary!: Salary | null;

  /** full_time, part_time, contractor, temporary, intern, volunteer, per_diem, other. */
  employment_type!: string | null;

  /** YYYY-MM-DD. */
  posted_date!: string | null;

  /** Posting URL. */
  url!: string | null;

  /** Description. */
  description!: string | null;
}

@ApiSchema({ description: 'scholar: a paper.' })
export class ScholarResult extends VerticalRecord {
  /** Title. */
  title!: string;

  /** Authors. */
  authors!: string[];

  /** Journal, conference or publisher. */
  venue!: string | null;

  /** Year of publication. */
  @ApiProperty({ type: 'integer', nullable: true })
  year!: number | null;

  /** DOI. */
  doi!: string | null;

  /** PDF URL. */
  pdf_url!: string | null;

  /** Times cited, when the provider counts them. */
  @ApiProperty({ type: 'integer', nullable: true })
  citations!: number | null;

  /** URL. */
  url!: string | null;

  /** Snippet. */
  snippet!: string | null;
}
