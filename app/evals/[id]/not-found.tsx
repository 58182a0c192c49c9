import { NotFoundCard } from '@/components/ui/not-found-card';
import { StoreName } from '@/components/ui/store-place';
import { getRuntime } from '@/server/runtime';
import { storePlace } from '@/server/config/store-place';

export default function EvalNotFound() {
  const store = storePlace(getRuntime().config);
  return (
    <NotFoundCard testId="eval-not-found" title="Evaluation not found" links={[{ href: '/evals', label: 'All evaluations' }]}>
      No evaluation with this id is stored in <StoreName store={store} />. It may have been run against another store.
    </NotFoundCard>
  );
}
