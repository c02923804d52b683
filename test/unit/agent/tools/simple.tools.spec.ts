import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FinishTool } from '../../../../src/agent/tools/finish.tool.js';
import { InMemoryTaskListStore, TaskTrackerTool } from '../../../../src/agent/tools/task-tracker.tool.js';
import { ThinkTool } from '../../../../src/agent/tools/think.tool.js';
import { ToolArgumentError, type ToolContext } from '../../../../src/agent/tools/tool.js';

describe('task_tracker, think and finish', () => {
  let workspaceDir: string;
  let ctx: ToolContext;

  beforeEach(async () => {
    workspaceDir = await realpath(await mkdtemp(join(tmpdir(), 'simple-tools-')));
    ctx = { workspaceDir, conversationId: '3f0e6b3c-1111-4222-8333-444455556666' };
  });

  afterEach(async () => {
    await rm(workspaceDir, { recursive: true, force: true });
  });

  describe('task_tracker', () => {
    it('starts empty, saves a plan, and shows it on view, from a fresh tool too', async () => {
      const tool = new TaskTrackerTool();
      const empty = await tool.execute(tool.toAction({ command: 'view' }), ctx);
      expect(empty).toMatchObject({ kind: 'TaskTrackerObservation', command: 'view', task_list: [], is_error: false });
      expect(empty.content[0].text).toContain('empty');

      const plan = tool.toAction({
        command: 'plan',
        task_list: [
          { title: 'Read the code', status: 'done', notes: 'src/ only' },
          { title: 'Fix the bug', status: 'in_progress' },
          { title: 'Add a test' },
        ],
      });
      expect(plan.task_list[2]).toEqual({ title: 'Add a test', notes: '', status: 'todo' });
      const saved = await tool.execute(plan, ctx);
      expect(saved.task_list).toHaveLength(3);
      expect(saved.content[0].text).toContain('1 of 3 done');

      const viewed = await new TaskTrackerTool().execute(tool.toAction({}), ctx);
      expect(viewed.command).toBe('view');
      expect(viewed.task_list).toEqual(plan.task_list);
      expect(viewed.content[0].text).toContain('2. [in_progress] Fix the bug');
      expect(viewed.content[0].text).toContain('   src/ only');
      const file = join(workspaceDir, '.agent', 'tasks', `${ctx.conversationId}.json`);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(plan.task_list);
    });

    it('keeps conversations that share a workspace apart', async () => {
      const tool = new TaskTrackerTool(new InMemoryTaskListStore());
      await tool.execute(tool.toAction({ command: 'plan', task_list: [{ title: 'mine' }] }), ctx);
      const other = await tool.execute(tool.toAction({ command: 'view' }), { ...ctx, conversationId: 'other' });
      expect(other.task_list).toEqual([]);
    });

    it('rejects a plan without a list and malformed tasks', () => {
      const tool = new TaskTrackerTool();
      expect(() => tool.toAction({ command: 'plan' })).toThrow(/needs "task_list"/);
      expect(() => tool.toAction({ command: 'plan', task_list: [{ notes: 'x' }] })).toThrow(/task_list\[0\] needs a non-empty "title"/);
      expect(() => tool.toAction({ command: 'plan', task_list: [{ title: 'x', status: 'blocked' }] })).toThrow(ToolArgumentError);
      expect(() => tool.toAction({ command: 'plan', task_list: [{ title: 'x', status: 'blocked' }] })).toThrow(/status must be one of todo, in_progress, done/);
      expect(() => tool.toAction({ command: 'edit' })).toThrow(/"command" is "edit"/);
    });
  });

  it('think acknowledges the thought and changes nothing', async () => {
    const tool = new ThinkTool();
    const action = tool.toAction({ thought: 'The failure comes from the cache.' });
    expect(action).toEqual({ thought: 'The failure comes from the cache.', kind: 'ThinkAction' });
    const observation = await tool.execute();
    expect(observation).toMatchObject({ kind: 'ThinkObservation', is_error: false });
    expect(() => tool.toAction({})).toThrow(/"thought" is required/);
  });

  it('finish carries the final message', async () => {
    const tool = new FinishTool();
    const action = tool.toAction({ message: 'Done: the bug is fixed.', summary: 'wrap up' });
    expect(action).toEqual({ message: 'Done: the bug is fixed.', kind: 'FinishAction' });
    expect((await tool.execute(action)).content[0].text).toBe('Done: the bug is fixed.');
    expect(() => tool.toAction({ message: 42 })).toThrow(/"message" is required and must be a string/);
  });
});
