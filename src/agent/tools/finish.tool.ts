import { ToolArguments, toolParameters } from './tool-arguments.js';
import { buildToolDefinition, textContent, type AgentTool, type TextContent, type ToolDefinition } from './tool.js';

export type FinishAction = { message: string; kind: 'FinishAction' };
export type FinishObservation = { content: TextContent[]; is_error: boolean; kind: 'FinishObservation' };

/** Ends the run; the agent loop stops after this tool's observation. */
export class FinishTool implements AgentTool<FinishAction, FinishObservation> {
  readonly name = 'finish';
  readonly readOnly = true;
  readonly description = [
    'Finish your work and hand back to the person: call it when the task is done, or when you cannot go on without them',
    '(a question, a missing permission or credential). `message` is what they read: what you did, what you found,',
    'what is left open.',
  ].join('\n');
  readonly parameters = toolParameters(
    { message: { type: 'string', description: 'Your final message to the person.' } },
    ['message'],
    { readOnly: true },
  );

  toAction(raw: unknown): FinishAction {
    const args = new ToolArguments(this.name, raw, ['message']);
    return { message: args.requiredString('message'), kind: 'FinishAction' };
  }

  definition(): ToolDefinition {
    return buildToolDefinition('FinishTool', this.name, this.description, 'FinishAction', 'FinishObservation', {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  }

  async execute(action: FinishAction): Promise<FinishObservation> {
    return { content: [textContent(action.message)], is_error: false, kind: 'FinishObservation' };
  }
}
