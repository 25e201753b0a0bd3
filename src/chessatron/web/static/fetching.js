// Pictures the page keeps up to date however fast the changes come: one request at a time, the latest wins.

/** ``load`` (async) made safe to call at any rate: while it runs, another call asks for one more run after
 * it, so that the last state asked for is the one loaded. A failure goes to ``onError`` and ends the run;
 * the next call starts afresh. */
export function coalesced(load, onError = () => {}) {
  let busy = false;
  let again = false;
  return async function run() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        await load();
      } while (again);
    } catch (error) {
      onError(error);
    } finally {
      busy = false;
    }
  };
}
