// bench/figures.md, the one file of the project's figures: each measuring script writes its own
// section (between `<!-- figures:NAME -->` and `<!-- /figures:NAME -->`), leaving the others as
// they are, so the file is never edited by hand and no README copies a figure.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** The file. */
export const figuresFile = new URL('../figures.md', import.meta.url);

const header = `# Figures

Every figure of the project, each section written by the command it names; never edited by hand.
How each is measured, and the targets: [README.md](README.md).
`;

/**
 * Writes section `name` of bench/figures.md: a heading, the command and the day it ran, then
 * `body` (Markdown). The other sections stay.
 *
 * @param {string} name @param {{ title: string; command: string; body: string }} section
 */
export function writeFiguresSection(name, { title, command, body }) {
  const text = existsSync(figuresFile) ? readFileSync(figuresFile, 'utf8') : header;
  const open = `<!-- figures:${name} -->`;
  const close = `<!-- /figures:${name} -->`;
  const day = new Date().toISOString().slice(0, 10);
  const section = `${open}\n## ${title}\n\n\`${command}\`, ${day}.\n\n${body.trim()}\n${close}`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  const next =
    start === -1 || end === -1
      ? `${text.trimEnd()}\n\n${section}\n`
      : `${text.slice(0, start)}${section}${text.slice(end + close.length)}`;
  writeFileSync(figuresFile, next);
}
