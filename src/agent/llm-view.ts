import type { Message } from './llm/index.js';
import { observationToLlmText } from './tools/index.js';

type StoredEvent = Record<string, any>;

/** Kinds the LLM sees; everything else in the log is bookkeeping. */
const VIEW_KINDS = new Set([
  'SystemPromptEvent',
  'MessageEvent',
  'ActionEvent',
  'ObservationEvent',
  'UserRejectObservation',
  'AgentErrorEvent',
  'CondensationSummaryEvent',
]);

export interface LlmView {
  /** The events the LLM sees, in order, after condensations (a summary is a synthetic event). */
  events: StoredEvent[];
  messages: Message[];
}

/**
 * The events the LLM sees: forgotten events of the latest Condensation dropped and its summary
 * inserted at summary_offset.
 */
export function viewEvents(log: StoredEvent[]): StoredEvent[] {
  let view: StoredEvent[] = [];
  for (const event of log) {
    if (event.kind === 'Condensation') {
      const forgotten = new Set<string>(event.forgotten_event_ids ?? []);
      // A newer summary replaces older ones.
      view = view.filter((item) => !forgotten.has(item.id) && (!event.summary || item.kind !== 'CondensationSummaryEvent'));
      if (event.summary && event.summary_offset !== null && event.summary_offset !== undefined) {
        const summary = { kind: 'CondensationSummaryEvent', id: `${event.id}-summary`, source: 'environment', summary: event.summary };
        view.splice(Math.min(event.summary_offset, view.length), 0, summary);
      }
    } else if (VIEW_KINDS.has(event.kind)) {
      view.push(event);
    }
  }
  return view;
}

/**
 * The chat messages for a view. The ActionEvents of one response become one assistant message, and
 * their results follow it at once, in call order: chat APIs refuse anything between an assistant's
 * tool calls and their results, yet the log may hold a user message sent while a tool ran, or an
 * invalid call's error between two calls of the batch. The system prompt comes first (it is stored
 * after the first user message, and many chat templates accept a system message only at the start).
 */
export function toMessages(view: StoredEvent[]): Message[] {
  const results = new Map<string, Message>();
  for (const event of view) {
    if (event.kind === 'ObservationEvent') {
      results.set(event.tool_call_id, toolMessage(event.tool_call_id, event.tool_name, observationToLlmText(event.observation)));
    } else if (event.kind === 'UserRejectObservation') {
      results.set(event.tool_call_id, toolMessage(event.tool_call_id, event.tool_name, `Action rejected: ${event.rejection_reason}`));
    } else if (event.kind === 'AgentErrorEvent') {
      results.set(event.tool_call_id, toolMessage(event.tool_call_id, event.tool_name, event.error));
    }
  }
  // A call without any result (cut off by a condensation, or still waiting) would make providers refuse the request.
  const batches = new Map<string, StoredEvent[]>();
  for (const event of view) {
    if (event.kind !== 'ActionEvent' || !results.has(event.tool_call_id)) continue;
    const key = event.llm_response_id ?? event.tool_call_id;
    batches.set(key, [...(batches.get(key) ?? []), event]);
  }
  const system: Message[] = [];
  const messages: Message[] = [];
  const emitted = new Set<string>();
  for (const event of view) {
    switch (event.kind) {
      case 'ActionEvent': {
        const key = event.llm_response_id ?? event.tool_call_id;
        const batch = batches.get(key);
        if (!batch || emitted.has(key)) break;
        emitted.add(key);
        const first = batch[0];
        messages.push({
          role: 'assistant',
          content: first.thought ?? [],
          tool_calls: batch.map((action) => action.tool_call),
          reasoning_content: first.reasoning_content ?? null,
          thinking_blocks: first.thinking_blocks ?? [],
        } as Message);
        for (const action of batch) messages.push(results.get(action.tool_call_id)!);
        break;
      }
      case 'SystemPromptEvent':
        system.push({ role: 'system', content: [event.system_prompt, ...(event.dynamic_context ? [event.dynamic_context] : [])] } as Message);
        break;
      case 'MessageEvent':
        messages.push(event.llm_message as Message);
        break;
      case 'CondensationSummaryEvent':
        messages.push({ role: 'user', content: [{ type: 'text', text: `Summary of the earlier conversation:\n${event.summary}`, cache_prompt: false }] } as Message);
        break;
      // Results were placed right after their calls; those whose call is not in the view are dropped.
    }
  }
  return [...system, ...messages];
}

export function buildLlmView(log: StoredEvent[]): LlmView {
  const events = viewEvents(log);
  return { events, messages: toMessages(events) };
}

function toolMessage(toolCallId: string, name: string, text: string): Message {
  return { role: 'tool', tool_call_id: toolCallId, name, content: [{ type: 'text', text, cache_prompt: false }] } as Message;
}

export function observationText(observation: Record<string, any>): string {
  const content = Array.isArray(observation?.content) ? observation.content : [];
  const text = content
    .filter((item: { type?: string }) => item?.type === 'text' || item?.type === undefined)
    .map((item: { text?: string }) => item.text ?? '')
    .join('\n');
  return observation?.is_error ? `Error: ${text}` : text;
}
