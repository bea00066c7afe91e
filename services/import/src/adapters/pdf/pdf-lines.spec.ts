import { pageLines, type TextRun } from './pdf-lines';

// PDF.js itself is loaded with a dynamic import that jest refuses, so reading whole files is
// tested through the cluster (tests/import/sync-import.test.ts); here, how runs become lines.
const run = (str: string, x: number, y: number, hasEOL = false): TextRun => ({ str, transform: [1, 0, 0, 1, x, y], hasEOL });

describe('the lines of a PDF page', () => {
  it('joins the runs of one baseline with tabs, so the columns of a list stay apart', () => {
    const items = [
      run('Grace Hopper', 50, 700),
      run(' ', 120, 700),
      run('grace@example.com', 220, 700),
      run('Alan Turing', 50, 680),
      run('alan@example.com', 220, 680),
    ];
    expect(pageLines(items)).toEqual(['Grace Hopper\tgrace@example.com', 'Alan Turing\talan@example.com']);
  });

  it('starts a new line where PDF.js marks an end of line, and drops empty ones', () => {
    const items = [run('Kind regards,', 50, 700, true), run('', 50, 700, true), run('Katherine Johnson', 50, 700)];
    expect(pageLines(items)).toEqual(['Kind regards,', 'Katherine Johnson']);
  });
});
