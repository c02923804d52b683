import { Transform } from 'class-transformer';

/** Query strings arrive as text: parse integers strictly and leave anything else for @IsInt to reject. */
export function ToInteger(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value));
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

export function ToBoolean(): PropertyDecorator {
  return Transform(({ value }) => {
    if (typeof value !== 'string') return value;
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    return value;
  });
}

/** `?x=a&x=b` and `?x=a,b` both give ['a', 'b']. */
export function ToStringArray(): PropertyDecorator {
  return Transform(({ value }) => {
    if (value === undefined || value === null) return value;
    const items = Array.isArray(value) ? value : [value];
    return items.flatMap((item) => (typeof item === 'string' ? item.split(',') : [item])).map((item) =>
      typeof item === 'string' ? item.trim() : item,
    ).filter((item) => item !== '');
  });
}
