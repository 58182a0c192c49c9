import { describe, expect, it } from 'vitest';
import { reportExportFailures } from '../../../server/telemetry/export-failures';

/** An exporter that answers each batch with the next result of its script. */
function scripted(results: { code: number; error?: Error }[]) {
  return {
    sent: [] as string[],
    export(items: string, done: (result: { code: number; error?: Error }) => void) {
      this.sent.push(items);
      done(results.shift() ?? { code: 0 });
    },
  };
}

describe('reportExportFailures', () => {
  it('says the first failure once, then that exports work again with how many batches were dropped', () => {
    const said: string[] = [];
    const exporter = reportExportFailures(scripted([{ code: 0 }, { code: 1, error: new Error('Bad Request') }, { code: 1 }, { code: 0 }, { code: 0 }]), 'trace', 'http://collector/v1/traces', (line) => said.push(line));
    const results: number[] = [];
    for (const batch of ['a', 'b', 'c', 'd', 'e']) exporter.export(batch, (r) => results.push(r.code));
    expect(exporter.sent).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(results).toEqual([0, 1, 1, 0, 0]);
    expect(said).toEqual([
      'planscope: OTLP trace export to http://collector/v1/traces failed, the batch is dropped: Bad Request\n',
      'planscope: OTLP trace export to http://collector/v1/traces works again (2 batches dropped).\n',
    ]);
  });
});
