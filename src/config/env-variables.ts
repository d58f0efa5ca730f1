import { type ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

/*
 * What every area of the configuration shares: an area declares its variables as a class whose decorators say how
 * each is read (these transforms) and what it may be (class-validator); readVariables reads and checks them.
 */

export const toNumber = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : Number(value);
/** The same reading as toNumber: @IsInt says whether a fraction is refused. */
export const toInt = toNumber;
export const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : ['1', 'true', 'yes', 'on'].includes(String(value).toLowerCase());
export const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/** A comma-separated list: each entry trimmed, empty ones dropped. */
export function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** An area's variables as its declaration reads them from the environment, and what the declaration refuses. */
export function readVariables<T extends object>(
  declaration: ClassConstructor<T>,
  env: NodeJS.ProcessEnv,
): { vars: T; problems: string[] } {
  const vars = plainToInstance(declaration, { ...env }, { excludeExtraneousValues: false });
  const errors = validateSync(vars, { skipMissingProperties: false, whitelist: false });
  const problems = errors.flatMap((e) => Object.values(e.constraints ?? { invalid: `${e.property} is invalid` }));
  return { vars, problems };
}
