import { ValidateBy, type ValidationOptions } from 'class-validator';

/** A value that asks for nothing: absent, null, false, '' or []. */
function isUnset(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === false ||
    value === '' ||
    (Array.isArray(value) && value.length === 0)
  );
}

/**
 * An option a client may send that this server does not honour: set, it is a 400 that names it and says `why`
 * (rather than being dropped without a word); unset (null, false, '', []) it is accepted.
 */
export function RefusedOption(why: string, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'refusedOption',
      validator: {
        validate: isUnset,
        defaultMessage: (args) => `${args?.property} is not supported: ${why}`,
      },
    },
    options,
  );
}
