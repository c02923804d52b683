import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { IsRecordOf, isPlainObject, MAX_SECRET_LENGTH, MAX_TEXT_LENGTH } from './settings-field.decorators.js';

/** The git providers a token can be stored for, as the reference names them. */
export const PROVIDER_TYPES = ['github', 'gitlab', 'bitbucket', 'enterprise_sso'] as const;

/** A token as a bare string, or with the account and host it belongs to. */
export type ProviderTokenInput = string | { token?: string | null; user_id?: string | null; host?: string | null };
/** A secret as a bare string, or with a description. */
export type CustomSecretInput = string | { secret: string; description?: string | null };

const MAX_SECRET_NAME_LENGTH = 128;

function isOptionalText(value: unknown, maxLength: number): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.length <= maxLength);
}

function hasOnlyKeys(value: Record<string, unknown>, allowed: string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

function isProviderTokenInput(value: unknown): boolean {
  if (typeof value === 'string') return value.length <= MAX_SECRET_LENGTH;
  return (
    isPlainObject(value) &&
    hasOnlyKeys(value, ['token', 'user_id', 'host']) &&
    isOptionalText(value.token, MAX_SECRET_LENGTH) &&
    isOptionalText(value.user_id, MAX_TEXT_LENGTH) &&
    isOptionalText(value.host, MAX_TEXT_LENGTH)
  );
}

function isCustomSecretInput(value: unknown): boolean {
  if (typeof value === 'string') return value.length <= MAX_SECRET_LENGTH;
  return (
    isPlainObject(value) &&
    hasOnlyKeys(value, ['secret', 'description']) &&
    typeof value.secret === 'string' &&
    value.secret.length <= MAX_SECRET_LENGTH &&
    isOptionalText(value.description, MAX_TEXT_LENGTH)
  );
}

const isProviderType = (key: string): boolean => (PROVIDER_TYPES as readonly string[]).includes(key);
const isSecretName = (key: string): boolean => key.length > 0 && key.length <= MAX_SECRET_NAME_LENGTH;

/**
 * Git provider tokens and custom secrets. Write-only: responses always show both maps empty and
 * name the providers with a token in provider_tokens_set. A posted entry is merged into the stored
 * ones: a value sets it, an empty string ("" or {"token": ""}) removes it, other entries are kept.
 */
export class SecretsStoreDto {
  @ApiPropertyOptional({
    type: 'object',
    description: `Keys: ${PROVIDER_TYPES.join(', ')}. Value: the token as a string, or {token, user_id, host}.`,
    additionalProperties: {
      oneOf: [
        { type: 'string', format: 'password' },
        {
          type: 'object',
          properties: {
            token: { type: 'string', format: 'password', nullable: true },
            user_id: { type: 'string', nullable: true },
            host: { type: 'string', nullable: true },
          },
        },
      ],
    },
    default: {},
    example: { github: { token: 'ghp_example', host: null } },
  })
  @ValidateIf((_object, value) => value !== undefined)
  @IsRecordOf(
    isProviderType,
    isProviderTokenInput,
    `an object keyed by provider (${PROVIDER_TYPES.join(', ')}) whose values are a token string or {token, user_id, host}`,
  )
  provider_tokens?: Record<string, ProviderTokenInput>;

  @ApiPropertyOptional({
    type: 'object',
    description: 'Keys: secret names. Value: the secret as a string, or {secret, description}.',
    additionalProperties: {
      oneOf: [
        { type: 'string', format: 'password' },
        {
          type: 'object',
          required: ['secret'],
          properties: { secret: { type: 'string', format: 'password' }, description: { type: 'string', nullable: true } },
        },
      ],
    },
    default: {},
  })
  @ValidateIf((_object, value) => value !== undefined)
  @IsRecordOf(
    isSecretName,
    isCustomSecretInput,
    `an object keyed by secret name (1 to ${MAX_SECRET_NAME_LENGTH} characters) whose values are a string or {secret, description}`,
  )
  custom_secrets?: Record<string, CustomSecretInput>;
}
