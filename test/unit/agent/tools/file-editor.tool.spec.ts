import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileEditorTool, type FileEditorObservation } from '../../../../src/agent/tools/file-editor.tool.js';
import { ToolArgumentError, type ToolContext } from '../../../../src/agent/tools/tool.js';

describe('FileEditorTool', () => {
  let root: string;
  let workspaceDir: string;
  let outsideDir: string;
  let tool: FileEditorTool;
  let ctx: ToolContext;

  const edit = (args: Record<string, unknown>): Promise<FileEditorObservation> => tool.execute(tool.toAction(args), ctx);
  const textOf = (observation: FileEditorObservation) => observation.content.map((item) => item.text).join('');
  const inWorkspace = (...parts: string[]) => join(workspaceDir, ...parts);

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'file-editor-')));
    workspaceDir = join(root, 'workspace');
    outsideDir = join(root, 'outside');
    await mkdir(workspaceDir);
    await mkdir(outsideDir);
    await writeFile(join(outsideDir, 'secret.txt'), 'top secret\n');
    tool = new FileEditorTool({ maxOutputChars: 4000 });
    ctx = { workspaceDir, conversationId: 'conversation-1' };
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('view', () => {
    it('shows a file with line numbers, whole or a range', async () => {
      await writeFile(inWorkspace('a.txt'), 'one\ntwo\nthree\nfour\n');
      const whole = await edit({ command: 'view', path: inWorkspace('a.txt') });
      expect(whole).toMatchObject({ kind: 'FileEditorObservation', command: 'view', is_error: false, path: inWorkspace('a.txt') });
      expect(textOf(whole)).toContain('     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour');
      expect(textOf(whole)).not.toContain('     5\t');

      const range = await edit({ command: 'view', path: inWorkspace('a.txt'), view_range: [2, 3] });
      expect(textOf(range)).toContain('     2\ttwo\n     3\tthree');
      expect(textOf(range)).not.toContain('\tone');
      expect(textOf(range)).not.toContain('\tfour');

      const toEnd = await edit({ command: 'view', path: inWorkspace('a.txt'), view_range: [3, -1] });
      expect(textOf(toEnd)).toContain('     3\tthree\n     4\tfour');

      const pastEnd = await edit({ command: 'view', path: inWorkspace('a.txt'), view_range: [9, -1] });
      expect(pastEnd.is_error).toBe(true);
      expect(textOf(pastEnd)).toContain('only 4 lines');
    });

    it('cuts a long view at a line and says where to continue', async () => {
      await writeFile(inWorkspace('long.txt'), Array.from({ length: 2000 }, (_, i) => `line ${i + 1}`).join('\n'));
      const text = textOf(await edit({ command: 'view', path: inWorkspace('long.txt') }));
      expect(text.length).toBeLessThan(4200);
      expect(text).toMatch(/view the rest with view_range \[\d+, -1\]/);
    });

    it('lists a directory two levels deep without hidden entries', async () => {
      await mkdir(inWorkspace('src', 'deep', 'deeper'), { recursive: true });
      await writeFile(inWorkspace('src', 'main.ts'), '');
      await writeFile(inWorkspace('src', 'deep', 'deeper', 'too-deep.ts'), '');
      await writeFile(inWorkspace('.env'), 'SECRET=1');
      await writeFile(inWorkspace('README.md'), '');
      const text = textOf(await edit({ command: 'view', path: workspaceDir }));
      expect(text).toContain(`${inWorkspace('README.md')}\n`);
      expect(text).toContain(`${inWorkspace('src')}/`);
      expect(text).toContain(inWorkspace('src', 'main.ts'));
      expect(text).toContain(`${inWorkspace('src', 'deep')}/`);
      expect(text).not.toContain('too-deep.ts');
      expect(text).not.toContain('.env\n');
      expect(text).toContain('1 hidden');
    });

    it('reports a missing path and a binary file as errors', async () => {
      const missing = await edit({ command: 'view', path: inWorkspace('nope.txt') });
      expect(missing.is_error).toBe(true);
      expect(textOf(missing)).toContain('does not exist');
      await writeFile(inWorkspace('blob.bin'), Buffer.from([1, 0, 2, 3]));
      const binary = await edit({ command: 'view', path: inWorkspace('blob.bin') });
      expect(binary.is_error).toBe(true);
      expect(textOf(binary)).toContain('binary');
    });
  });

  describe('create', () => {
    it('creates a file with its parent directories and refuses to overwrite', async () => {
      const created = await edit({ command: 'create', path: inWorkspace('new', 'dir', 'f.py'), file_text: 'print(1)\n' });
      expect(created).toMatchObject({ is_error: false, prev_exist: false, old_content: null, new_content: 'print(1)\n' });
      expect(await readFile(inWorkspace('new', 'dir', 'f.py'), 'utf8')).toBe('print(1)\n');

      const again = await edit({ command: 'create', path: inWorkspace('new', 'dir', 'f.py'), file_text: 'other' });
      expect(again.is_error).toBe(true);
      expect(textOf(again)).toContain('already exists');
      expect(await readFile(inWorkspace('new', 'dir', 'f.py'), 'utf8')).toBe('print(1)\n');
    });
  });

  describe('str_replace', () => {
    beforeEach(async () => {
      await writeFile(inWorkspace('code.py'), 'def a():\n    return 1\n\ndef b():\n    return 1\n');
    });

    it('replaces text that occurs exactly once and shows the edited lines', async () => {
      const observation = await edit({ command: 'str_replace', path: inWorkspace('code.py'), old_str: 'def b():\n    return 1', new_str: 'def b():\n    return 2' });
      expect(observation.is_error).toBe(false);
      expect(observation.old_content).toBe('def a():\n    return 1\n\ndef b():\n    return 1\n');
      expect(observation.new_content).toBe('def a():\n    return 1\n\ndef b():\n    return 2\n');
      expect(await readFile(inWorkspace('code.py'), 'utf8')).toBe(observation.new_content);
      expect(textOf(observation)).toContain('     5\t    return 2');
    });

    it('refuses when old_str does not occur, saying so', async () => {
      const observation = await edit({ command: 'str_replace', path: inWorkspace('code.py'), old_str: 'return 3', new_str: 'x' });
      expect(observation.is_error).toBe(true);
      expect(textOf(observation)).toContain('does not occur verbatim');
    });

    it('refuses when old_str occurs twice, giving the count and lines', async () => {
      const observation = await edit({ command: 'str_replace', path: inWorkspace('code.py'), old_str: 'return 1', new_str: 'return 2' });
      expect(observation.is_error).toBe(true);
      expect(textOf(observation)).toContain('occurs 2 times');
      expect(textOf(observation)).toContain('lines 2, 5');
      expect(await readFile(inWorkspace('code.py'), 'utf8')).toContain('return 1\n\ndef b():\n    return 1');
    });

    it('deletes old_str when new_str is left out', async () => {
      await edit({ command: 'str_replace', path: inWorkspace('code.py'), old_str: '\ndef b():\n    return 1\n' });
      expect(await readFile(inWorkspace('code.py'), 'utf8')).toBe('def a():\n    return 1\n');
    });

    it('matches a file with Windows line ends', async () => {
      await writeFile(inWorkspace('crlf.txt'), 'a\r\nb\r\nc\r\n');
      const observation = await edit({ command: 'str_replace', path: inWorkspace('crlf.txt'), old_str: 'a\nb', new_str: 'A\nB' });
      expect(observation.is_error).toBe(false);
      expect(await readFile(inWorkspace('crlf.txt'), 'utf8')).toBe('A\r\nB\r\nc\r\n');
    });
  });

  describe('insert', () => {
    it('inserts after the given line, 0 meaning the top', async () => {
      await writeFile(inWorkspace('list.txt'), 'one\ntwo\n');
      await edit({ command: 'insert', path: inWorkspace('list.txt'), insert_line: 1, new_str: 'one and a half' });
      await edit({ command: 'insert', path: inWorkspace('list.txt'), insert_line: 0, new_str: 'zero\n' });
      const last = await edit({ command: 'insert', path: inWorkspace('list.txt'), insert_line: 4, new_str: 'three' });
      expect(await readFile(inWorkspace('list.txt'), 'utf8')).toBe('zero\none\none and a half\ntwo\nthree\n');
      expect(last.old_content).toBe('zero\none\none and a half\ntwo\n');
      expect(textOf(last)).toContain('     5\tthree');

      const tooFar = await edit({ command: 'insert', path: inWorkspace('list.txt'), insert_line: 9, new_str: 'x' });
      expect(tooFar.is_error).toBe(true);
      expect(textOf(tooFar)).toContain('has 5 lines');
    });
  });

  describe('undo_edit', () => {
    it('reverts edits one by one, then the creation, then has nothing left', async () => {
      const path = inWorkspace('undo.txt');
      await edit({ command: 'create', path, file_text: 'v1\n' });
      await edit({ command: 'str_replace', path, old_str: 'v1', new_str: 'v2' });
      await edit({ command: 'insert', path, insert_line: 1, new_str: 'v3' });

      const first = await edit({ command: 'undo_edit', path });
      expect(first).toMatchObject({ is_error: false, old_content: 'v2\nv3\n', new_content: 'v2\n' });
      expect(await readFile(path, 'utf8')).toBe('v2\n');
      await edit({ command: 'undo_edit', path });
      expect(await readFile(path, 'utf8')).toBe('v1\n');
      const creation = await edit({ command: 'undo_edit', path });
      expect(textOf(creation)).toContain('removed');
      await expect(readFile(path, 'utf8')).rejects.toThrow();
      const nothing = await edit({ command: 'undo_edit', path });
      expect(nothing.is_error).toBe(true);
      expect(textOf(nothing)).toContain('no edit');
    });

    it('keeps histories per conversation and forgets them on dispose', async () => {
      const path = inWorkspace('shared.txt');
      await writeFile(path, 'base\n');
      await edit({ command: 'str_replace', path, old_str: 'base', new_str: 'changed' });
      const other = await tool.execute(tool.toAction({ command: 'undo_edit', path }), { workspaceDir, conversationId: 'conversation-2' });
      expect(other.is_error).toBe(true);
      await tool.dispose('conversation-1');
      expect((await edit({ command: 'undo_edit', path })).is_error).toBe(true);
    });
  });

  describe('confinement to the workspace', () => {
    it('refuses relative paths, naming the absolute one meant', async () => {
      const observation = await edit({ command: 'view', path: 'a.txt' });
      expect(observation.is_error).toBe(true);
      expect(textOf(observation)).toContain(inWorkspace('a.txt'));
    });

    it('refuses absolute paths outside and paths climbing out with ..', async () => {
      for (const path of [join(outsideDir, 'secret.txt'), `${workspaceDir}/../outside/secret.txt`, '/etc/passwd']) {
        const observation = await edit({ command: 'view', path });
        expect(observation.is_error).toBe(true);
        expect(textOf(observation)).toContain('outside the workspace');
        expect(textOf(observation)).not.toContain('top secret');
      }
      const created = await edit({ command: 'create', path: `${workspaceDir}/../outside/new.txt`, file_text: 'x' });
      expect(created.is_error).toBe(true);
      await expect(readFile(join(outsideDir, 'new.txt'), 'utf8')).rejects.toThrow();
    });

    it('refuses to follow a symbolic link that points out of the workspace', async () => {
      await symlink(outsideDir, inWorkspace('escape'));
      await symlink(join(outsideDir, 'secret.txt'), inWorkspace('secret-link.txt'));
      await symlink(join(outsideDir, 'planted.txt'), inWorkspace('dangling.txt'));
      const viaDir = await edit({ command: 'view', path: inWorkspace('escape', 'secret.txt') });
      const viaFile = await edit({ command: 'str_replace', path: inWorkspace('secret-link.txt'), old_str: 'top', new_str: 'no' });
      const viaDangling = await edit({ command: 'create', path: inWorkspace('dangling.txt'), file_text: 'planted' });
      const intoLinkedDir = await edit({ command: 'create', path: inWorkspace('escape', 'new.txt'), file_text: 'x' });
      for (const observation of [viaDir, viaFile, viaDangling, intoLinkedDir]) {
        expect(observation.is_error).toBe(true);
        expect(textOf(observation)).toContain('outside the workspace');
      }
      expect(await readFile(join(outsideDir, 'secret.txt'), 'utf8')).toBe('top secret\n');
      await expect(readFile(join(outsideDir, 'planted.txt'), 'utf8')).rejects.toThrow();
      await expect(readFile(join(outsideDir, 'new.txt'), 'utf8')).rejects.toThrow();
    });

    it('follows a symbolic link that stays inside the workspace', async () => {
      await writeFile(inWorkspace('real.txt'), 'inside\n');
      await symlink(inWorkspace('real.txt'), inWorkspace('alias.txt'));
      expect(textOf(await edit({ command: 'view', path: inWorkspace('alias.txt') }))).toContain('1\tinside');
    });
  });

  describe('toAction', () => {
    it('fills every field of the action', () => {
      expect(tool.toAction({ command: 'view', path: '/w/a.txt' })).toEqual({
        command: 'view',
        path: '/w/a.txt',
        file_text: null,
        old_str: null,
        new_str: null,
        insert_line: null,
        view_range: null,
        kind: 'FileEditorAction',
      });
      expect(tool.toAction({ command: 'view', path: '/w/a', view_range: '[1, 5]' }).view_range).toEqual([1, 5]);
      expect(tool.toAction({ command: 'insert', path: '/w/a', insert_line: '3', new_str: 'x' }).insert_line).toBe(3);
    });

    it('rejects arguments that cannot work, saying what is needed', () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ command: 'delete', path: '/w/a' }, /"command" is "delete"; it must be one of "view", "create"/],
        [{ command: 'view' }, /"path" is required/],
        [{ command: 'create', path: '/w/a' }, /needs "file_text"/],
        [{ command: 'str_replace', path: '/w/a' }, /needs a non-empty "old_str"/],
        [{ command: 'insert', path: '/w/a', new_str: 'x' }, /needs "insert_line"/],
        [{ command: 'insert', path: '/w/a', insert_line: 1 }, /needs "new_str"/],
        [{ command: 'insert', path: '/w/a', insert_line: -1, new_str: 'x' }, /"insert_line" must be an integer >= 0/],
        [{ command: 'view', path: '/w/a', view_range: [5] }, /two integers/],
        [{ command: 'view', path: '/w/a', view_range: [5, 2] }, /end \(2\) must be >= start \(5\)/],
        [{ command: 'view', path: '/w/a', view_range: [0, 2] }, /starts at line 1/],
        [{ command: 'view', path: '/w/a', file_path: '/w/a' }, /unknown argument\(s\) "file_path"/],
      ];
      for (const [args, message] of cases) {
        expect(() => tool.toAction(args)).toThrow(ToolArgumentError);
        expect(() => tool.toAction(args)).toThrow(message);
      }
    });
  });
});
