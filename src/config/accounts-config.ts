import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { isEmailAddress, normalizeEmail } from '../common/email-address.js';
import { emptyToUndefined, listOf, toBool, toInt } from './env-variables.js';
import type { StorageConfig } from './storage-config.js';

/** Sign-in, sessions, API keys, operators and mail: docs/configuration.md, "Accounts, sign-in and mail". */
export class AccountsVariables {
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^smtps?:\/\/.+/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  MAIL_FROM?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[a-z][a-z0-9]{1,11}$/, {
    message: 'API_KEY_PREFIX must be 2-12 lower-case letters or digits, starting with a letter',
  })
  API_KEY_PREFIX?: string;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(60)
  @Max(86400)
  MAGIC_LINK_TTL_SECONDS?: number;

  @Transform(toInt)
  @IsOptional()
  @IsInt()
  @Min(300)
  @Max(31536000)
  SESSION_TTL_SECONDS?: number;

  /** Sign-in addresses of the server's operators, comma-separated (checked one by one in accountsProblems). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OPERATOR_EMAILS?: string;

  @Transform(toBool)
  @IsOptional()
  @IsBoolean()
  DEMO_SEED?: boolean;
}

export interface AccountsConfig {
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  readonly apiKeyPrefix: string;
  readonly magicLinkTtlSeconds: number;
  readonly sessionTtlSeconds: number;
  /**
   * The sign-in addresses (normalised) of the server's operators: signed in with one of them, a user may change any
   * organization's plan and limits from the control plane, as `cli org plan` does.
   */
  readonly operatorEmails: readonly string[];
  readonly demoSeed: boolean;
}

/** OPERATOR_EMAILS, one address at a time. */
export function accountsProblems(vars: AccountsVariables): string[] {
  return listOf(vars.OPERATOR_EMAILS)
    .filter((email) => !isEmailAddress(email))
    .map((email) => `OPERATOR_EMAILS: ${JSON.stringify(email)} is not an e-mail address`);
}

/** The demo seed is on by default in embedded mode only. */
export function loadAccountsConfig(vars: AccountsVariables, storage: Pick<StorageConfig, 'mode'>): AccountsConfig {
  return {
    smtpUrl: vars.SMTP_URL,
    mailFrom: vars.MAIL_FROM ?? 'Search API <no-reply@localhost>',
    apiKeyPrefix: vars.API_KEY_PREFIX ?? 'sk',
    magicLinkTtlSeconds: vars.MAGIC_LINK_TTL_SECONDS ?? 900,
    sessionTtlSeconds: vars.SESSION_TTL_SECONDS ?? 30 * 86400,
    operatorEmails: listOf(vars.OPERATOR_EMAILS).map(normalizeEmail),
    demoSeed: vars.DEMO_SEED ?? storage.mode === 'embedded',
  };
}
