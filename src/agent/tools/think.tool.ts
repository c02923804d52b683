import { ToolArguments, toolParameters } from './tool-arguments.js';
import { buildToolDefinition, textContent, type AgentTool, type TextContent, type ToolDefinition } from './tool.js';

export type ThinkAction = { thought: string; kind: 'ThinkAction' };
export type ThinkObservation = { content: TextContent[]; is_error: boolean; kind: 'ThinkObservation' };

/** A place to reason out loud; the thought is kept in the conversation, nothing else happens. */
export class ThinkTool implements AgentTool<ThinkAction, ThinkObservation> {
  readonly name = 'think';
  readonly readOnly = true;
  readonly description = [
    'Write down your reasoning without doing anything else: nothing is run and nothing changes.',
    'Use it to weigh approaches, to work out the likely cause of a failure from what you have seen,',
    'or to plan the next steps before a complicated change.',
  ].join('\n');
  readonly parameters = toolParameters({ thought: { type: 'string', description: 'Your reasoning.' } }, ['thought'], { readOnly: true });

  toAction(raw: unknown): ThinkAction {
    const args = new ToolArguments(this.name, raw, ['thought']);
    return { thought: args.requiredString('thought'), kind: 'ThinkAction' };
  }

  definition(): ToolDefinition {
    return buildToolDefinition('ThinkTool', this.name, this.description, 'ThinkAction', 'ThinkObservation', {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  }

  async execute(): Promise<ThinkObservation> {
    return { content: [textContent('Your thought has been noted.')], is_error: false, kind: 'ThinkObservation' };
  }
}
