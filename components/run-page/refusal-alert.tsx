import type { ErrorInfo } from '@/lib/codes';
import type { Rejection } from '@/lib/events';
import { Code } from '../ui/panel';
import { RejectionItem } from './plan-editor';

/** A refused decision or fork: its code and message, and a refused plan's rejections (`<prefix>-refusal`, `<prefix>-rejection` for tests). */
export function RefusalAlert({ refusal, prefix }: { refusal: { error: ErrorInfo; rejections: Rejection[] }; prefix: string }) {
  return (
    <div role="alert" data-testid={`${prefix}-refusal`} className="alert">
      <Code>{refusal.error.code}</Code> <span className="break-anywhere">{refusal.error.message}</span>
      {refusal.rejections.length > 0 && (
        <ul className="mt-1">
          {refusal.rejections.map((r, i) => (
            <RejectionItem key={i} rejection={r} prefix={prefix} />
          ))}
        </ul>
      )}
    </div>
  );
}
