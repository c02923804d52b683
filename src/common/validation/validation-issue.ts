import { HttpException, HttpStatus } from '@nestjs/common';
import type { ValidationError } from 'class-validator';

export type LocPart = string | number;
export type LocRoot = 'body' | 'query' | 'path' | 'header';

/** One entry of the HTTPValidationError `detail` array. */
export interface ValidationIssue {
  loc: LocPart[];
  msg: string;
  type: string;
}

/** 422 with `{"detail": [{loc, msg, type}, ...]}`. */
export class RequestValidationException extends HttpException {
  constructor(readonly issues: ValidationIssue[]) {
    super({ detail: issues }, HttpStatus.UNPROCESSABLE_ENTITY);
  }

  static single(loc: LocPart[], msg: string, type = 'value_error'): RequestValidationException {
    return new RequestValidationException([{ loc, msg, type }]);
  }
}

// class-validator constraint names mapped to the error types clients of the reference know.
const TYPE_BY_CONSTRAINT: Record<string, string> = {
  whitelistValidation: 'extra_forbidden',
  isDefined: 'missing',
  isInt: 'int_parsing',
  isNumber: 'float_parsing',
  isBoolean: 'bool_parsing',
  isString: 'string_type',
  isUuid: 'uuid_parsing',
  isEnum: 'enum',
  isIn: 'literal_error',
  equals: 'literal_error',
  min: 'greater_than_equal',
  max: 'less_than_equal',
  minLength: 'string_too_short',
  maxLength: 'string_too_long',
  isLength: 'string_length',
  isNotEmpty: 'string_too_short',
  arrayMinSize: 'too_short',
  arrayMaxSize: 'too_long',
  isArray: 'list_type',
  isObject: 'dict_type',
  nestedValidation: 'model_type',
  isISO8601: 'datetime_parsing',
  isIso8601: 'datetime_parsing',
  isDateString: 'datetime_parsing',
};

const TYPE_CONSTRAINTS = new Set(['isInt', 'isNumber', 'isBoolean', 'isString', 'isArray', 'isObject']);

function locPart(property: string): LocPart {
  return /^\d+$/.test(property) ? Number(property) : property;
}

/** Flattens class-validator's tree into issues whose loc starts with `root`. */
export function toValidationIssues(errors: ValidationError[], root: LocPart[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const walk = (error: ValidationError, parent: LocPart[]) => {
    const loc = error.property === undefined || error.property === '' ? parent : [...parent, locPart(error.property)];
    const constraints = error.constraints ?? {};
    // A missing required value fails several constraints; report it once, as "missing".
    if ('isDefined' in constraints && error.value === undefined) {
      issues.push({ loc, msg: 'Field required', type: 'missing' });
    } else {
      // A value of the wrong type also fails the range and length checks; those would only mislead
      // ("limit must not be greater than 100" for "abc"), so a type failure is reported alone.
      const names = Object.keys(constraints);
      const typeFailures = names.filter((name) => name === 'isDefined' || TYPE_CONSTRAINTS.has(name));
      for (const name of typeFailures.length ? typeFailures : names) {
        issues.push({ loc, msg: constraints[name], type: TYPE_BY_CONSTRAINT[name] ?? 'value_error' });
      }
    }
    for (const child of error.children ?? []) walk(child, loc);
  };
  for (const error of errors) walk(error, root);
  return issues;
}
