import { REQUEST_ERROR_STATUS, type RequestErrorCode } from '../../lib/codes';

/** A refused request: a stable code, a message for people, and the HTTP status it maps to. */
export class RequestError extends Error {
  override name = 'RequestError';
  constructor(
    readonly code: RequestErrorCode,
    message: string,
  ) {
    super(message);
  }

  get status(): number {
    return REQUEST_ERROR_STATUS[this.code];
  }
}
