/**
 * Per-class list of declared fields with their defaults. The field decorators fill it;
 * completeDto() reads it to turn a partial plain object into the complete one the service serves.
 */

export type DtoClass<T extends object = object> = new () => T;

/** A property whose value is one of several classes, told apart by a discriminator property. */
export interface DtoUnion {
  /** Schema name used in error messages. */
  name: string;
  discriminator: 'kind' | 'type';
  members: Readonly<Record<string, DtoClass>>;
  /** Class class-transformer falls back to when the discriminator is missing or unknown. */
  fallback: DtoClass;
  /** Member assumed when the discriminator is absent (the reference gives content `type` a default). */
  memberWhenAbsent?: string;
}

export type NestedShape = { kind: 'class'; target: () => DtoClass } | { kind: 'union'; union: DtoUnion };

export interface FieldSpec {
  name: string;
  required: boolean;
  nullable: boolean;
  /** Plain default value, cloned for each object it completes. */
  default?: unknown;
  /** Default computed per object (ids, timestamps, nested objects); not shown in the schema. */
  defaultFactory?: () => unknown;
  nested?: NestedShape;
  isArray?: boolean;
}

const OWN_FIELDS = new WeakMap<Function, Map<string, FieldSpec>>();

export function registerField(target: Function, spec: FieldSpec): void {
  let fields = OWN_FIELDS.get(target);
  if (!fields) {
    fields = new Map();
    OWN_FIELDS.set(target, fields);
  }
  fields.set(spec.name, spec);
}

/** Fields of a class, base class fields first; a redeclared field keeps its base position. */
export function fieldsOf(target: Function): FieldSpec[] {
  const chain: Function[] = [];
  for (let current = target; current && current !== Function.prototype; current = Object.getPrototypeOf(current)) {
    chain.unshift(current);
  }
  const merged = new Map<string, FieldSpec>();
  for (const cls of chain) {
    for (const [name, spec] of OWN_FIELDS.get(cls) ?? []) merged.set(name, spec);
  }
  return [...merged.values()];
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function unionMemberFor(union: DtoUnion, item: Record<string, unknown>): DtoClass | undefined {
  const discriminatorValue = item[union.discriminator];
  if (discriminatorValue === undefined && union.memberWhenAbsent) return union.members[union.memberWhenAbsent];
  return typeof discriminatorValue === 'string' && Object.hasOwn(union.members, discriminatorValue)
    ? union.members[discriminatorValue]
    : undefined;
}

/**
 * Returns the complete plain object of `target` for `plain`: every declared field present,
 * defaults applied, unset nullable fields null, nested objects completed the same way.
 * Unknown properties are kept so that validation reports them; values are not type-checked here.
 */
export function completeDto(target: DtoClass, plain: Record<string, unknown>): Record<string, unknown> {
  const complete: Record<string, unknown> = {};
  const declared = fieldsOf(target);
  for (const spec of declared) {
    let value = plain[spec.name];
    if (value === undefined) value = defaultValue(spec);
    if (value !== undefined) complete[spec.name] = completeFieldValue(spec, value);
  }
  const declaredNames = new Set(declared.map((spec) => spec.name));
  for (const [name, value] of Object.entries(plain)) {
    if (!declaredNames.has(name)) complete[name] = value;
  }
  return complete;
}

function defaultValue(spec: FieldSpec): unknown {
  if (spec.defaultFactory) return spec.defaultFactory();
  if (spec.default !== undefined) return structuredClone(spec.default);
  return spec.nullable ? null : undefined;
}

function completeFieldValue(spec: FieldSpec, value: unknown): unknown {
  if (!spec.nested || value === null) return value;
  if (spec.isArray) return Array.isArray(value) ? value.map((item) => completeNested(spec.nested!, item)) : value;
  return completeNested(spec.nested, value);
}

function completeNested(shape: NestedShape, item: unknown): unknown {
  if (!isPlainObject(item)) return item;
  const target = shape.kind === 'class' ? shape.target() : unionMemberFor(shape.union, item);
  return target ? completeDto(target, item) : item;
}
