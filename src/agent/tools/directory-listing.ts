import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Directories listed by name but not opened: their content is rarely what the agent is after, and huge. */
const NOT_EXPANDED = new Set(['node_modules', '__pycache__']);

export type DirectoryListing = { text: string; entryCount: number };

/**
 * Lists a directory two levels deep, like `find -maxdepth 2` without hidden entries (names starting
 * with '.'), directories marked with a trailing '/'.
 * Symbolic links are listed, never followed, so the listing cannot leave the directory.
 */
export async function listDirectory(realDir: string, displayDir: string, maxEntries: number): Promise<DirectoryListing> {
  const lines: string[] = [];
  let hidden = 0;
  let total = 0;

  async function walk(real: string, display: string, depth: number): Promise<void> {
    let entries;
    try {
      entries = await readdir(real, { withFileTypes: true });
    } catch {
      lines.push(`${display}/ (cannot be read)`);
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) {
        hidden += 1;
        continue;
      }
      total += 1;
      const shown = join(display, entry.name);
      const isDirectory = entry.isDirectory();
      if (lines.length < maxEntries) lines.push(isDirectory ? `${shown}/` : shown);
      if (isDirectory && depth < 2 && !NOT_EXPANDED.has(entry.name)) await walk(join(real, entry.name), shown, depth + 1);
    }
  }

  await walk(realDir, displayDir, 1);
  const header = `Files and directories up to 2 levels deep in ${displayDir}, hidden items excluded:`;
  const notes: string[] = [];
  if (total > lines.length) notes.push(`[${total - lines.length} more entries not shown; view a subdirectory to see them.]`);
  if (hidden > 0) notes.push(`[${hidden} hidden entries (names starting with '.') not shown; use \`ls -la\` in the terminal to see them.]`);
  if (total === 0) lines.push('(empty)');
  return { text: [header, `${displayDir}/`, ...lines, ...notes].join('\n'), entryCount: total };
}
