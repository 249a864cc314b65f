import { lazy, Suspense } from 'react';

// Its own chunk, with the chart library: the fleet's first render does not load either.
const OverviewPage = lazy(() => import('./overview').then((module) => ({ default: module.OverviewPage })));

/** The `/overview` route: the operations overview, loaded when first opened (decision 0036). */
export function OverviewRoute() {
  return (
    <Suspense fallback={<p className="loading">Loading…</p>}>
      <OverviewPage />
    </Suspense>
  );
}
