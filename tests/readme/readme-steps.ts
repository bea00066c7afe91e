/** Reads the README the way a newcomer does: a section, its first shell block, its commands. */

export interface ShellStep {
  /** The comment lines just above the command, joined. */
  comment: string;
  /** The command, continuation lines (ending in `\`) kept as written. */
  command: string;
}

/** The text under `## title`, up to the next `## ` heading. */
export function readmeSection(readme: string, title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no "## ${title}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

export function shellBlock(section: string): string {
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('the section has no ```sh block');
  return match[1]!;
}

export function shellSteps(block: string): ShellStep[] {
  const steps: ShellStep[] = [];
  let comment: string[] = [];
  let command: string[] = [];
  for (const line of block.split('\n')) {
    if (command.length === 0 && line.trim() === '') {
      comment = [];
      continue;
    }
    if (command.length === 0 && line.startsWith('#')) {
      comment.push(line.replace(/^#\s?/, ''));
      continue;
    }
    command.push(line);
    if (!line.endsWith('\\')) {
      steps.push({ comment: comment.join(' '), command: command.join('\n') });
      command = [];
      comment = [];
    }
  }
  return steps;
}
