import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { RequestError } from '../errors';
import type { PendingArtifact } from '../store/artifact';
import type { BundleCheckSettings } from '../../lib/bundle';
import type { BundleRefusal, CheckedBundle, ImportRequest } from './check';

const CHECK_WORKER_ENTRY = 'server/run-bundles/check-worker.mjs';

type Answer = { ok: true; checked: CheckedBundle } | { ok: false; refusal: BundleRefusal };

/**
 * Checks bundles on worker threads, off the thread that serves every
 * request: parsing and folding a bundle of thousands of calls takes
 * seconds, and on the main thread every other request would wait for it. A
 * fixed number of threads, kept between imports, and a bounded queue in
 * front of them, so that many imports at once neither start a thread each
 * nor wait without end.
 */
export class BundleCheckPool {
  private readonly idle: Worker[] = [];
  private readonly waiting: (() => void)[] = [];
  private working = 0;
  private closed = false;

  /**
   * The thread's entry, in the app's tree, compiled by tsx as it starts: a
   * path known only at run time, so that the server's bundler does not pull
   * the entry (and tsx) into its own bundle.
   */
  private readonly entry: string;

  constructor(
    appRoot: string,
    readonly settings: BundleCheckSettings,
  ) {
    this.entry = path.join(appRoot, CHECK_WORKER_ENTRY);
  }

  async check(text: string, request: ImportRequest): Promise<CheckedBundle> {
    await this.take();
    try {
      return await this.run(text, request);
    } finally {
      this.give();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((w) => w.terminate()));
  }

  private async take(): Promise<void> {
    if (this.working < this.settings.threads) {
      this.working++;
      return;
    }
    if (this.waiting.length >= this.settings.queue) {
      throw new RequestError(
        'bundle_import_busy',
        `${this.settings.threads + this.waiting.length} bundle imports are being checked or waiting (PLANSCOPE_BUNDLE_IMPORTS, PLANSCOPE_BUNDLE_IMPORT_QUEUE): try again shortly.`,
      );
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** The thread slot passes to the next waiting import, if any. */
  private give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.working--;
  }

  private run(text: string, request: ImportRequest): Promise<CheckedBundle> {
    const worker = this.idle.pop() ?? new Worker(this.entry);
    worker.ref();
    return new Promise<CheckedBundle>((resolve, reject) => {
      const done = (settle: () => void, keep: boolean) => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (keep && !this.closed) {
          worker.unref();
          this.idle.push(worker);
        } else void worker.terminate();
        settle();
      };
      const timer = setTimeout(
        () =>
          done(
            () =>
              reject(
                new RequestError('bundle_limit_exceeded', `Checking the bundle took longer than ${this.settings.timeoutMs} ms (PLANSCOPE_BUNDLE_CHECK_TIMEOUT_MS).`),
              ),
            false,
          ),
        this.settings.timeoutMs,
      );
      const onMessage = (answer: Answer) =>
        done(() => (answer.ok ? resolve(withBuffers(answer.checked)) : reject(new RequestError(answer.refusal.code, answer.refusal.message))), true);
      const onError = (error: Error) => done(() => reject(error), false);
      const onExit = (code: number) => done(() => reject(new Error(`The bundle-check thread exited with code ${code}.`)), false);
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage({ text, limits: this.settings.limits, request });
    });
  }
}

/** Buffers cross threads as plain bytes: made Buffers again for the store. */
function withBuffers(checked: CheckedBundle): CheckedBundle {
  const buffers = (artifacts: readonly PendingArtifact[]) => artifacts.map((a) => ({ ...a, buffer: Buffer.from(a.buffer.buffer, a.buffer.byteOffset, a.buffer.byteLength) }));
  return { ...checked, artifacts: buffers(checked.artifacts), replays: checked.replays.map((r) => ({ ...r, artifacts: buffers(r.artifacts) })) };
}
