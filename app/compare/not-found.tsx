import { NotFoundCard } from '@/components/ui/not-found-card';

export default function CompareNotFound() {
  return (
    <NotFoundCard
      testId="compare-not-found"
      title="Run not found"
      links={[
        { href: '/compare', label: 'Compare runs' },
        { href: '/runs', label: 'All runs' },
      ]}
    >
      At least one of the run ids in this address (<code className="font-mono text-xs">a</code> or{' '}
      <code className="font-mono text-xs">b</code>) names no run stored in this planscope&apos;s data directory.
    </NotFoundCard>
  );
}
