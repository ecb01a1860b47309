/**
 * `look` run one at a time: a call while it runs asks for one more run once it ends (however
 * many calls came meanwhile), so the last change is always looked at and no two looks overlap.
 * A look that throws is skipped (the next call looks again); nothing runs again once `stopped`
 * says so.
 */
export function oneAtATime(look: () => Promise<void>, stopped: () => boolean): () => Promise<void> {
  let looking = false;
  let again = false;
  const run = async (): Promise<void> => {
    if (looking) {
      again = true;
      return;
    }
    looking = true;
    try {
      await look();
    } catch {
      // The engine did not answer this time; the next call looks again.
    } finally {
      looking = false;
      if (again && !stopped()) {
        again = false;
        void run();
      }
    }
  };
  return run;
}
