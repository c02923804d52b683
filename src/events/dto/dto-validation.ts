import { plainToInstance } from 'class-transformer';
import { ValidationError, validateSync } from 'class-validator';
import {
  completeDto,
  fieldsOf,
  isPlainObject,
  unionMemberFor,
  type DtoClass,
  type DtoUnion,
} from './dto-field.registry.js';

/** Validation and completion of plain objects against the DTO classes and their unions. */

const VALIDATOR_OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: true },
};

function validationError(property: string, value: unknown, constraints: Record<string, string>): ValidationError {
  const error = new ValidationError();
  error.property = property;
  error.value = value;
  error.constraints = constraints;
  error.children = [];
  return error;
}

/** Validates a plain object against one DTO class: unknown properties are errors at every depth. */
export function validateDto(target: DtoClass, plain: unknown): ValidationError[] {
  if (!isPlainObject(plain)) {
    return [validationError('', plain, { isObject: `${target.name} must be a JSON object` })];
  }
  // class-transformer throws on a null item of a union array, so those are reported first.
  const nullItems = nullUnionItems(target, plain, []);
  if (nullItems.length > 0) return nullItems.map((path) => nestedError(path, null, { isObject: 'must be an object' }));
  return validateSync(plainToInstance(target, plain), VALIDATOR_OPTIONS);
}

/** Paths of the null or undefined items in the union arrays of `plain`, at any depth. */
function nullUnionItems(target: DtoClass, plain: Record<string, unknown>, path: string[]): string[][] {
  const found: string[][] = [];
  for (const spec of fieldsOf(target)) {
    const value = plain[spec.name];
    if (!spec.nested || value === null || value === undefined) continue;
    const items: Array<[unknown, string[]]> =
      spec.isArray && Array.isArray(value)
        ? value.map((item, index) => [item, [spec.name, String(index)]])
        : [[value, [spec.name]]];
    for (const [item, itemPath] of items) {
      if (item === null || item === undefined) {
        if (spec.nested.kind === 'union' && spec.isArray) found.push([...path, ...itemPath]);
        continue;
      }
      if (!isPlainObject(item)) continue;
      const member = spec.nested.kind === 'class' ? spec.nested.target() : unionMemberFor(spec.nested.union, item);
      if (member) found.push(...nullUnionItems(member, item, [...path, ...itemPath]));
    }
  }
  return found;
}

/** A ValidationError tree whose leaf, at `path`, carries the constraints. */
function nestedError(path: string[], value: unknown, constraints: Record<string, string>): ValidationError {
  const leaf = validationError(path[path.length - 1] ?? '', value, constraints);
  return path.slice(0, -1).reduceRight((child, property) => {
    const parent = validationError(property, undefined, {});
    parent.constraints = undefined;
    parent.children = [child];
    return parent;
  }, leaf);
}

/** Validates a plain object against the union member its discriminator names. */
export function validateUnionMember(union: DtoUnion, plain: unknown): ValidationError[] {
  if (!isPlainObject(plain)) {
    return [validationError('', plain, { isObject: `${union.name} must be a JSON object` })];
  }
  const discriminatorValue = plain[union.discriminator];
  const member =
    typeof discriminatorValue === 'string' && Object.hasOwn(union.members, discriminatorValue)
      ? union.members[discriminatorValue]
      : undefined;
  if (!member) {
    const known = Object.keys(union.members).join(', ');
    return [
      validationError(union.discriminator, discriminatorValue, {
        isIn: `${union.discriminator} must be one of the ${union.name} kinds: ${known}`,
      }),
    ];
  }
  return validateDto(member, plain);
}

/** The complete plain object of the member named by `kind`; an unknown kind is left as given. */
export function completeUnionMember(union: DtoUnion, plain: Record<string, unknown>): Record<string, unknown> {
  const kind = plain[union.discriminator];
  const member = typeof kind === 'string' && Object.hasOwn(union.members, kind) ? union.members[kind] : undefined;
  return member ? completeDto(member, plain) : { ...plain };
}

/** One line per failed constraint, prefixed with the dotted path of the property. */
export function describeValidationErrors(errors: ValidationError[]): string[] {
  const lines: string[] = [];
  const walk = (error: ValidationError, parentPath: string) => {
    const path = error.property === '' ? parentPath : parentPath ? `${parentPath}.${error.property}` : error.property;
    const constraints = error.constraints ?? {};
    // A missing value fails its type checks too; saying it is missing is enough.
    const messages =
      'isDefined' in constraints && error.value === undefined ? ['is required'] : Object.values(constraints);
    for (const message of messages) lines.push(path ? `${path}: ${message}` : message);
    for (const child of error.children ?? []) walk(child, path);
  };
  for (const error of errors) walk(error, '');
  return lines;
}

/** Copies input through JSON: drops undefined values and anything that is not plain data. */
export function toPlainJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export type DeepPartial<T> = T extends readonly (infer Item)[]
  ? DeepPartial<Item>[]
  : T extends object
    ? { [Key in keyof T]?: DeepPartial<T[Key]> }
    : T;
