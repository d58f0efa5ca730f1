import { toOpenApi31Schemas } from './openapi-31.js';

describe('toOpenApi31Schemas', () => {
  test('3.0 nullable forms become JSON Schema 2020-12 forms, nested at any depth', () => {
    const document = {
      components: {
        schemas: {
          A: {
            type: 'object',
            properties: {
              text: { type: 'string', nullable: true },
              mode: { type: 'string', enum: ['basic'], nullable: true },
              child: { $ref: '#/components/schemas/B', nullable: true, description: 'kept' },
              list: { type: 'array', items: { type: 'integer', nullable: true } },
              plain: { type: 'string', nullable: false },
            },
          },
        },
      },
    };
    toOpenApi31Schemas(document);
    expect(document.components.schemas.A.properties).toEqual({
      text: { type: ['string', 'null'] },
      mode: { type: ['string', 'null'], enum: ['basic', null] },
      child: { description: 'kept', anyOf: [{ $ref: '#/components/schemas/B' }, { type: 'null' }] },
      list: { type: 'array', items: { type: ['integer', 'null'] } },
      plain: { type: 'string' },
    });
  });
});
