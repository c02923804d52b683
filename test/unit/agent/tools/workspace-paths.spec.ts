import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveInWorkspace, WorkspacePathError } from '../../../../src/agent/tools/workspace-paths.js';

describe('resolveInWorkspace', () => {
  let root: string;
  let realWorkspace: string;
  let linkedWorkspace: string;

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'workspace-paths-')));
    realWorkspace = join(root, 'real-workspace');
    linkedWorkspace = join(root, 'linked-workspace');
    await mkdir(join(realWorkspace, 'src'), { recursive: true });
    await symlink(realWorkspace, linkedWorkspace);
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('accepts paths through a workspace that is itself reached by a symbolic link, either name', async () => {
    const viaLink = await resolveInWorkspace(linkedWorkspace, join(linkedWorkspace, 'src'));
    expect(viaLink).toEqual({ displayPath: join(linkedWorkspace, 'src'), realPath: join(realWorkspace, 'src'), exists: true });
    const viaReal = await resolveInWorkspace(linkedWorkspace, join(realWorkspace, 'src', 'new.ts'));
    expect(viaReal).toEqual({ displayPath: join(realWorkspace, 'src', 'new.ts'), realPath: join(realWorkspace, 'src', 'new.ts'), exists: false });
  });

  it('resolves paths that do not exist yet through their existing parents', async () => {
    const resolved = await resolveInWorkspace(realWorkspace, join(realWorkspace, 'a', 'b', 'c.txt'));
    expect(resolved).toEqual({ displayPath: join(realWorkspace, 'a', 'b', 'c.txt'), realPath: join(realWorkspace, 'a', 'b', 'c.txt'), exists: false });
  });

  it('refuses relative paths, the parent of the workspace and a sibling sharing its name prefix', async () => {
    await expect(resolveInWorkspace(realWorkspace, 'src')).rejects.toThrow(WorkspacePathError);
    await expect(resolveInWorkspace(realWorkspace, root)).rejects.toThrow(/outside the workspace/);
    await mkdir(`${realWorkspace}-sibling`);
    await expect(resolveInWorkspace(realWorkspace, `${realWorkspace}-sibling/x`)).rejects.toThrow(/outside the workspace/);
  });

  it('refuses a chain of links that ends outside', async () => {
    await symlink(join(root, 'elsewhere', 'target'), join(realWorkspace, 'hop2'));
    await symlink(join(realWorkspace, 'hop2'), join(realWorkspace, 'hop1'));
    await expect(resolveInWorkspace(realWorkspace, join(realWorkspace, 'hop1'))).rejects.toThrow(/outside the workspace/);
  });

  it('creates a workspace that does not exist yet', async () => {
    const fresh = join(root, 'fresh');
    await expect(resolveInWorkspace(fresh, join(fresh, 'file.txt'))).resolves.toMatchObject({ exists: false });
  });
});
