/**
 * Reader threads: every vCard file, PDF and recognised text of the synchronous import is read in a
 * worker thread of its own, never on the service's event loop, so one hostile upload cannot stall
 * the service for every workspace. Each thread has a heap ceiling (resourceLimits) and is
 * terminated past the time limit; PDFs also have their decompressed bytes counted before PDF.js
 * opens them (pdf-inflated-size.ts), since its buffers are outside the heap. Per kind of file at
 * most `atOnce` threads run and `waiting` more wait their turn; beyond that the answer is
 * `unavailable` (503 with Retry-After), so a burst of uploads cannot pile threads and memory up.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DomainError, type ErrorKind } from '@crm/observability';
import { unreadableFile } from '../../domain/contact-file-kind';
import { RecognitionTurns } from '../ocr/recognition-turns';
import type { FileReadLimits, ReadContact, ThreadReadKind } from './file-reading';

export interface ReaderThreadLimits extends FileReadLimits {
  /** Threads of one kind running at once. */
  atOnce: number;
  /** Reads of one kind waiting for a thread; more are refused as unavailable. */
  waiting: number;
  /** Old-generation heap of one thread, MB. */
  heapMb: number;
  /** One read, from the thread's start. */
  timeoutMs: number;
  /** Reads of one kind one workspace may have running or waiting: the others keep room in the line. */
  perWorkspace: number;
}

export interface FileReader {
  /** `workspaceId`: whose file it is (a workspace's share of the line is limited). */
  read(kind: ThreadReadKind, content: Uint8Array, signal?: AbortSignal, workspaceId?: string): Promise<ReadContact[]>;
}

const WHAT: Record<ThreadReadKind, string> = { vcard: 'vCard files', pdf: 'PDFs', text: 'recognised card texts' };

export class ReaderThreads implements FileReader {
  private readonly turns = new Map<ThreadReadKind, RecognitionTurns>();
  /** `kind workspace` → its reads running or waiting. */
  private readonly shares = new Map<string, number>();

  /** `script`: the thread's entry (specs pass one of their own). */
  constructor(
    private readonly limits: ReaderThreadLimits,
    private readonly script = join(__dirname, 'reader-thread.js'),
  ) {}

  async read(kind: ThreadReadKind, content: Uint8Array, signal?: AbortSignal, workspaceId?: string): Promise<ReadContact[]> {
    let turns = this.turns.get(kind);
    if (!turns) {
      turns = new RecognitionTurns(this.limits.atOnce, this.limits.waiting, `Reading ${WHAT[kind]} is busy; try again shortly.`);
      this.turns.set(kind, turns);
    }
    if (workspaceId === undefined) return turns.run(() => this.inThread(kind, content), signal);
    const share = `${kind} ${workspaceId}`;
    const held = this.shares.get(share) ?? 0;
    if (held >= this.limits.perWorkspace) {
      throw new DomainError('unavailable', `This workspace is already importing ${WHAT[kind]}; try again shortly.`);
    }
    this.shares.set(share, held + 1);
    try {
      return await turns.run(() => this.inThread(kind, content), signal);
    } finally {
      const left = (this.shares.get(share) ?? 1) - 1;
      if (left > 0) this.shares.set(share, left);
      else this.shares.delete(share);
    }
  }

  private inThread(kind: ThreadReadKind, content: Uint8Array): Promise<ReadContact[]> {
    const { maxContacts, pdfPages, pdfInflatedBytes, heapMb, timeoutMs } = this.limits;
    return new Promise((resolve, reject) => {
      const worker = new Worker(this.script, {
        workerData: { kind, content, limits: { maxContacts, pdfPages, pdfInflatedBytes } },
        resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: Math.min(32, Math.ceil(heapMb / 8)) },
        stdout: false,
        stderr: false,
      });
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
        void worker.terminate();
      };
      const timer = setTimeout(
        () => settle(() => reject(unreadableFile(`The file could not be read within ${timeoutMs / 1000} s.`))),
        timeoutMs,
      );
      worker.once('message', (answer: { contacts?: ReadContact[]; error?: { kind: ErrorKind; message: string } }) =>
        settle(() => (answer.contacts ? resolve(answer.contacts) : reject(new DomainError(answer.error!.kind, answer.error!.message)))),
      );
      worker.once('error', (error: Error & { code?: string }) =>
        settle(() =>
          reject(
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? unreadableFile('The file needs more memory to read than the import allows.')
              : unreadableFile(`The file could not be read: ${error.message}`),
          ),
        ),
      );
      worker.once('exit', () => settle(() => reject(unreadableFile('The file could not be read.'))));
    });
  }
}
