import { Transform } from 'class-transformer';
import {
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
  Validate,
} from 'class-validator';
import { applyDecorators } from '@nestjs/common';
import { patternListProblem } from '../url-pattern.js';

/** A list of regular expressions (url-pattern.ts): each must compile, within the length and count caps. */
@ValidatorConstraint({ name: 'urlPatterns' })
export class UrlPatternsConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return patternListProblem(value) === null;
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property} ${patternListProblem(args.value) ?? 'is invalid'}`;
  }
}

/** `select_paths` & co.: one pattern given as a bare string is taken as a list of one. */
export function IsUrlPatterns(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value)),
    Validate(UrlPatternsConstraint),
  );
}
