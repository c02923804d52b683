import { mkdir, mkdtemp, realpath, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GlobTool } from '../../../../src/agent/tools/glob.tool.js';
import { compileSearchPattern, GrepTool } from '../../../../src/agent/tools/grep.tool.js';
import { ToolArgumentError, type ToolContext } from '../../../../src/agent/tools/tool.js';

describe('glob and grep', () => {
  let root: string;
  let workspaceDir: string;
  let ctx: ToolContext;
  const globTool = new GlobTool();
  const grepTool = new GrepTool();
  const inWorkspace = (...parts: string[]) => join(workspaceDir, ...parts);

  async function writeAged(path: string, content: string, ageSeconds: number): Promise<void> {
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, content);
    const time = new Date(Date.now() - ageSeconds * 1000);
    await utimes(path, time, time);
  }

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'search-tools-')));
    workspaceDir = join(root, 'workspace');
    await mkdir(workspaceDir);
    await mkdir(join(root, 'outside'));
    await writeFile(join(root, 'outside', 'leak.ts'), 'export const needle = 1;\n');
    await writeAged(inWorkspace('src', 'old.ts'), 'export function needle() {}\n', 300);
    await writeAged(inWorkspace('src', 'new.ts'), 'const NEEDLE = 2;\n', 10);
    await writeAged(inWorkspace('src', 'view.tsx'), '<div>needle</div>\n', 100);
    await writeAged(inWorkspace('README.md'), '# needle\n', 200);
    await writeAged(inWorkspace('node_modules', 'dep', 'index.ts'), 'needle\n', 1);
    await writeAged(inWorkspace('.hidden', 'secret.ts'), 'needle\n', 1);
    await writeFile(inWorkspace('image.bin'), Buffer.from([0, 1, 2, 110, 101, 101, 100, 108, 101]));
    ctx = { workspaceDir, conversationId: 'conversation-1' };
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('glob', () => {
    it('finds files newest first, skipping hidden and node_modules', async () => {
      const observation = await globTool.execute(globTool.toAction({ pattern: '**/*.ts' }), ctx);
      expect(observation).toMatchObject({
        kind: 'GlobObservation',
        is_error: false,
        files: [inWorkspace('src', 'new.ts'), inWorkspace('src', 'old.ts')],
        pattern: '**/*.ts',
        search_path: workspaceDir,
        truncated: false,
      });
      expect(observation.content[0].text).toContain(inWorkspace('src', 'new.ts'));
    });

    it('searches under path, with braces, and accepts an absolute pattern inside it', async () => {
      const braces = await globTool.execute(globTool.toAction({ pattern: '*.{ts,tsx}', path: inWorkspace('src') }), ctx);
      expect(braces.files).toEqual([inWorkspace('src', 'new.ts'), inWorkspace('src', 'view.tsx'), inWorkspace('src', 'old.ts')]);
      const absolute = await globTool.execute(globTool.toAction({ pattern: `${workspaceDir}/**/*.md` }), ctx);
      expect(absolute.files).toEqual([inWorkspace('README.md')]);
    });

    it('caps the result at 100 files and says so', async () => {
      await Promise.all(Array.from({ length: 105 }, (_, i) => writeFile(inWorkspace(`many-${i}.log`), '')));
      const observation = await globTool.execute(globTool.toAction({ pattern: '*.log' }), ctx);
      expect(observation.files).toHaveLength(100);
      expect(observation.truncated).toBe(true);
      expect(observation.content[0].text).toContain('100 newest of 105');
    });

    it('stays inside the workspace', async () => {
      for (const args of [{ pattern: '**/*.ts', path: join(root, 'outside') }, { pattern: '../outside/*.ts' }, { pattern: `${root}/outside/*.ts` }]) {
        const observation = await globTool.execute(globTool.toAction(args), ctx);
        expect(observation.is_error).toBe(true);
        expect(observation.files).toEqual([]);
      }
    });

    it('says when nothing matches, without an error', async () => {
      const observation = await globTool.execute(globTool.toAction({ pattern: '**/*.rs' }), ctx);
      expect(observation).toMatchObject({ is_error: false, files: [] });
      expect(observation.content[0].text).toContain('No files match');
    });
  });

  describe('grep', () => {
    it('lists files whose content matches, newest first, skipping binary, hidden and node_modules', async () => {
      const observation = await grepTool.execute(grepTool.toAction({ pattern: 'needle' }), ctx);
      expect(observation).toMatchObject({
        kind: 'GrepObservation',
        is_error: false,
        matches: [inWorkspace('src', 'view.tsx'), inWorkspace('README.md'), inWorkspace('src', 'old.ts')],
        pattern: 'needle',
        search_path: workspaceDir,
        include_pattern: null,
        truncated: false,
      });
    });

    it('filters by include and takes (?i) for case-insensitive search', async () => {
      const observation = await grepTool.execute(grepTool.toAction({ pattern: '(?i)needle', include: '*.ts', path: inWorkspace('src') }), ctx);
      expect(observation.matches).toEqual([inWorkspace('src', 'new.ts'), inWorkspace('src', 'old.ts')]);
      expect(observation.include_pattern).toBe('*.ts');
      const anchored = await grepTool.execute(grepTool.toAction({ pattern: '^export function \\w+' }), ctx);
      expect(anchored.matches).toEqual([inWorkspace('src', 'old.ts')]);
    });

    it('does not read through a link pointing out of the workspace', async () => {
      await symlink(join(root, 'outside', 'leak.ts'), inWorkspace('src', 'link.ts'));
      await symlink(join(root, 'outside'), inWorkspace('linked-dir'));
      const observation = await grepTool.execute(grepTool.toAction({ pattern: 'needle = 1' }), ctx);
      expect(observation.matches).toEqual([]);
      const outside = await grepTool.execute(grepTool.toAction({ pattern: 'needle', path: join(root, 'outside') }), ctx);
      expect(outside.is_error).toBe(true);
      expect(outside.content[0].text).toContain('outside the workspace');
    });

    it('searches a single file when path is one', async () => {
      const observation = await grepTool.execute(grepTool.toAction({ pattern: 'NEEDLE', path: inWorkspace('src', 'new.ts') }), ctx);
      expect(observation.matches).toEqual([inWorkspace('src', 'new.ts')]);
    });

    it('rejects an invalid regular expression in toAction', () => {
      expect(() => grepTool.toAction({ pattern: '(unclosed' })).toThrow(ToolArgumentError);
      expect(() => grepTool.toAction({ pattern: '(unclosed' })).toThrow(/not a valid regular expression/);
      expect(() => grepTool.toAction({})).toThrow(/"pattern" is required/);
      expect(compileSearchPattern('(?is)a.b').flags).toBe('ims');
    });
  });
});
