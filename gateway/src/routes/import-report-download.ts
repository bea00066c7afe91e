/**
 * `GET /api/crm/contacts/import-jobs/{uid}/errors/`: the job's whole report as `text/csv`, streamed
 * page by page from the import service (GetImportReportPage), each page written only once the
 * client has taken the previous one, so the gateway holds one page whatever the report's size.
 */
import type { Request, Response } from 'express';
import type { Logger } from '@crm/observability';
import type { ImportClient } from '../clients/import-client';
import { callerContext } from '../request-context';

/** Resolves when the response can take more, or is gone. */
function writable(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

export function importReportDownload(client: ImportClient, logger: Logger, timeoutMs: number) {
  return async (req: Request, res: Response): Promise<void> => {
    const uid = String(req.params.job_uid);
    const context = callerContext(res);
    // The first page before any header: an unknown job is still an ordinary 404.
    let page = await client.call('GetImportReportPage', { uid, afterRow: -1 }, context, { timeoutMs });
    res.status(200);
    res.setHeader('content-type', 'text/csv; charset=utf-8');
    res.setHeader('content-disposition', `attachment; filename="import-${uid}-report.csv"`);
    try {
      for (;;) {
        if (!res.write(page.csv)) await writable(res);
        if (page.done || res.destroyed) break;
        page = await client.call('GetImportReportPage', { uid, afterRow: page.lastRow }, context, { timeoutMs });
      }
      res.end();
    } catch (err) {
      // The status line is gone: all that is left is to cut the body short, so the client sees it incomplete.
      logger.warn({ err, jobUid: uid }, 'import report download cut short');
      res.destroy();
    }
  };
}
