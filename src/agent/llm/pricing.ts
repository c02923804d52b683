import type { LlmUsage } from './types.js';

/** USD per million tokens; cache prices default to the input price. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  contextWindow: number;
}

// A few well-known models, list prices at the time of writing. Unknown models cost 0.
const PRICE_TABLE: Record<string, ModelPrice> = {
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25, contextWindow: 128_000 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075, contextWindow: 128_000 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5, contextWindow: 1_047_576 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1, contextWindow: 1_047_576 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, contextWindow: 400_000 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, contextWindow: 400_000 },
  o3: { input: 2, output: 8, cacheRead: 0.5, contextWindow: 200_000 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275, contextWindow: 200_000 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, contextWindow: 200_000 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, contextWindow: 200_000 },
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, contextWindow: 200_000 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75, contextWindow: 200_000 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, contextWindow: 200_000 },
};

/**
 * Finds a model's price by its wire name, tolerating a vendor prefix (`anthropic/claude-sonnet-4-5`
 * on OpenRouter), a date suffix (`-20250929`, `-2024-08-06`) and OpenRouter's dotted Claude versions.
 */
export function findModelPrice(model: string): ModelPrice | null {
  const lastSegment = model.toLowerCase().split('/').pop() ?? '';
  const undated = lastSegment.replace(/-\d{4}-?\d{2}-?\d{2}$/, '').replace(/-latest$/, '');
  const candidates = [lastSegment, undated];
  if (undated.startsWith('claude-')) candidates.push(undated.replace(/(\d)\.(\d)/g, '$1-$2'));
  for (const candidate of candidates) {
    const price = PRICE_TABLE[candidate];
    if (price) return price;
  }
  return null;
}

export function contextWindowOf(model: string): number {
  return findModelPrice(model)?.contextWindow ?? 0;
}

/** USD for one completion; `prompt_tokens` includes the cached reads and writes. */
export function computeCost(model: string, usage: LlmUsage): number {
  const price = findModelPrice(model);
  if (!price) return 0;
  const uncachedInput = Math.max(0, usage.prompt_tokens - usage.cache_read_tokens - usage.cache_write_tokens);
  const dollars =
    uncachedInput * price.input +
    usage.cache_read_tokens * (price.cacheRead ?? price.input) +
    usage.cache_write_tokens * (price.cacheWrite ?? price.input) +
    usage.completion_tokens * price.output;
  return dollars / 1_000_000;
}
