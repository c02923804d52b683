// Running token and cost totals, shaped as the reference's Metrics / TokenUsage / Cost / ResponseLatency
// so a `stats` state update can carry them as they are. All helpers return new objects.
import type { LlmResponse, LlmUsage } from './types.js';

export interface TokenUsageRecord extends LlmUsage {
  model: string;
  /** prompt + completion tokens of the latest turn. */
  per_turn_token: number;
  response_id: string;
}

export interface CostRecord {
  model: string;
  cost: number;
  /** Unix time in seconds. */
  timestamp: number;
}

export interface ResponseLatencyRecord {
  model: string;
  /** Seconds. */
  latency: number;
  response_id: string;
}

export interface LlmMetrics {
  model_name: string;
  accumulated_cost: number;
  max_budget_per_task: number | null;
  accumulated_token_usage: TokenUsageRecord | null;
  costs: CostRecord[];
  response_latencies: ResponseLatencyRecord[];
  token_usages: TokenUsageRecord[];
}

export function emptyUsage(): LlmUsage {
  return {
    prompt_tokens: 0,
    completion_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    context_window: 0,
  };
}

/** Sums token counts; the context window is a property of the model, so the larger one is kept. */
export function addUsage(total: LlmUsage, turn: LlmUsage): LlmUsage {
  return {
    prompt_tokens: total.prompt_tokens + turn.prompt_tokens,
    completion_tokens: total.completion_tokens + turn.completion_tokens,
    cache_read_tokens: total.cache_read_tokens + turn.cache_read_tokens,
    cache_write_tokens: total.cache_write_tokens + turn.cache_write_tokens,
    reasoning_tokens: total.reasoning_tokens + turn.reasoning_tokens,
    context_window: Math.max(total.context_window, turn.context_window),
  };
}

export function createMetrics(modelName: string, maxBudgetPerTask: number | null = null): LlmMetrics {
  return {
    model_name: modelName,
    accumulated_cost: 0,
    max_budget_per_task: maxBudgetPerTask,
    accumulated_token_usage: null,
    costs: [],
    response_latencies: [],
    token_usages: [],
  };
}

/** Adds one completion to the totals. `keepHistory: false` keeps only the accumulated figures. */
export function recordResponse(
  metrics: LlmMetrics,
  response: Pick<LlmResponse, 'id' | 'usage' | 'cost' | 'latencyMs'>,
  options: { keepHistory?: boolean; now?: Date } = {},
): LlmMetrics {
  const keepHistory = options.keepHistory ?? true;
  const model = metrics.model_name;
  const turnUsage: TokenUsageRecord = {
    model,
    ...response.usage,
    per_turn_token: response.usage.prompt_tokens + response.usage.completion_tokens,
    response_id: response.id,
  };
  const previous = metrics.accumulated_token_usage;
  const accumulated: TokenUsageRecord = {
    ...turnUsage,
    ...addUsage(previous ?? emptyUsage(), response.usage),
  };
  return {
    ...metrics,
    accumulated_cost: metrics.accumulated_cost + response.cost,
    accumulated_token_usage: accumulated,
    costs: keepHistory
      ? [...metrics.costs, { model, cost: response.cost, timestamp: (options.now ?? new Date()).getTime() / 1000 }]
      : metrics.costs,
    response_latencies: keepHistory
      ? [...metrics.response_latencies, { model, latency: response.latencyMs / 1000, response_id: response.id }]
      : metrics.response_latencies,
    token_usages: keepHistory ? [...metrics.token_usages, turnUsage] : metrics.token_usages,
  };
}

/** True when a budget is set and the accumulated cost has passed it. */
export function isOverBudget(metrics: Pick<LlmMetrics, 'accumulated_cost' | 'max_budget_per_task'>): boolean {
  return metrics.max_budget_per_task != null && metrics.max_budget_per_task > 0
    ? metrics.accumulated_cost > metrics.max_budget_per_task
    : false;
}
