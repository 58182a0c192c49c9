import { NotFoundCard } from '@/components/ui/not-found-card';

export default function RunNotFound() {
  return (
    <NotFoundCard
      testId="run-not-found"
      title="Run not found"
      links={[
        { href: '/runs', label: 'All runs' },
        { href: '/', label: 'Start a run', primary: true },
      ]}
    >
      No run with this id is stored in this planscope&apos;s data directory. It may have been started against another
      <code className="mx-1 font-mono text-xs">PLANSCOPE_DATA_DIR</code>.
    </NotFoundCard>
  );
}
