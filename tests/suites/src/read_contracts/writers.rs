//! The writer threads of the read-contract tests: each writes on its own connection to the
//! shared database, bounded by count and time, and the reader waits for them between pages.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Shared, SharedDb};

/// A small deterministic generator (xorshift), so writers need no dependency.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n.max(1))) as u32
    }
}

/// Writer threads on their own connections, stopped (and joined) on drop or by [`Writers::stop`].
pub(super) struct Writers {
    stop: Arc<AtomicBool>,
    ops: Arc<AtomicUsize>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// How long a writer may run at most, whatever the reader does.
const WRITER_TIME: Duration = Duration::from_secs(20);
/// How many operations a writer makes at most.
const WRITER_OPS: usize = 5_000;

impl Writers {
    pub(super) fn new() -> Writers {
        Writers {
            stop: Arc::new(AtomicBool::new(false)),
            ops: Arc::new(AtomicUsize::new(0)),
            threads: Vec::new(),
        }
    }

    /// Starts a thread that calls `op(conn, i)` for i = 0, 1, ... until stopped, counting the
    /// calls that return `true` (a write that took effect).
    pub(super) fn spawn<C, F>(&mut self, shared: &Arc<Shared<C>>, mut op: F)
    where
        C: SharedDb,
        F: FnMut(&mut C, usize) -> bool + Send + 'static,
    {
        let (stop, ops, shared) = (self.stop.clone(), self.ops.clone(), shared.clone());
        self.threads.push(std::thread::spawn(move || {
            let mut conn = shared.connect();
            let start = Instant::now();
            for i in 0..WRITER_OPS {
                if stop.load(Ordering::Relaxed) || start.elapsed() > WRITER_TIME {
                    break;
                }
                if op(&mut conn, i) {
                    ops.fetch_add(1, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }));
    }

    pub(super) fn count(&self) -> usize {
        self.ops.load(Ordering::Relaxed)
    }

    /// Waits (at most 2 s) until the writers made `n` more writes: called between pages, so
    /// the next page is read after concurrent changes.
    pub(super) fn wait_for(&self, n: usize) {
        self.wait_at_most(n, Duration::from_secs(2));
    }

    pub(super) fn wait_at_most(&self, n: usize, limit: Duration) {
        let target = self.count() + n;
        let start = Instant::now();
        while self.count() < target && start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    pub(super) fn stop(mut self) -> usize {
        self.halt();
        self.count()
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            t.join().expect("writer thread");
        }
    }
}

impl Drop for Writers {
    fn drop(&mut self) {
        self.halt();
    }
}
