import type { Type } from '@nestjs/common';
import { ApiProperty, ApiSchema, type SchemaObject, getSchemaPath } from '@nestjs/swagger';
import { UsageDto } from '../../metering/dto/usage.dto.js';
import { VERTICAL_RECORDS, type VerticalResults } from '../vertical-results.js';
import { VERTICALS, type VerticalName } from '../verticals.js';

/** What every response of POST /search/{vertical} has, whatever the vertical (the records are in the subclasses). */
export abstract class VerticalResponseDto {
  /** The query. */
  query!: string;

  /** Seconds the call took. */
  response_time!: number;

  /** Identifies this request. */
  request_id!: string;

  /** What the call was charged: present when the request set include_usage: true. */
  usage?: UsageDto;
}

/** The type of a vertical's response: what its class (below) documents. */
export type VerticalResponse<V extends VerticalName = VerticalName> = VerticalResponseDto & {
  vertical: V;
  results: VerticalResults[V][];
};

/** `youtube_transcript` → `YoutubeTranscript`. */
const pascalCase = (name: string) =>
  name
    .split('_')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

/**
 * The response class of one vertical, named `{Vertical}VerticalResponse` (its schema name): `vertical` is that
 * vertical, `results` its records. Made by a factory, so the decorators are explicit (the plugin does not see it).
 */
function verticalResponse<V extends VerticalName>(vertical: V): Type<VerticalResponseDto> {
  const record = VERTICAL_RECORDS[vertical];

  @ApiSchema({ description: `The response of POST /search/${vertical}.` })
  class Response extends VerticalResponseDto {
    @ApiProperty({ enum: [vertical], description: 'The vertical searched.' })
    vertical!: V;

    @ApiProperty({ type: () => [record], description: `${vertical} records, best first.` })
    results!: VerticalResults[V][];
  }
  Object.defineProperty(Response, 'name', { value: `${pascalCase(vertical)}VerticalResponse` });
  return Response;
}

/** The response class of each vertical, in VERTICALS order: for `@ApiExtraModels(...VERTICAL_RESPONSE_MODELS)`. */
export const VERTICAL_RESPONSE_MODELS: readonly Type<VerticalResponseDto>[] = VERTICALS.map(verticalResponse);

/**
 * The 200 response of POST /search/{vertical}: one of the verticals' responses, told apart by `vertical` (for
 * `@ApiOkResponse({ schema: VERTICAL_RESPONSE_SCHEMA })`, with the models registered by `@ApiExtraModels`).
 */
export const VERTICAL_RESPONSE_SCHEMA: SchemaObject = {
  oneOf: VERTICAL_RESPONSE_MODELS.map((model) => ({ $ref: getSchemaPath(model) })),
  discriminator: {
    propertyName: 'vertical',
    mapping: Object.fromEntries(
      VERTICALS.map((name, index) => [name, getSchemaPath(VERTICAL_RESPONSE_MODELS[index]!)]),
    ),
  },
};
