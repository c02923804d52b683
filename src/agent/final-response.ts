type StoredEvent = Record<string, any>;

/** The text of the agent's last MessageEvent or FinishAction, whichever came last; '' when none. */
export function finalResponseText(log: StoredEvent[]): string {
  for (let index = log.length - 1; index >= 0; index--) {
    const event = log[index];
    if (event.kind === 'ActionEvent' && event.action?.kind === 'FinishAction') return String(event.action.message ?? '');
    if (event.kind === 'MessageEvent' && event.source === 'agent') {
      return (event.llm_message?.content ?? []).map((item: { text?: string }) => item.text ?? '').join('\n');
    }
  }
  return '';
}
