import { NotFoundCard } from '@/components/ui/not-found-card';
import { StoreName } from '@/components/ui/store-place';
import { getRuntime } from '@/server/runtime';
import { storePlace } from '@/server/config/store-place';

export default function CompareNotFound() {
  const store = storePlace(getRuntime().config);
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
      <code className="font-mono text-xs">b</code>) names no run stored in <StoreName store={store} />.
    </NotFoundCard>
  );
}
