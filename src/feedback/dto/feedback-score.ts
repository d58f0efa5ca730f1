import { ValidateBy, type ValidationOptions } from 'class-validator';
import type { ApiPropertyOptions } from '@nestjs/swagger';

/** The longest a score given as text may be (`"4/5"`, `"relevant"`). */
export const MAX_SCORE_TEXT = 100;

/** A score as the clients send it: a finite number, or a short text. */
export function isFeedbackScore(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && value.length <= MAX_SCORE_TEXT;
}

export function IsFeedbackScore(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isFeedbackScore',
      validator: {
        validate: isFeedbackScore,
        defaultMessage: (args) =>
          `${args?.property} must be a number or a text of at most ${MAX_SCORE_TEXT} characters`,
      },
    },
    options,
  );
}

/** A number, or a text of at most 100 characters (the field's own comment describes it). */
export const SCORE_SCHEMA: ApiPropertyOptions = {
  oneOf: [{ type: 'number' }, { type: 'string', maxLength: MAX_SCORE_TEXT }],
};
