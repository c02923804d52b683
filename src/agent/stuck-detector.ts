import { observationText } from './llm-view.js';

type StoredEvent = Record<string, any>;

const REPEATED_ACTION_LIMIT = 4;
const REPEATED_ERROR_LIMIT = 3;

function actionSignature(event: StoredEvent): string {
  return `${event.tool_name}\u0000${event.tool_call?.arguments ?? ''}`;
}

/**
 * The agent is stuck when it repeats the same action with the same result four times in a row,
 * or the same action fails three times in a row.
 */
export function isStuck(view: StoredEvent[]): boolean {
  const steps: Array<{ action: string; result: string; failed: boolean }> = [];
  const actionByCall = new Map<string, StoredEvent>();
  for (const event of view) {
    if (event.kind === 'ActionEvent') actionByCall.set(event.tool_call_id, event);
    if (event.kind === 'MessageEvent') steps.length = 0;
    const action = actionByCall.get(event.tool_call_id);
    if (!action) continue;
    if (event.kind === 'ObservationEvent') {
      steps.push({ action: actionSignature(action), result: observationText(event.observation), failed: false });
    } else if (event.kind === 'AgentErrorEvent') {
      steps.push({ action: actionSignature(action), result: event.error, failed: true });
    }
  }
  const repeats = (count: number, predicate: (step: (typeof steps)[number]) => boolean) => {
    if (steps.length < count) return false;
    const tail = steps.slice(-count);
    return tail.every((step) => predicate(step) && step.action === tail[0].action && step.result === tail[0].result);
  };
  return repeats(REPEATED_ACTION_LIMIT, () => true) || repeats(REPEATED_ERROR_LIMIT, (step) => step.failed);
}
