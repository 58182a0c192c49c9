import { NotFoundCard } from '@/components/ui/not-found-card';
import { StoreName } from '@/components/ui/store-place';
import { getRuntime } from '@/server/runtime';
import { storePlace } from '@/server/config/store-place';

export default function RunNotFound() {
  const store = storePlace(getRuntime().config);
  return (
    <NotFoundCard
      testId="run-not-found"
      title="Run not found"
      links={[
        { href: '/runs', label: 'All runs' },
        { href: '/', label: 'Start a run', primary: true },
      ]}
    >
      No run with this id is stored in <StoreName store={store} />. It may have been started against another store.
    </NotFoundCard>
  );
}
