/**
 * Finding the operations Redoc 3 has drawn, to put a "Try it" control in each. Redoc draws an
 * operation only once the reader navigates to it, and redraws parts of the page as they move, so
 * a MutationObserver watches the page and adds the control wherever an operation lacks it.
 *
 * Redoc prerenders the page and React then hydrates it: a node added before hydration would be a
 * mismatch (React logs an error and redraws). So an operation gets its control only once React
 * owns the nodes it goes into (they carry React's `__reactFiber$…` property); until then the
 * search is retried.
 *
 * @module
 */

/** An operation's section as Redoc draws it: `<div id="<tag>/<operationid>">`. */
export function operationSection(root: ParentNode, operationId: string): Element | null {
  const suffix = `/${operationId.toLowerCase()}`;
  return (
    [...root.querySelectorAll(`[id$="${CSS.escape(suffix)}"]`)].find(
      (element) => element.id.split('/').length === 2 && element.querySelector('h2') !== null,
    ) ?? null
  );
}

/**
 * Where the control goes in a section: right after the operation's heading. (Redoc's "Copy" page
 * actions beside the heading appear only after hydration, some time later: placing the control
 * there would make where it lands depend on timing.)
 */
function placeIn(section: Element): { parent: Element; before: Node | null } | null {
  const heading = section.querySelector('h2');
  if (!heading?.parentElement) return null;
  return { parent: heading.parentElement, before: heading.nextSibling };
}

/** Whether React has hydrated (owns) this node. */
function isHydrated(node: Node): boolean {
  return Object.keys(node).some((key) => key.startsWith('__reactFiber$'));
}

const retryMs = 100;

/**
 * Calls `create(operationId)` for every operation in `operationIds` that is drawn and lacks its
 * control (marked `data-try-it="<operationId>"`), and inserts what it returns; now, and again
 * whenever the page changes.
 */
export function attachControls(
  operationIds: string[],
  create: (operationId: string) => HTMLElement,
): MutationObserver {
  let scheduled = false;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const scan = () => {
    scheduled = false;
    let waiting = false;
    for (const operationId of operationIds) {
      const section = operationSection(document, operationId);
      if (!section || section.querySelector(`[data-try-it="${CSS.escape(operationId)}"]`)) {
        continue;
      }
      const place = placeIn(section);
      if (!place || !isHydrated(place.parent) || (place.before && !isHydrated(place.before))) {
        waiting = true;
        continue;
      }
      place.parent.insertBefore(create(operationId), place.before);
    }
    clearTimeout(retry);
    if (waiting) retry = setTimeout(scan, retryMs);
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(scan);
  };

  const observer = new MutationObserver(schedule);
  observer.observe(document.body, { childList: true, subtree: true });
  schedule();
  return observer;
}
