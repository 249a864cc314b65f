import { useLayoutEffect, useRef, type RefObject } from 'react';

/** The first row a scrolled reader sees, and where it is on the screen; none at the top of the page. */
function firstVisibleRow(tbody: HTMLTableSectionElement | null): { id: string; top: number } | undefined {
  if (!tbody || window.scrollY === 0) return undefined;
  for (const row of Array.from(tbody.rows)) {
    const top = row.getBoundingClientRect().top;
    if (top >= 0) return { id: row.dataset.runId ?? '', top };
  }
  return undefined;
}

/**
 * Keeps the row a scrolled reader looks at where it is when rows are added
 * above it (decision 0029, "no layout jump"); at the top of the page new rows
 * push the others down, as a live feed does.
 */
export function useRowAnchor(tbody: RefObject<HTMLTableSectionElement | null>, rowIds: string) {
  const anchor = useRef<{ id: string; top: number } | undefined>(undefined);
  // Measured while rendering, that is before React changes the rows.
  anchor.current = firstVisibleRow(tbody.current);
  useLayoutEffect(() => {
    const was = anchor.current;
    const row = was && tbody.current?.querySelector<HTMLElement>(`tr[data-run-id="${was.id}"]`);
    if (!was || !row) return;
    const moved = row.getBoundingClientRect().top - was.top;
    if (moved !== 0) window.scrollBy(0, moved);
  }, [rowIds, tbody]);
}
