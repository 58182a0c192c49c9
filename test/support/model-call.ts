import { createServer } from 'node:net';
import { expect } from 'vitest';
import { ModelCallError } from '../../server/llm/types';

/** The ModelCallError a call failed with; fails the test when it did not fail with one. */
export async function failureOf(call: Promise<unknown>): Promise<ModelCallError> {
  const err: unknown = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelCallError);
  return err as ModelCallError;
}

/** A port nothing listens on: bind one, then let it go. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
