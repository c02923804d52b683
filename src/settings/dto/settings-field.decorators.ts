import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsNumber, IsOptional, IsString, ValidateBy, ValidateIf, type ValidationOptions } from 'class-validator';

/** Plain settings text (names, urls, images) stays well under this. */
export const MAX_TEXT_LENGTH = 2048;
export const MAX_SECRET_LENGTH = 16384;

/*
 * Bounds that pass values of another type, so that a wrong type is reported once (by the type
 * check) rather than also as a bound it cannot meet. The names are class-validator's, so the
 * error types stay those of the shared validation mapping.
 */
export function MaxTextLength(max: number): PropertyDecorator {
  return ValidateBy({
    name: 'maxLength',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || value.length <= max,
      defaultMessage: (args) => `${args?.property} must be at most ${max} characters long`,
    },
  });
}

export function MinTextLength(min: number): PropertyDecorator {
  return ValidateBy({
    name: 'minLength',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || value.length >= min,
      defaultMessage: (args) => `${args?.property} must be at least ${min} characters long`,
    },
  });
}

export function AtLeast(min: number): PropertyDecorator {
  return ValidateBy({
    name: 'min',
    validator: {
      validate: (value: unknown) => typeof value !== 'number' || value >= min,
      defaultMessage: (args) => `${args?.property} must be greater than or equal to ${min}`,
    },
  });
}

export function AtMost(max: number): PropertyDecorator {
  return ValidateBy({
    name: 'max',
    validator: {
      validate: (value: unknown) => typeof value !== 'number' || value <= max,
      defaultMessage: (args) => `${args?.property} must be less than or equal to ${max}`,
    },
  });
}

export function MaxItems(max: number): PropertyDecorator {
  return ValidateBy({
    name: 'arrayMaxSize',
    validator: {
      validate: (value: unknown) => !Array.isArray(value) || value.length <= max,
      defaultMessage: (args) => `${args?.property} must contain at most ${max} items`,
    },
  });
}

interface FieldDoc {
  description?: string;
  example?: unknown;
}

/** Absent or null is accepted; anything else must be a string. */
export function NullableString(doc: FieldDoc & { maxLength?: number } = {}): PropertyDecorator {
  const maxLength = doc.maxLength ?? MAX_TEXT_LENGTH;
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, maxLength, description: doc.description, example: doc.example }),
    IsOptional(),
    IsString(),
    MaxTextLength(maxLength),
  );
}

/** A write-only secret: stored encrypted, never served back (always null in responses). */
export function SecretString(doc: FieldDoc = {}): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: String,
      format: 'password',
      writeOnly: true,
      nullable: true,
      maxLength: MAX_SECRET_LENGTH,
      description: doc.description,
      example: doc.example,
    }),
    IsOptional(),
    IsString(),
    MaxTextLength(MAX_SECRET_LENGTH),
  );
}

export function NullableInteger(doc: FieldDoc & { minimum?: number; maximum?: number } = {}): PropertyDecorator {
  const bounds = [
    ...(doc.minimum === undefined ? [] : [AtLeast(doc.minimum)]),
    ...(doc.maximum === undefined ? [] : [AtMost(doc.maximum)]),
  ];
  return applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      nullable: true,
      minimum: doc.minimum,
      maximum: doc.maximum,
      description: doc.description,
      example: doc.example,
    }),
    IsOptional(),
    IsInt(),
    ...bounds,
  );
}

export function NullableNumber(doc: FieldDoc & { minimum?: number } = {}): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: Number, nullable: true, minimum: doc.minimum, description: doc.description, example: doc.example }),
    IsOptional(),
    IsNumber({ allowNaN: false, allowInfinity: false }),
    ...(doc.minimum === undefined ? [] : [AtLeast(doc.minimum)]),
  );
}

export function NullableBoolean(doc: FieldDoc = {}): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: Boolean, nullable: true, description: doc.description, example: doc.example }),
    IsOptional(),
    IsBoolean(),
  );
}

/** Absent takes the default; null is not a boolean, so it is refused. */
export function DefaultedBoolean(defaultValue: boolean, doc: FieldDoc = {}): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: Boolean, default: defaultValue, description: doc.description }),
    ValidateIf((_object, value) => value !== undefined),
    IsBoolean(),
  );
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object whose every value is a string (environment variables). */
export function IsStringRecord(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStringRecord',
      validator: {
        validate: (value: unknown) => isPlainObject(value) && Object.values(value).every((item) => typeof item === 'string'),
        defaultMessage: (args) => `${args?.property} must be an object whose values are strings`,
      },
    },
    options,
  );
}

/**
 * An object whose keys satisfy `isKey` and whose values satisfy `isValue`;
 * `describe` names the accepted shape in the error message.
 */
export function IsRecordOf(
  isKey: (key: string) => boolean,
  isValue: (value: unknown) => boolean,
  describe: string,
): PropertyDecorator {
  return ValidateBy({
    name: 'isRecordOf',
    validator: {
      validate: (value: unknown) =>
        isPlainObject(value) && Object.entries(value).every(([key, item]) => isKey(key) && isValue(item)),
      defaultMessage: (args) => `${args?.property} must be ${describe}`,
    },
  });
}
