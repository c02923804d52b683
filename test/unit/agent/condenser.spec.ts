import { planCondensation } from '../../../src/agent/condenser.js';

const message = (id: string, source = 'user') => ({ kind: 'MessageEvent', id, source });
const call = (id: string, response: string) => ({ kind: 'ActionEvent', id, tool_call_id: `c-${id}`, llm_response_id: response });
const result = (id: string, of: string) => ({ kind: 'ObservationEvent', id, tool_call_id: `c-${of}` });

describe('planCondensation', () => {
  it('keeps the head (system prompt, first message) and forgets the older half after it', () => {
    const view = [{ kind: 'SystemPromptEvent', id: 's' }, message('m0'), ...Array.from({ length: 10 }, (_, i) => message(`m${i + 1}`, i % 2 ? 'agent' : 'user'))];
    const plan = planCondensation(view as never)!;
    expect(plan.forgotten.map((event) => event.id)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
  });

  it('never separates a tool call from its result, nor parallel calls of one response', () => {
    const view = [
      { kind: 'SystemPromptEvent', id: 's' }, message('m0'),
      message('m1'), call('a1', 'r1'), call('a2', 'r1'), result('o1', 'a1'), result('o2', 'a2'),
      message('m2', 'agent'), message('m3'), message('m4', 'agent'),
    ];
    const forgotten = planCondensation(view as never)!.forgotten.map((event) => event.id);
    for (const [action, observation] of [['a1', 'o1'], ['a2', 'o2']]) {
      expect(forgotten.includes(action)).toBe(forgotten.includes(observation));
    }
    expect(forgotten.includes('a1')).toBe(forgotten.includes('a2'));
  });

  it('folds an earlier summary into the new one instead of forgetting it by id', () => {
    const view = [
      { kind: 'SystemPromptEvent', id: 's' }, message('m0'),
      { kind: 'CondensationSummaryEvent', id: 'c1-summary', summary: 'earlier work' },
      ...Array.from({ length: 8 }, (_, i) => message(`m${i + 1}`)),
    ];
    const plan = planCondensation(view as never)!;
    expect(plan.previousSummary).toBe('earlier work');
    expect(plan.forgotten.map((event) => event.id)).not.toContain('c1-summary');
  });

  it('has nothing to do on a short view', () => {
    expect(planCondensation([message('m0'), message('m1')] as never)).toBeNull();
  });
});
