import { ValidateBy, type ValidationOptions } from 'class-validator';

/** `YYYY-MM-DD` naming a real calendar day. */
export function isCalendarDate(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isCalendarDate',
      validator: {
        validate: isCalendarDate,
        defaultMessage: (args) => `${args?.property} must be a date written YYYY-MM-DD`,
      },
    },
    options,
  );
}
