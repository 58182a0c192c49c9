/** What an OTLP exporter hands its callback: `code` 0 for success, 1 for failure (the SDK's ExportResultCode). */
interface ExportResult {
  code: number;
  error?: Error;
}

interface Exporter<T> {
  export(items: T, done: (result: ExportResult) => void): void;
}

/** How often a failure that goes on is said again. */
const REPEAT_AFTER_MS = 5 * 60_000;

/**
 * The SDK drops a batch it could not send and says so only to a diagnostic
 * logger nobody has set: a collector that is down would go unnoticed. Said
 * on the first failure, every five minutes while failures go on, and once
 * when an export works again. The batch itself stays dropped: telemetry
 * never holds runs back.
 */
export function reportExportFailures<T, E extends Exporter<T>>(exporter: E, what: string, url: string, write: (line: string) => void = (line) => process.stderr.write(line)): E {
  const send = exporter.export.bind(exporter);
  /** Batches dropped since the last export that worked. */
  let dropped = 0;
  let saidAt = 0;
  exporter.export = (items: T, done: (result: ExportResult) => void) =>
    send(items, (result) => {
      if (result.code === 0) {
        if (dropped > 0) write(`planscope: OTLP ${what} export to ${url} works again (${dropped} batch${dropped === 1 ? '' : 'es'} dropped).\n`);
        dropped = 0;
      } else {
        const now = Date.now();
        if (dropped === 0 || now - saidAt >= REPEAT_AFTER_MS) {
          write(`planscope: OTLP ${what} export to ${url} failed, the batch is dropped: ${result.error?.message ?? 'no reason given'}\n`);
          saidAt = now;
        }
        dropped += 1;
      }
      done(result);
    });
  return exporter;
}
