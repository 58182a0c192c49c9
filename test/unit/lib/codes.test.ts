import { describe, expect, it } from 'vitest';
import { ClientErrorCode, ErrorCode, ErrorInfo, RejectionCode, RequestErrorCode, RunErrorCode, StepErrorCode } from '../../../lib/codes';

describe('ErrorInfo carries only the codes lib/codes.ts defines', () => {
  it('takes every defined code, and nothing else, in the type and in a parse', () => {
    const defined = [RejectionCode, StepErrorCode, RunErrorCode, RequestErrorCode, ClientErrorCode].flatMap((e) => e.options);
    for (const code of defined) expect(ErrorInfo.parse({ code, message: 'm' }).code).toBe(code);
    // @ts-expect-error: the compiler refuses a code lib/codes.ts does not define
    const undefinedCode: ErrorInfo = { code: 'request_boom', message: 'm' };
    expect(ErrorInfo.safeParse(undefinedCode).success).toBe(false);
    expect(ErrorCode.safeParse('').success).toBe(false);
  });
});
