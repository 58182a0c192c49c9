import { resumeText, resumeTitle } from '@/lib/resume';
import type { ResumeView } from '@/lib/run-state';

/** Each time the run was taken over after its process died: the attempt, and what went on from where, and why. */
export function ResumeNote({ resumes }: { resumes: readonly ResumeView[] }) {
  if (resumes.length === 0) return null;
  return (
    <section aria-label="Resumed" data-testid="resume-note" className="space-y-1 rounded border border-amber-300 bg-white px-3 py-2 text-xs dark:border-amber-800 dark:bg-zinc-900">
      {resumes.map((r) => (
        <p key={r.attempt}>
          <span aria-hidden className="mr-1 text-amber-700 dark:text-amber-300">↻</span>
          <span className="font-medium">{resumeTitle(r)}</span> <span className="muted">{resumeText(r)}</span>
        </p>
      ))}
    </section>
  );
}
