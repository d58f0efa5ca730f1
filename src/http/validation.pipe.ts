import { BadRequestException, ValidationPipe, type ValidationError } from '@nestjs/common';
import { errorBody } from './error-body.js';

/** class-validator on every body: unknown fields are dropped, the first problem names its field in `error`. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    forbidUnknownValues: false,
    stopAtFirstError: true,
    exceptionFactory: (errors: ValidationError[]) => new BadRequestException(errorBody(firstMessage(errors))),
  });
}

function firstMessage(errors: ValidationError[], path = ''): string {
  for (const error of errors) {
    const field = path ? `${path}.${error.property}` : error.property;
    const constraint = error.constraints && Object.values(error.constraints)[0];
    if (constraint)
      return constraint.startsWith(error.property)
        ? field + constraint.slice(error.property.length)
        : `${field}: ${constraint}`;
    if (error.children?.length) return firstMessage(error.children, field);
  }
  return 'invalid request body';
}
