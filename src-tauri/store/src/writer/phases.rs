//! Where a write transaction's time went, phase by phase, and a debug line for each one that
//! held its callers up (over [`SLOW`]), with the work the writer thread did between two
//! transactions. Read with `RUST_LOG=smsdesk_store::writer=debug`: a request that waited long for
//! its answer waited on one of these.

use std::time::{Duration, Instant};

use crate::slow::SLOW;

/// The phases of one transaction, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// The operations, each in its savepoint (BEGIN included).
    Operations,
    /// The text-search index brought up to date.
    SearchIndex,
    /// The running totals and the report entries written.
    Totals,
    /// COMMIT: the WAL written and synced.
    Commit,
    /// The callers answered and the changes announced.
    Answers,
}

const PHASES: usize = 5;

/// How long each phase of a transaction took.
#[derive(Debug, Clone)]
pub(super) struct Phases {
    pub(super) operations: usize,
    started: Instant,
    mark: Instant,
    took: [Duration; PHASES],
}

impl Phases {
    pub(super) fn begin(operations: usize) -> Phases {
        let now = Instant::now();
        Phases {
            operations,
            started: now,
            mark: now,
            took: [Duration::ZERO; PHASES],
        }
    }

    /// Ends `phase` now: its time runs from the end of the previous one.
    pub(super) fn lap(&mut self, phase: Phase) {
        let now = Instant::now();
        self.took[phase as usize] += now - self.mark;
        self.mark = now;
    }

    pub(super) fn total(&self) -> Duration {
        self.mark - self.started
    }

    /// Logs the transaction (number `batch`) if it was slow.
    pub(super) fn log_if_slow(&self, batch: u64) {
        if self.total() < SLOW {
            return;
        }
        let ms = |p: Phase| self.took[p as usize].as_secs_f64() * 1e3;
        tracing::debug!(
            batch,
            operations = self.operations,
            total_ms = self.total().as_secs_f64() * 1e3,
            operations_ms = ms(Phase::Operations),
            search_index_ms = ms(Phase::SearchIndex),
            totals_ms = ms(Phase::Totals),
            commit_ms = ms(Phase::Commit),
            answers_ms = ms(Phase::Answers),
            "slow write transaction"
        );
    }
}

/// Runs `work` (what the writer does between two transactions, named `what`) and logs it if it
/// was slow.
pub(super) fn timed_between<T>(what: &'static str, work: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = work();
    let took = started.elapsed();
    if took >= SLOW {
        tracing::debug!(
            what,
            took_ms = took.as_secs_f64() * 1e3,
            "slow work between two write transactions"
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_phase_runs_from_the_end_of_the_previous_one() {
        let mut p = Phases::begin(3);
        std::thread::sleep(Duration::from_millis(2));
        p.lap(Phase::Operations);
        std::thread::sleep(Duration::from_millis(1));
        p.lap(Phase::Commit);
        assert!(p.took[Phase::Operations as usize] >= Duration::from_millis(2));
        assert!(p.took[Phase::Commit as usize] >= Duration::from_millis(1));
        assert_eq!(p.took[Phase::SearchIndex as usize], Duration::ZERO);
        assert_eq!(p.total(), p.took.iter().sum::<Duration>());
    }
}
