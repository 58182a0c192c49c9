import { NotFoundCard } from '@/components/ui/not-found-card';

export default function EvalNotFound() {
  return (
    <NotFoundCard testId="eval-not-found" title="Evaluation not found" links={[{ href: '/evals', label: 'All evaluations' }]}>
      No evaluation with this id is stored in this planscope&apos;s data directory. It may have been run against another
      <code className="mx-1 font-mono text-xs">PLANSCOPE_DATA_DIR</code>.
    </NotFoundCard>
  );
}
