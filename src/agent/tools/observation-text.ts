// How a stored observation reads to the LLM, as the content of the tool-result message. Works on the
// plain observation from an ObservationEvent, so a conversation's history renders the same on any instance.

import type { TextContent } from './tool.js';

const ERROR_HEADER = '[The tool reported an error.]\n';

function contentText(observation: Record<string, unknown>): string {
  const content = Array.isArray(observation.content) ? (observation.content as Array<Partial<TextContent>>) : [];
  return content
    .filter((item) => item?.type === 'text' && typeof item.text === 'string')
    .map((item) => item.text)
    .join('\n');
}

/** The terminal's output framed by its notes (how it ended, where the shell now is). */
function terminalText(observation: Record<string, unknown>): string {
  const metadata = (observation.metadata ?? {}) as Record<string, unknown>;
  const prefix = typeof metadata.prefix === 'string' ? metadata.prefix : '';
  const suffix = typeof metadata.suffix === 'string' ? metadata.suffix : '';
  let text = `${prefix}${contentText(observation)}${suffix}`;
  if (typeof metadata.working_dir === 'string' && metadata.working_dir && observation.is_error !== true) {
    text += `\n[Current working directory: ${metadata.working_dir}]`;
  }
  return text;
}

export function observationToLlmText(observation: Record<string, unknown>): string {
  const text = observation.kind === 'TerminalObservation' ? terminalText(observation) : contentText(observation);
  return observation.is_error === true ? `${ERROR_HEADER}${text}` : text;
}

export function observationToLlmContent(observation: Record<string, unknown>): TextContent[] {
  return [{ type: 'text', text: observationToLlmText(observation), cache_prompt: false }];
}
