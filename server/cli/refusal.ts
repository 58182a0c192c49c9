import { ExitCode, type ErrorCode } from '../../lib/codes';
import { isRequestError } from '../errors';
import { printable } from './terminal-text';

/** A refusal as the CLI says it: `planscope: <code>: <message>` on stderr, and exit 1. */
export function printRefusal(code: ErrorCode, message: string): number {
  process.stderr.write(`planscope: ${code}: ${printable(message)}\n`);
  return ExitCode.failed;
}

/** `command`'s exit code, a refusal it throws (a RequestError) printed as one; anything else is thrown on. */
export async function refusalPrinted(command: () => Promise<number>): Promise<number> {
  try {
    return await command();
  } catch (error) {
    if (!isRequestError(error)) throw error;
    return printRefusal(error.code, error.message);
  }
}
