/**
 * Privacy in the import service: the report rows (a failed or duplicate row's original cells) that
 * hold a person's email, exported, or blanked in place (job, row number and kind stay; the values
 * become "[erased]"), with the first entries an ended job shows on itself. A report is read in row
 * order a page at a time, so a big one is never held whole.
 */
import type { ImportJobDocument } from '../domain/import-job';
import type { ImportReportRowDocument } from '../store/collections';
import type { PersonRowsRepository } from '../store/person-rows-repository';

export const ERASED = '[erased]';

export interface PersonRow {
  jobId: string;
  row: number;
  kind: string;
  message: string;
  cells: string[];
}

export class PersonRows {
  constructor(private readonly repo: PersonRowsRepository) {}

  async export(workspaceId: string, email: string): Promise<PersonRow[]> {
    const found: PersonRow[] = [];
    await this.eachRowOf(workspaceId, keyOf(email), async (row) => {
      found.push({ jobId: row.jobUid, row: row.row, kind: row.kind, message: row.message, cells: row.cells });
    });
    return found;
  }

  /** How many report rows were blanked. */
  async erase(workspaceId: string, email: string): Promise<number> {
    const key = keyOf(email);
    let count = 0;
    await this.eachRowOf(workspaceId, key, async (row) => {
      await this.repo.blankRow(workspaceId, row, ERASED);
      count++;
    });
    for (const job of await this.repo.jobs(workspaceId)) {
      const kept = blankedKeptReport(job, key);
      if (kept) await this.repo.setKeptReport(workspaceId, job, kept);
    }
    return count;
  }

  private async eachRowOf(workspaceId: string, key: string, visit: (row: ImportReportRowDocument) => Promise<void>): Promise<void> {
    if (!key) return;
    for (const job of await this.repo.jobs(workspaceId)) {
      for (let after = -1; ;) {
        const page = await this.repo.rows(workspaceId, job.id, after);
        for (const row of page) if (holds(row, key)) await visit(row);
        if (page.length === 0) break;
        after = page[page.length - 1]!.row;
      }
    }
  }
}

function keyOf(email: string): string {
  return (email ?? '').trim().toLowerCase();
}

/** A failed or duplicate row with the email as a cell (or as the duplicate's email, or inside its message). */
function holds(row: ImportReportRowDocument, key: string): boolean {
  if (row.kind === 'header') return false;
  return row.cells.some((cell) => cell.trim().toLowerCase() === key) || row.message.toLowerCase().includes(key);
}

/** An ended job's kept first entries with the person's blanked; null when none held them. */
function blankedKeptReport(job: ImportJobDocument, key: string): Pick<ImportJobDocument, 'errors' | 'duplicates'> | null {
  let changed = false;
  const duplicates = job.duplicates?.map((d) => {
    if (d.email.toLowerCase() !== key) return d;
    changed = true;
    return { ...d, email: ERASED };
  });
  const errors = job.errors?.map((e) => {
    if (!e.message.toLowerCase().includes(key)) return e;
    changed = true;
    return { ...e, message: ERASED };
  });
  return changed ? { errors: errors ?? null, duplicates: duplicates ?? null } : null;
}
