import { registerDecorator, type ValidationOptions } from 'class-validator';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

export interface ParsedDateBound {
  date: Date;
  /** A bare date names a whole day. */
  dateOnly: boolean;
}

/** ISO 8601 date or date-time; no offset means UTC. Null when unparseable. */
export function parseDateBound(value: string): ParsedDateBound | null {
  const text = value.trim();
  if (DATE_ONLY.test(text)) {
    const date = new Date(`${text}T00:00:00.000Z`);
    return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text ? null : { date, dateOnly: true };
  }
  if (!DATE_TIME.test(text)) return null;
  const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/i.test(text);
  const date = new Date(hasOffset ? text.replace(' ', 'T') : `${text.replace(' ', 'T')}Z`);
  return Number.isNaN(date.getTime()) ? null : { date, dateOnly: false };
}

export function IsDateOrDateTime(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isISO8601',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} must be an ISO 8601 date or date-time`, ...options },
      validator: {
        validate: (value: unknown) => value === null || (typeof value === 'string' && parseDateBound(value) !== null),
      },
    });
}
