import 'reflect-metadata';
import { ApiProperty, getSchemaPath, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  Equals,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { registerField, type DtoClass, type DtoUnion, type FieldSpec } from './dto-field.registry.js';

/**
 * One decorator per field: it documents the field for Swagger, validates it with class-validator,
 * types nested values for class-transformer and records the default used by completeDto().
 *
 * Presence rules, as in the interface: `required` fields must be present; a field that is not
 * required must have a default or be nullable, so a completed object always carries every field.
 */
export interface FieldOptions<T> {
  description?: string;
  required?: boolean;
  nullable?: boolean;
  default?: T;
  defaultFactory?: () => T;
}

type SchemaObject = Record<string, unknown>;

function defineField<T>(
  options: FieldOptions<T>,
  schema: ApiPropertyOptions,
  validators: PropertyDecorator[],
  nesting: Pick<FieldSpec, 'nested' | 'isArray'> = {},
): PropertyDecorator {
  return (target, propertyKey) => {
    const name = String(propertyKey);
    const required = options.required ?? false;
    const nullable = options.nullable ?? false;
    const owner = target.constructor;
    if (!required && !nullable && options.default === undefined && !options.defaultFactory) {
      throw new Error(`${owner.name}.${name}: an optional field needs a default or must be nullable`);
    }
    registerField(owner, {
      name,
      required,
      nullable,
      default: options.default,
      defaultFactory: options.defaultFactory,
      ...nesting,
    });
    const documented = {
      ...withoutUndefined(schema),
      required,
      ...(nullable ? { nullable: true } : {}),
      ...(options.default !== undefined ? { default: options.default } : {}),
      ...(options.description ? { description: options.description } : {}),
    } as ApiPropertyOptions;
    for (const decorate of [ApiProperty(documented), ...presence(name, required, nullable), ...validators]) {
      decorate(target, propertyKey);
    }
  };
}

function withoutUndefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

function presence(name: string, required: boolean, nullable: boolean): PropertyDecorator[] {
  if (required && !nullable) return [IsDefined()];
  // Required but nullable: null is a value, only absence is an error.
  if (required) return [ValidateIf((object: Record<string, unknown>) => object[name] !== null), IsDefined()];
  if (nullable) return [IsOptional()];
  // Optional with a default: absent is fine, null is not.
  return [ValidateIf((object: Record<string, unknown>) => object[name] !== undefined)];
}

export function StringField(
  options: FieldOptions<string> & { minLength?: number; maxLength?: number; format?: 'date-time' } = {},
): PropertyDecorator {
  const { minLength, maxLength, format } = options;
  const validators: PropertyDecorator[] = [IsString()];
  if (minLength !== undefined) validators.push(MinLength(minLength));
  if (maxLength !== undefined) validators.push(MaxLength(maxLength));
  if (format === 'date-time') validators.push(IsISO8601());
  return defineField(options, { type: String, minLength, maxLength, format }, validators);
}

function numberBounds(minimum?: number, maximum?: number): PropertyDecorator[] {
  const bounds: PropertyDecorator[] = [];
  if (minimum !== undefined) bounds.push(Min(minimum));
  if (maximum !== undefined) bounds.push(Max(maximum));
  return bounds;
}

export function IntegerField(
  options: FieldOptions<number> & { minimum?: number; maximum?: number } = {},
): PropertyDecorator {
  const { minimum, maximum } = options;
  return defineField(options, { type: 'integer', minimum, maximum }, [IsInt(), ...numberBounds(minimum, maximum)]);
}

export function NumberField(
  options: FieldOptions<number> & { minimum?: number; maximum?: number } = {},
): PropertyDecorator {
  const { minimum, maximum } = options;
  return defineField(options, { type: Number, minimum, maximum }, [
    IsNumber({ allowNaN: false, allowInfinity: false }),
    ...numberBounds(minimum, maximum),
  ]);
}

export function BooleanField(options: FieldOptions<boolean> = {}): PropertyDecorator {
  return defineField(options, { type: Boolean }, [IsBoolean()]);
}

export function EnumField<T extends string>(
  values: readonly T[] | Readonly<Record<string, T>>,
  options: FieldOptions<T> & { enumName?: string } = {},
): PropertyDecorator {
  const allowed = Array.isArray(values) ? [...values] : Object.values(values);
  // No explicit type: Swagger then derives 'string' and can emit a named enum schema.
  return defineField(options, { enum: allowed, enumName: options.enumName }, [IsIn(allowed)]);
}

/** The constant discriminator of a variant (`kind`, or `type` for content items). */
export function ConstantField(value: string, options: { required?: boolean } = {}): PropertyDecorator {
  return defineField({ required: options.required ?? true, default: value }, { type: String, enum: [value] }, [
    Equals(value),
  ]);
}

export function StringArrayField(options: FieldOptions<string[]> = {}): PropertyDecorator {
  return defineField(options, { type: String, isArray: true }, [IsArray(), IsString({ each: true })]);
}

export function IntegerArrayField(
  options: FieldOptions<number[]> & { minItems?: number; maxItems?: number } = {},
): PropertyDecorator {
  const { minItems, maxItems } = options;
  const validators: PropertyDecorator[] = [IsArray(), IsInt({ each: true })];
  if (minItems !== undefined) validators.push(ArrayMinSize(minItems));
  if (maxItems !== undefined) validators.push(ArrayMaxSize(maxItems));
  return defineField(options, { type: 'integer', isArray: true, minItems, maxItems }, validators);
}

/** A JSON object whose inner structure is not ours to check (tool arguments, metadata). */
export function FreeFormObjectField(options: FieldOptions<Record<string, unknown>> = {}): PropertyDecorator {
  return defineField(options, { type: 'object', additionalProperties: true }, [IsObject()]);
}

const ANY_JSON_VALUE_SCHEMA = {
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'object', additionalProperties: true },
    { type: 'array', items: {} },
  ],
  nullable: true,
};

/** Any JSON value, null included. */
export function AnyValueField(options: FieldOptions<unknown> = {}): PropertyDecorator {
  return defineField(options, ANY_JSON_VALUE_SCHEMA as ApiPropertyOptions, [Allow()]);
}

export function NestedField(
  target: () => DtoClass,
  options: FieldOptions<object> & { isArray?: boolean } = {},
): PropertyDecorator {
  const isArray = options.isArray ?? false;
  const validators = isArray
    ? [IsArray(), IsObject({ each: true }), ValidateNested({ each: true })]
    : [IsObject(), ValidateNested()];
  // Swagger recognises a lazy type only by the function name `type`, which this arrow gets.
  return defineField(options, { type: () => target(), isArray }, [Type(target), ...validators], {
    nested: { kind: 'class', target },
    isArray,
  });
}

/** Swagger schema of a union: `oneOf` the member schemas, with a discriminator mapping. */
export function unionSchema(union: Pick<DtoUnion, 'discriminator' | 'members'>): SchemaObject {
  const entries = Object.entries(union.members);
  return {
    oneOf: entries.map(([, member]) => ({ $ref: getSchemaPath(member) })),
    discriminator: {
      propertyName: union.discriminator,
      mapping: Object.fromEntries(entries.map(([value, member]) => [value, getSchemaPath(member)])),
    },
  };
}

export function UnionField(
  union: DtoUnion,
  options: FieldOptions<object> & { isArray?: boolean } = {},
): PropertyDecorator {
  const isArray = options.isArray ?? false;
  const typeByDiscriminator = Type(() => union.fallback, {
    discriminator: {
      property: union.discriminator,
      subTypes: Object.entries(union.members).map(([name, value]) => ({ name, value })),
    },
    keepDiscriminatorProperty: true,
  });
  const validators = isArray
    ? [IsArray(), IsObject({ each: true }), ValidateNested({ each: true })]
    : [IsObject(), ValidateNested()];
  const schema = isArray ? { type: 'array', items: unionSchema(union) } : unionSchema(union);
  return defineField(options, schema as ApiPropertyOptions, [typeByDiscriminator, ...validators], {
    nested: { kind: 'union', union },
    isArray,
  });
}

/**
 * Fallback member of a union keyed by `kind`: an object whose kind names no member
 * fails validation with the list of known kinds.
 */
export function unrecognizedKindClass(unionName: string, kinds: readonly string[]): DtoClass {
  class UnrecognizedKind {}
  IsIn([...kinds], { message: `kind must be one of the ${unionName} kinds: ${kinds.join(', ')}` })(
    UnrecognizedKind.prototype,
    'kind',
  );
  return UnrecognizedKind;
}
