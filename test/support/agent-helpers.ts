import type { HttpClient } from './http-client.js';

export const TERMINAL_STATUSES = ['finished', 'error', 'stuck', 'paused', 'waiting_for_confirmation', 'idle'];

/** Polls the conversation until its status is one of `statuses` (a run ended, or asks). */
export async function waitForStatus(
  http: HttpClient,
  conversationId: string,
  statuses: string[] = TERMINAL_STATUSES.filter((status) => status !== 'idle'),
  timeoutMs = 30_000,
): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  let last: Record<string, any> | undefined;
  while (Date.now() < deadline) {
    last = (await http.get(`/api/conversations/${conversationId}`)).body;
    if (last && statuses.includes(last.execution_status)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`conversation ${conversationId} did not reach ${statuses.join('|')}; last status ${last?.execution_status}`);
}

/** Every stored event of a conversation, in position order. */
export async function allEvents(http: HttpClient, conversationId: string): Promise<Array<Record<string, any>>> {
  const events: Array<Record<string, any>> = [];
  let start = 0;
  for (;;) {
    const page = await http.get(`/api/conversations/${conversationId}/events`, { query: { start_id: start, limit: 100 } });
    events.push(...page.body.events);
    if (!page.body.has_more) return events;
    start = page.body.next_id;
  }
}

export function llmAgent(url: string, apiKey = 'sk-test-llm-secret-0000', model = 'openai/test-model') {
  return { kind: 'Agent', llm: { model, base_url: url, api_key: apiKey, usage_id: 'agent' } };
}
