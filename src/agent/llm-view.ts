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

/** The chat messages for a view; parallel ActionEvents of one response become one assistant message. */
export function toMessages(view: StoredEvent[]): Message[] {
  const answered = new Set<string>();
  for (const event of view) {
    if (event.kind === 'ObservationEvent' || event.kind === 'UserRejectObservation' || event.kind === 'AgentErrorEvent') {
      answered.add(event.tool_call_id);
    }
  }
  const messages: Message[] = [];
  let pendingAssistant: { responseId: string; message: Message } | null = null;
  const flush = () => {
    if (pendingAssistant) messages.push(pendingAssistant.message);
    pendingAssistant = null;
  };
  for (const event of view) {
    if (event.kind === 'ActionEvent') {
      // A call without any result (cut off by a condensation) would make providers refuse the request.
      if (!answered.has(event.tool_call_id)) continue;
      if (pendingAssistant && pendingAssistant.responseId === event.llm_response_id) {
        pendingAssistant.message.tool_calls!.push(event.tool_call);
        continue;
      }
      flush();
      pendingAssistant = {
        responseId: event.llm_response_id,
        message: {
          role: 'assistant',
          content: event.thought ?? [],
          tool_calls: [event.tool_call],
          reasoning_content: event.reasoning_content ?? null,
          thinking_blocks: event.thinking_blocks ?? [],
        } as Message,
      };
      continue;
    }
    flush();
    switch (event.kind) {
      case 'SystemPromptEvent':
        messages.push({ role: 'system', content: [event.system_prompt, ...(event.dynamic_context ? [event.dynamic_context] : [])] } as Message);
        break;
      case 'MessageEvent':
        messages.push(event.llm_message as Message);
        break;
      case 'CondensationSummaryEvent':
        messages.push({ role: 'user', content: [{ type: 'text', text: `Summary of the earlier conversation:\n${event.summary}`, cache_prompt: false }] } as Message);
        break;
      case 'ObservationEvent':
        messages.push(toolMessage(event.tool_call_id, event.tool_name, observationToLlmText(event.observation)));
        break;
      case 'UserRejectObservation':
        messages.push(toolMessage(event.tool_call_id, event.tool_name, `Action rejected: ${event.rejection_reason}`));
        break;
      case 'AgentErrorEvent':
        messages.push(toolMessage(event.tool_call_id, event.tool_name, event.error));
        break;
    }
  }
  flush();
  return dropOrphanResults(messages);
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

/** Tool results whose call was condensed away would also be refused: drop them. */
function dropOrphanResults(messages: Message[]): Message[] {
  const called = new Set<string>();
  return messages.filter((message) => {
    for (const call of message.tool_calls ?? []) called.add(call.id);
    return message.role !== 'tool' || called.has(message.tool_call_id ?? '');
  });
}
