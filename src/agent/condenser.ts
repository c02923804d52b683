import type { LlmClient, LlmResponse } from './llm/index.js';
import { observationText } from './llm-view.js';

type StoredEvent = Record<string, any>;

/** A view longer than this is condensed. */
export const CONDENSE_AFTER_EVENTS = Number(process.env.CONDENSE_AFTER_EVENTS) || 120;
/** Events kept at the start (system prompt, first user message). */
const KEEP_HEAD = 2;
const RESULT_KINDS = new Set(['ObservationEvent', 'AgentErrorEvent', 'UserRejectObservation']);

export interface CondensationPlan {
  forgotten: StoredEvent[];
  previousSummary: string | null;
}

/**
 * Forget the older half of the view, keeping the head. The cut never separates a tool call
 * from its result: it moves forward past results whose call is forgotten.
 */
export function planCondensation(view: StoredEvent[]): CondensationPlan | null {
  if (view.length <= KEEP_HEAD + 2) return null;
  let cut = KEEP_HEAD + Math.floor((view.length - KEEP_HEAD) / 2);
  while (cut < view.length && RESULT_KINDS.has(view[cut].kind)) cut++;
  // Parallel calls of one response stay together too.
  while (cut < view.length && view[cut].kind === 'ActionEvent' && view[cut - 1]?.kind === 'ActionEvent'
    && view[cut].llm_response_id === view[cut - 1].llm_response_id) cut++;
  const middle = view.slice(KEEP_HEAD, cut);
  const previous = middle.find((event) => event.kind === 'CondensationSummaryEvent');
  const forgotten = middle.filter((event) => event.kind !== 'CondensationSummaryEvent');
  return forgotten.length ? { forgotten, previousSummary: previous?.summary ?? null } : null;
}

function describe(event: StoredEvent): string {
  switch (event.kind) {
    case 'MessageEvent':
      return `${event.source}: ${(event.llm_message?.content ?? []).map((item: { text?: string }) => item.text ?? '').join(' ')}`;
    case 'ActionEvent':
      return `agent called ${event.tool_name} ${event.tool_call?.arguments ?? ''}`;
    case 'ObservationEvent':
      return `result of ${event.tool_name}: ${observationText(event.observation)}`;
    case 'AgentErrorEvent':
      return `error from ${event.tool_name}: ${event.error}`;
    case 'UserRejectObservation':
      return `user rejected ${event.tool_name}: ${event.rejection_reason}`;
    default:
      return '';
  }
}

/** Asks the LLM for a summary of what is being forgotten. */
export async function summarize(llm: LlmClient, plan: CondensationPlan): Promise<LlmResponse> {
  const history = plan.forgotten.map(describe).filter(Boolean).map((line) => line.slice(0, 2000)).join('\n');
  const text = [
    'Summarize the following part of an agent\'s work so it can continue without it.',
    'Keep the user\'s goals, decisions made, files changed, commands run with their outcomes, and open problems.',
    plan.previousSummary ? `Earlier summary:\n${plan.previousSummary}` : '',
    `Events:\n${history}`,
  ].filter(Boolean).join('\n\n');
  return llm.complete({ messages: [{ role: 'user', content: [{ type: 'text', text, cache_prompt: false }] } as never], tools: [] });
}
