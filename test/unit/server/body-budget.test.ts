import { describe, expect, it } from 'vitest';
import { bodyBytesInFlight, MAX_BODY_BYTES_IN_FLIGHT, readTextBody } from '../../../server/http/respond';
import { RequestError } from '../../../server/errors';

/**
 * The bound on request bodies being read at once, across every route: a
 * declared length is reserved before the first byte, a body of unknown
 * length as it arrives; one that does not fit is refused `server_busy` (503)
 * and what was reserved is given back however the read ends.
 */

const MIB = 1024 * 1024;
const tooLarge = () => new RequestError('payload_too_large', 'too large');

/** A request whose body sends `chunks` MiB, then waits until `finish()` ends it (or the reader cancels). */
function slowRequest(declaredMiB: number | null, chunks: number) {
  let finish: () => void = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < chunks; i++) controller.enqueue(new Uint8Array(MIB).fill(0x20));
      finish = () => {
        try {
          controller.close();
        } catch {
          // Cancelled already.
        }
      };
    },
  });
  const headers: Record<string, string> = declaredMiB === null ? {} : { 'content-length': String(declaredMiB * MIB) };
  const request = new Request('http://127.0.0.1/api/runs/import', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
  return { request, finish: () => finish() };
}

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    (text) => ({ ok: true as const, length: (text as string).length }),
    (error: unknown) => ({ ok: false as const, code: (error as RequestError).code, status: (error as RequestError).status }),
  );

describe('request bodies being read at once are bounded', () => {
  it('declared lengths are reserved up front: a body that does not fit beside the others is refused server_busy, and fits once they are read', async () => {
    expect(bodyBytesInFlight()).toBe(0);
    const first = slowRequest(60, 1);
    const second = slowRequest(60, 1);
    const reading = [outcome(readTextBody(first.request, 64 * MIB, tooLarge)), outcome(readTextBody(second.request, 64 * MIB, tooLarge))];
    expect(bodyBytesInFlight()).toBe(120 * MIB);
    const third = slowRequest(16, 16);
    third.finish();
    expect(await outcome(readTextBody(third.request, 64 * MIB, tooLarge))).toEqual({ ok: false, code: 'server_busy', status: 503 });
    expect(bodyBytesInFlight()).toBe(120 * MIB);
    first.finish();
    second.finish();
    // Each sent 1 of the 60 MiB it declared: what arrived is what is read.
    expect(await Promise.all(reading)).toEqual([
      { ok: true, length: MIB },
      { ok: true, length: MIB },
    ]);
    expect(bodyBytesInFlight()).toBe(0);
    const again = slowRequest(16, 16);
    again.finish();
    expect(await outcome(readTextBody(again.request, 64 * MIB, tooLarge))).toEqual({ ok: true, length: 16 * MIB });
  });

  it('a body of unknown length counts as it arrives and is refused once it would pass the bound', async () => {
    const held = slowRequest(MAX_BODY_BYTES_IN_FLIGHT / MIB - 8, 0);
    const holding = outcome(readTextBody(held.request, MAX_BODY_BYTES_IN_FLIGHT, tooLarge));
    const chunked = slowRequest(null, 12);
    chunked.finish();
    expect(await outcome(readTextBody(chunked.request, 64 * MIB, tooLarge))).toEqual({ ok: false, code: 'server_busy', status: 503 });
    held.finish();
    expect(await holding).toEqual({ ok: true, length: 0 });
    expect(bodyBytesInFlight()).toBe(0);
  });

  it('a body over the route\'s own limit is refused with the route\'s code, and gives back what it held', async () => {
    const declared = slowRequest(65, 0);
    expect(await outcome(readTextBody(declared.request, 64 * MIB, tooLarge))).toEqual({ ok: false, code: 'payload_too_large', status: 413 });
    const undeclared = slowRequest(null, 3);
    undeclared.finish();
    expect(await outcome(readTextBody(undeclared.request, 2 * MIB, tooLarge))).toEqual({ ok: false, code: 'payload_too_large', status: 413 });
    expect(bodyBytesInFlight()).toBe(0);
  });
});
