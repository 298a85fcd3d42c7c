// The returns list follows changes: when the server's event stream says a return of the
// store was created or changed status, the page is read again at the same address (so its
// filter and page hold) and the rows that differ are put in place. Events only, never a
// timer. Without this script the list is the same page, refreshed by hand.
(() => {
  const region = document.querySelector('[data-live-events]');
  if (!region || typeof EventSource !== 'function') return;

  const stream = new EventSource(region.getAttribute('data-live-events'));
  let lost = false;
  let refreshing = false;
  let again = false;
  let stale = false;

  function stop() {
    stream.close();
    region.setAttribute('data-live', 'off');
  }

  /** Only rows that changed are replaced, so a screen reader announces those and no others. */
  function swapRows(body, fresh) {
    const current = new Map([...body.rows].map((row) => [row.getAttribute('data-return-id'), row]));
    let cursor = body.firstElementChild;
    for (const row of [...fresh.rows]) {
      const old = current.get(row.getAttribute('data-return-id'));
      if (old === cursor && old.isEqualNode(row)) {
        cursor = cursor.nextElementSibling;
        continue;
      }
      if (old === cursor) cursor = cursor.nextElementSibling;
      if (old && old.isEqualNode(row)) {
        body.insertBefore(old, cursor);
        continue;
      }
      const added = document.importNode(row, true);
      if (old) {
        // A row chosen for a bulk action stays chosen when it changes.
        const choice = old.querySelector('input[type=checkbox]');
        const kept = added.querySelector('input[type=checkbox]');
        if (choice && kept) kept.checked = choice.checked;
        old.remove();
      }
      body.insertBefore(added, cursor);
    }
    while (cursor) {
      const next = cursor.nextElementSibling;
      cursor.remove();
      cursor = next;
    }
  }

  function swapPager(fresh) {
    const old = region.querySelector('.pager');
    const now = fresh.querySelector('.pager');
    if (old && now && old.isEqualNode(now)) return;
    if (old) old.remove();
    if (now) region.append(document.importNode(now, true));
  }

  async function refresh() {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      do {
        again = false;
        const response = await fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store' });
        // Signed out (the sign-in page came instead) or gone: the list stays as it is, unfollowed.
        if (!response.ok || new URL(response.url).pathname !== location.pathname) return stop();
        const fresh = new DOMParser().parseFromString(await response.text(), 'text/html').querySelector('[data-live-events]');
        if (!fresh) return stop();
        swapRows(region.querySelector('tbody'), fresh.querySelector('tbody'));
        swapPager(fresh);
      } while (again);
    } catch {
      // The network failed for a moment: the next event reads the list again.
    } finally {
      refreshing = false;
    }
  }

  // A hidden tab reads the list once it is shown again, not at every change meanwhile.
  function changed() {
    if (document.hidden) stale = true;
    else refresh();
  }
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && stale) {
      stale = false;
      refresh();
    }
  });

  stream.addEventListener('next', changed);
  stream.addEventListener('open', () => {
    region.setAttribute('data-live', 'on');
    // Changes made while the stream was down were never sent: read the list once it is back.
    if (lost) changed();
    lost = false;
  });
  stream.addEventListener('error', () => {
    lost = true;
    region.setAttribute('data-live', stream.readyState === EventSource.CLOSED ? 'off' : 'reconnecting');
  });
})();
