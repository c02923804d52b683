import { isStuck } from '../../../src/agent/stuck-detector.js';

let counter = 0;
const action = (tool: string, args: string) => {
  const id = `call_${++counter}`;
  return { kind: 'ActionEvent', id: `a${counter}`, tool_name: tool, tool_call_id: id, tool_call: { id, name: tool, arguments: args } };
};
const observation = (call: { tool_call_id: string; tool_name: string }, text: string) => ({
  kind: 'ObservationEvent',
  tool_name: call.tool_name,
  tool_call_id: call.tool_call_id,
  observation: { content: [{ type: 'text', text }], is_error: false },
});
const failure = (call: { tool_call_id: string; tool_name: string }, error: string) => ({
  kind: 'AgentErrorEvent',
  tool_name: call.tool_name,
  tool_call_id: call.tool_call_id,
  error,
});
const repeat = (times: number, make: () => unknown[]) => Array.from({ length: times }, make).flat();

describe('isStuck', () => {
  it('the same action with the same result four times in a row is stuck; three is not', () => {
    const step = () => {
      const call = action('terminal', '{"command":"ls"}');
      return [call, observation(call, 'a.txt')];
    };
    expect(isStuck(repeat(3, step) as never)).toBe(false);
    expect(isStuck(repeat(4, step) as never)).toBe(true);
  });

  it('a different result or different arguments break the repetition', () => {
    let n = 0;
    const changingOutput = () => {
      const call = action('terminal', '{"command":"date"}');
      return [call, observation(call, `tick ${n++}`)];
    };
    expect(isStuck(repeat(6, changingOutput) as never)).toBe(false);
  });

  it('the same failing action three times in a row is stuck', () => {
    const step = () => {
      const call = action('file_editor', '{"command":"view","path":"/nope"}');
      return [call, failure(call, 'does not exist')];
    };
    expect(isStuck(repeat(2, step) as never)).toBe(false);
    expect(isStuck(repeat(3, step) as never)).toBe(true);
  });

  it('a user message in between starts the count again', () => {
    const step = () => {
      const call = action('terminal', '{"command":"ls"}');
      return [call, observation(call, 'a.txt')];
    };
    const view = [...repeat(2, step), { kind: 'MessageEvent', source: 'user' }, ...repeat(3, step)];
    expect(isStuck(view as never)).toBe(false);
  });
});
