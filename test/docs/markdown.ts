// What the doc tests read out of README.md and docs/*.md: headings and their GitHub anchors,
// relative links, and the shell commands of ```sh blocks. Generic on purpose: a new docs/*.md is
// checked as soon as it exists.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, docFiles } from '../../bench/doc-tables.js';

export { ROOT };

export interface Doc {
  path: string;
  text: string;
  lines: string[];
}

/** README.md and every docs/*.md. */
export function docs(): Doc[] {
  return docFiles().map((path) => {
    const text = readFileSync(join(ROOT, path), 'utf8');
    return { path, text, lines: text.split('\n') };
  });
}

const FENCE = /^\s*(```|~~~)/;

/** The doc's lines with fenced code blocks blanked out (so that code is never read as prose). */
export function proseLines(doc: Doc): string[] {
  let inFence = false;
  return doc.lines.map((line) => {
    if (FENCE.test(line)) {
      inFence = !inFence;
      return '';
    }
    return inFence ? '' : line;
  });
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

export interface Heading {
  text: string;
  anchor: string;
  line: number;
}

/** The doc's headings in order, each with its anchor (a repeated one gets -1, -2 as on GitHub). */
export function headings(doc: Doc): Heading[] {
  const seen = new Map<string, number>();
  const out: Heading[] = [];
  proseLines(doc).forEach((line, i) => {
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) return;
    const base = slug(m[2]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.push({ text: m[2]!.replace(/`/g, ''), anchor: n ? `${base}-${n}` : base, line: i + 1 });
  });
  return out;
}

export interface Link {
  target: string;
  line: number;
}

/** Markdown links and images whose target is not a URL with a scheme, code spans left out. */
export function relativeLinks(doc: Doc): Link[] {
  const out: Link[] = [];
  proseLines(doc).forEach((line, i) => {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) out.push({ target, line: i + 1 });
    }
  });
  return out;
}

export interface ShellCommand {
  command: string;
  line: number;
}

/**
 * The commands of the doc's ```sh (bash, shell, console) blocks, one per logical line: a
 * trailing backslash, an indented line (usage text wrapped over lines) and a heredoc's body
 * join the command they continue; comment lines and trailing `  # …` comments are left out,
 * and runs of whitespace read as one space.
 */
export function shellCommands(doc: Doc): ShellCommand[] {
  const out: ShellCommand[] = [];
  let inShell = false;
  let inOther = false;
  let current: ShellCommand | undefined;
  let heredoc: string | undefined;
  let indent = '';
  const flush = (): void => {
    if (current) out.push({ command: current.command.replace(/\s+/g, ' ').trim(), line: current.line });
    current = undefined;
  };
  doc.lines.forEach((line0, i) => {
    const fence = /^(\s*)```\s*([\w-]*)/.exec(line0);
    if (fence && !heredoc) {
      if (inShell || inOther) {
        flush();
        inShell = inOther = false;
      } else if (/^(sh|bash|shell|console|zsh)$/.test(fence[2]!)) inShell = true;
      else inOther = true;
      indent = fence[1]!;
      return;
    }
    if (!inShell) return;
    // A block inside a list item is indented as a whole: its own indentation is not continuation.
    const raw = line0.startsWith(indent) ? line0.slice(indent.length) : line0;
    if (heredoc !== undefined) {
      current!.command += ` ${raw}`;
      if (raw.trim() === heredoc) heredoc = undefined;
      return;
    }
    const line = raw.replace(/\s+#\s.*$/, '');
    if (/^\s*#/.test(raw) || line.trim() === '') {
      flush();
      return;
    }
    const continues = current !== undefined && (current.command.endsWith('\\') || /^\s+/.test(raw));
    if (continues) current!.command = `${current!.command.replace(/\\$/, '')} ${line}`;
    else {
      flush();
      current = { command: line, line: i + 1 };
    }
    const here = /<<-?\s*['"]?(\w+)['"]?/.exec(line);
    if (here) heredoc = here[1];
  });
  flush();
  return out;
}

export function exists(path: string): boolean {
  return existsSync(join(ROOT, path));
}
