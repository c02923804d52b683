import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { RequestValidationException, toValidationIssues, type LocRoot } from './validation-issue.js';

const PRIMITIVES = new Set<unknown>([String, Boolean, Number, Array, Object]);

const ROOT_BY_TYPE: Record<string, LocRoot> = { body: 'body', query: 'query', param: 'path' };

/**
 * Validates @Body() and @Query() DTOs (unknown fields rejected, values transformed)
 * and turns failures into the HTTPValidationError body with loc rooted at body/query/path.
 */
@Injectable()
export class AppValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype, type } = metadata;
    if (!metatype || PRIMITIVES.has(metatype) || type === 'custom') return value;
    const root = ROOT_BY_TYPE[type] ?? 'body';
    if (type === 'body') {
      // An empty body reaches us as undefined; the DTO decides whether fields are required.
      if (value === undefined || value === null) value = {};
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw RequestValidationException.single([root], 'Input should be a valid dictionary or object', 'model_attributes_type');
      }
    }
    const instance = plainToInstance(metatype as new () => object, value ?? {}, { exposeDefaultValues: true });
    // Unknown body fields are errors; unknown query parameters (cache busters, keys for other layers) are ignored.
    const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: type === 'body', forbidUnknownValues: false });
    if (errors.length > 0) throw new RequestValidationException(toValidationIssues(errors, [root]));
    return instance;
  }
}
