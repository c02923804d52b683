import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { RequestValidationException, toValidationIssues, type LocPart, type LocRoot } from './validation-issue.js';

const PRIMITIVES = new Set<unknown>([String, Boolean, Number, Array, Object]);

const ROOT_BY_TYPE: Record<string, LocRoot> = { body: 'body', query: 'query', param: 'path' };

// PostgreSQL text and jsonb cannot hold NUL, and jsonb refuses unpaired UTF-16 surrogates.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The location of the first string (value or key) PostgreSQL cannot store, or null. */
function findUnstorableString(value: unknown, loc: LocPart[], depth = 0): LocPart[] | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? loc : null;
  if (depth > 64 || typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = findUnstorableString(value[index], [...loc, index], depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const [key, child] of Object.entries(value)) {
    if (UNSTORABLE.test(key)) return [...loc, key];
    const found = findUnstorableString(child, [...loc, key], depth + 1);
    if (found) return found;
  }
  return null;
}

/** The location of the first array item that is null (class-transformer cannot read a discriminator from it). */
function findNullArrayItem(value: unknown, loc: LocPart[], depth = 0): LocPart[] | null {
  if (depth > 64 || typeof value !== 'object' || value === null) return null;
  const entries: Array<[LocPart, unknown]> = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
  for (const [key, child] of entries) {
    if (Array.isArray(value) && child === null) return [...loc, key];
    const found = findNullArrayItem(child, [...loc, key], depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Validates @Body() and @Query() DTOs (unknown fields rejected, values transformed)
 * and turns failures into the HTTPValidationError body with loc rooted at body/query/path.
 */
@Injectable()
export class AppValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype, type } = metadata;
    const root = ROOT_BY_TYPE[type];
    if (root) {
      const base: LocPart[] = type === 'param' && metadata.data ? [root, metadata.data] : [root];
      const unstorable = findUnstorableString(value, base);
      if (unstorable) {
        throw RequestValidationException.single(
          unstorable,
          'Text must not contain NUL characters or unpaired UTF-16 surrogates',
          'string_unicode',
        );
      }
    }
    if (!metatype || PRIMITIVES.has(metatype) || type === 'custom') return value;
    const at = root ?? 'body';
    if (type === 'body') {
      // An empty body reaches us as undefined; the DTO decides whether fields are required.
      if (value === undefined || value === null) value = {};
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw RequestValidationException.single([at], 'Input should be a valid dictionary or object', 'model_attributes_type');
      }
    }
    let instance: object;
    try {
      instance = plainToInstance(metatype as new () => object, value ?? {}, { exposeDefaultValues: true });
    } catch {
      // class-transformer throws on input shapes it cannot map (a null item where a typed object is expected).
      throw RequestValidationException.single(
        findNullArrayItem(value, [at]) ?? [at],
        'Input should be a valid dictionary or object',
        'model_type',
      );
    }
    // Unknown body fields are errors; unknown query parameters (cache busters, keys for other layers) are ignored.
    const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: type === 'body', forbidUnknownValues: false });
    if (errors.length > 0) throw new RequestValidationException(toValidationIssues(errors, [at]));
    return instance;
  }
}
