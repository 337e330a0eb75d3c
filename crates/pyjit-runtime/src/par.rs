//! Fork/join for the runtime's own parallel loops (elementwise kernels, reductions, fused
//! groups, matrix-vector products): the calling thread and a small team of helper threads
//! claim the indices `0..n` of a section from one counter.
//!
//! Why not rayon's `install` (which gemm's parallel products still use): on the 2-vCPU VM of
//! docs/kernels.md an empty `pool.install` of two tasks cost 11-40 µs (median, 2,000 calls), an
//! idle vCPU being slow to wake, and the caller slept through the section. Here the caller
//! works too, and a helper, after a section, spins for [`SPIN`] before it parks, so the next
//! section of a run of kernels finds it awake (libgomp and OpenBLAS also spin this way).
//!
//! Results never depend on which thread ran an index or on the thread count: callers give
//! each index a fixed piece of work (`vmath::ELEM_CHUNK` or `PAR_CHUNK` elements, a tile, a
//! block) and combine per-index results in index order ([`map_collect`]).
//!
//! One section runs at a time; a section started while another runs (another calling thread,
//! or a kernel inside a section) runs on its caller alone.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::RwLock;

/// How long a helper keeps polling for the next section before it parks.
pub const SPIN: Duration = Duration::from_micros(200);

/// `state`: the section's epoch in the high 32 bits, [`CLOSED`], and how many helpers joined.
const CLOSED: u64 = 1 << 31;
const JOINED: u64 = CLOSED - 1;

type Job<'a> = dyn Fn(usize) + Sync + 'a;

struct Shared {
    state: AtomicU64,
    /// The open section's job: written by the caller before it opens the section, read by
    /// helpers that joined it, valid until the caller has closed it and seen every joined
    /// helper done.
    job: UnsafeCell<Option<*const Job<'static>>>,
    n: UnsafeCell<usize>,
    /// One claim word per participant (the caller is 0, helper `k` is `k`), each over its own
    /// contiguous block of the indices, on its own cache line: how many indices have been
    /// claimed from the block's front (low 32 bits) and from its back (high 32 bits). A
    /// participant claims its own block's indices from the front, so with a steady thread
    /// count each thread gets the same block in every section (its data stays in that core's
    /// cache), then helps with the others from their backs: a thread that runs out of work
    /// takes the same last indices of a slower thread's block section after section, so
    /// those too stay where they are (taking them from the front, the helping thread took a
    /// different piece each time, and every stolen index's data crossed between the cores:
    /// docs/kernels.md).
    next: Box<[Padded]>,
    done: AtomicUsize,
    panicked: AtomicBool,
    sleepers: AtomicUsize,
    /// The CPU the caller of the open section runs on (-1: unknown), see [`move_off`].
    caller_cpu: AtomicI32,
    busy: AtomicBool,
    shutdown: AtomicBool,
}

// SAFETY: `job` and `n` are written only by the thread that holds `busy` while no helper is
// joined (the previous section closed and all its helpers done), and read only by helpers that
// joined the open section (the join's acquire sees the writes released by the opening store).
unsafe impl Sync for Shared {}
unsafe impl Send for Shared {}

/// The helpers of one thread count.
struct Team {
    shared: Arc<Shared>,
    helpers: Vec<std::thread::Thread>,
}

impl Drop for Team {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        for h in &self.helpers {
            h.unpark();
        }
    }
}

static TEAM: RwLock<Option<Arc<Team>>> = RwLock::new(None);

/// The team for the runtime's current thread count (rebuilt when it changes).
fn team() -> Arc<Team> {
    let threads = crate::ops::vmath::num_threads();
    if let Some(t) = TEAM.read().as_ref()
        && t.helpers.len() + 1 == threads
    {
        return t.clone();
    }
    let mut w = TEAM.write();
    if let Some(t) = w.as_ref()
        && t.helpers.len() + 1 == threads
    {
        return t.clone();
    }
    let t = Arc::new(build(threads.saturating_sub(1)));
    *w = Some(t.clone());
    t
}

fn build(helpers: usize) -> Team {
    let shared = Arc::new(Shared {
        state: AtomicU64::new(0),
        job: UnsafeCell::new(None),
        n: UnsafeCell::new(0),
        next: (0..=helpers).map(|_| Padded(AtomicU64::new(0))).collect(),
        done: AtomicUsize::new(0),
        panicked: AtomicBool::new(false),
        sleepers: AtomicUsize::new(0),
        caller_cpu: AtomicI32::new(-1),
        busy: AtomicBool::new(false),
        shutdown: AtomicBool::new(false),
    });
    let mut threads = Vec::new();
    for i in 0..helpers {
        let s = shared.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("pyjit-team-{}", i + 1))
            .spawn(move || helper(&s, i + 1));
        match spawned {
            Ok(h) => threads.push(h.thread().clone()),
            // Resource limits: the sections run on fewer threads (same results).
            Err(_) => break,
        }
    }
    Team {
        shared,
        helpers: threads,
    }
}

/// A claim word alone on its cache line.
#[repr(align(128))]
struct Padded(AtomicU64);

/// The indices of block `b` of `p` blocks over `0..n`.
fn block(b: usize, p: usize, n: usize) -> (usize, usize) {
    (b * n / p, (b + 1) * n / p)
}

/// Claims the next index of block `lo..hi` whose claim word is `word`: from its front
/// (`front`) or its back; `None` when every index of the block is claimed.
fn claim(word: &AtomicU64, lo: usize, hi: usize, front: bool) -> Option<usize> {
    let mut cur = word.load(Ordering::Relaxed);
    loop {
        let (f, b) = ((cur & 0xffff_ffff) as usize, (cur >> 32) as usize);
        if lo + f + b >= hi {
            return None;
        }
        let (next, i) = if front {
            (cur + 1, lo + f)
        } else {
            (cur + (1 << 32), hi - 1 - b)
        };
        match word.compare_exchange_weak(cur, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(i),
            Err(now) => cur = now,
        }
    }
}

/// Claims and runs indices of the open section until none is left: participant `me`'s own
/// block first, from its front, then the others' in turn, from their backs.
fn work(s: &Shared, job: &Job<'_>, n: usize, me: usize) {
    let p = s.next.len();
    for k in 0..p {
        let b = (me + k) % p;
        let (lo, hi) = block(b, p, n);
        while let Some(i) = claim(&s.next[b].0, lo, hi, k == 0) {
            job(i);
        }
    }
}

fn helper(s: &Shared, me: usize) {
    let mut seen = 0u64;
    loop {
        let Some(state) = wait_for_section(s, seen) else {
            return;
        };
        seen = state >> 32;
        if join(s, state) {
            move_off(s.caller_cpu.load(Ordering::Relaxed));
            // SAFETY: joined: the caller keeps the job alive until this helper reports done.
            let (job, n) = unsafe {
                (
                    (*s.job.get()).expect("an open section has a job"),
                    *s.n.get(),
                )
            };
            // SAFETY: as above.
            let r = catch_unwind(AssertUnwindSafe(|| work(s, unsafe { &*job }, n, me)));
            if r.is_err() {
                s.panicked.store(true, Ordering::Relaxed);
            }
            s.done.fetch_add(1, Ordering::Release);
        }
    }
}

/// The CPU the calling thread runs on, -1 when unknown.
fn current_cpu() -> i32 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: no arguments; reads the CPU number (vDSO / rseq).
        unsafe { libc::sched_getcpu() }
    }
    #[cfg(not(target_os = "linux"))]
    {
        -1
    }
}

/// A helper that joined a section on the CPU its caller runs on shares that CPU with it:
/// then the two take turns and the section runs at one thread's speed (mlp's one-row products
/// on the 2-vCPU VM: 48-49 µs in processes where Linux had put both threads on one vCPU, 28-29
/// where not; a process could stay so for its first 600 calls, ~30 ms, and more). The helper
/// then moves itself to another CPU it may run on: the kernel migrates a thread at once when
/// its affinity excludes its CPU; the affinity is restored right after, and the thread stays
/// where it was moved until the scheduler moves it again. Nothing is pinned.
fn move_off(caller: i32) {
    #[cfg(target_os = "linux")]
    {
        let me = current_cpu();
        if me < 0 || me != caller {
            return;
        }
        // SAFETY: `cpu_set_t` is plain data, zero is the empty set; the calls read and write
        // only the set given, for the calling thread (pid 0).
        unsafe {
            let size = std::mem::size_of::<libc::cpu_set_t>();
            let mut all: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut all) != 0 || libc::CPU_COUNT(&all) < 2 {
                return;
            }
            let mut others = all;
            libc::CPU_CLR(me as usize, &mut others);
            if libc::sched_setaffinity(0, size, &others) == 0 {
                libc::sched_setaffinity(0, size, &all);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = caller;
}

/// Joins the section of `state` unless it closed meanwhile.
fn join(s: &Shared, mut state: u64) -> bool {
    let epoch = state >> 32;
    loop {
        if state >> 32 != epoch || state & CLOSED != 0 {
            return false;
        }
        match s
            .state
            .compare_exchange_weak(state, state + 1, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => return true,
            Err(now) => state = now,
        }
    }
}

/// The state once a section newer than `seen` is open (or was, briefly), polling for [`SPIN`]
/// and then parked; `None` when the team shuts down.
fn wait_for_section(s: &Shared, seen: u64) -> Option<u64> {
    // `Some(answer)` once the wait is over: the fresh state, or `None` at shutdown.
    let over = |state: Ordering, shutdown: Ordering| {
        let st = s.state.load(state);
        if st >> 32 != seen {
            Some(Some(st))
        } else if s.shutdown.load(shutdown) {
            Some(None)
        } else {
            None
        }
    };
    let start = Instant::now();
    let mut polls = 0u32;
    loop {
        if let Some(answer) = over(Ordering::Acquire, Ordering::Relaxed) {
            return answer;
        }
        std::hint::spin_loop();
        polls = polls.wrapping_add(1);
        if polls.is_multiple_of(256) && start.elapsed() >= SPIN {
            break;
        }
    }
    s.sleepers.fetch_add(1, Ordering::SeqCst);
    let out = loop {
        if let Some(answer) = over(Ordering::SeqCst, Ordering::SeqCst) {
            break answer;
        }
        std::thread::park();
    };
    s.sleepers.fetch_sub(1, Ordering::SeqCst);
    out
}

/// Runs `f(i)` for every `i` in `0..n`, on the calling thread and the team's helpers; returns
/// when all have run. A panic of `f` is re-raised here once no thread runs `f` any more.
pub fn for_each(n: usize, f: impl Fn(usize) + Sync) {
    // (The claim words count in 32 bits.)
    if n <= 1 || n > u32::MAX as usize || crate::ops::vmath::num_threads() <= 1 {
        (0..n).for_each(f);
        return;
    }
    let team = team();
    let s = &*team.shared;
    if team.helpers.is_empty()
        || s.busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
    {
        (0..n).for_each(f);
        return;
    }
    let job: &Job<'_> = &f;
    // SAFETY: only the lifetime is erased. The pointer is read by helpers that join this
    // section, and this function returns (or unwinds) only after closing the section and seeing
    // every joined helper done, while `f` is still alive.
    let erased: *const Job<'static> =
        unsafe { std::mem::transmute::<&Job<'_>, &Job<'static>>(job) };
    // SAFETY: `busy` is ours and no helper is joined (see `Shared`'s Sync note).
    unsafe {
        *s.job.get() = Some(erased);
        *s.n.get() = n;
    }
    for c in &s.next[..] {
        c.0.store(0, Ordering::Relaxed);
    }
    s.done.store(0, Ordering::Relaxed);
    s.panicked.store(false, Ordering::Relaxed);
    s.caller_cpu.store(current_cpu(), Ordering::Relaxed);
    let epoch = (s.state.load(Ordering::Relaxed) >> 32).wrapping_add(1) & 0xffff_ffff;
    s.state.store(epoch << 32, Ordering::SeqCst);
    if s.sleepers.load(Ordering::SeqCst) > 0 {
        for h in &team.helpers {
            h.unpark();
        }
    }
    let mine = catch_unwind(AssertUnwindSafe(|| work(s, job, n, 0)));
    let joined = (s.state.fetch_or(CLOSED, Ordering::AcqRel) & JOINED) as usize;
    let mut polls = 0u32;
    while s.done.load(Ordering::Acquire) < joined {
        std::hint::spin_loop();
        polls = polls.wrapping_add(1);
        if polls.is_multiple_of(1024) {
            std::thread::yield_now();
        }
    }
    // SAFETY: as above; no helper reads the job any more.
    unsafe { *s.job.get() = None };
    let helper_panicked = s.panicked.load(Ordering::Relaxed);
    s.busy.store(false, Ordering::Release);
    if let Err(p) = mine {
        resume_unwind(p);
    }
    assert!(!helper_panicked, "a parallel kernel task panicked");
}

/// `f(i)` for every `i` in `0..n` in parallel, the results in index order.
pub fn map_collect<R: Send>(n: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let mut out: Vec<MaybeUninit<R>> = Vec::with_capacity(n);
    // SAFETY: `MaybeUninit` needs no initialization.
    unsafe { out.set_len(n) };
    let base = SyncPtr(out.as_mut_ptr());
    for_each(n, |i| {
        // SAFETY: index `i < n` of `out`, written by this index only.
        unsafe { base.get().add(i).write(MaybeUninit::new(f(i))) };
    });
    // SAFETY: `for_each` returned, so every index was written (a panic would have unwound,
    // leaking the written elements, which is safe).
    let mut out = std::mem::ManuallyDrop::new(out);
    unsafe { Vec::from_raw_parts(out.as_mut_ptr().cast::<R>(), n, out.capacity()) }
}

/// `f(i, chunk)` for the `chunk`-element pieces of `data` (the last one shorter), in parallel.
pub fn for_each_chunk_mut<T: Send>(
    data: &mut [T],
    chunk: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    let len = data.len();
    let chunk = chunk.max(1);
    let base = SyncPtr(data.as_mut_ptr());
    for_each(len.div_ceil(chunk), |i| {
        let lo = i * chunk;
        let hi = (lo + chunk).min(len);
        // SAFETY: `lo..hi` is in `data` and belongs to index `i` alone.
        let piece = unsafe { std::slice::from_raw_parts_mut(base.get().add(lo), hi - lo) };
        f(i, piece);
    });
}

/// A pointer that parallel tasks share, each writing its own elements.
pub struct SyncPtr<T>(pub *mut T);

impl<T> Clone for SyncPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SyncPtr<T> {}
// SAFETY: users write disjoint elements and join before the owner reads them.
unsafe impl<T: Send> Send for SyncPtr<T> {}
unsafe impl<T: Send> Sync for SyncPtr<T> {}

impl<T> SyncPtr<T> {
    /// The pointer (a method, so closures capture the `Sync` wrapper, not the raw field).
    pub fn get(self) -> *mut T {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread on its caller's CPU moves to another one and keeps the CPUs it may run on.
    #[cfg(target_os = "linux")]
    #[test]
    fn move_off_leaves_the_callers_cpu_and_keeps_the_affinity() {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        let mask = || {
            // SAFETY: zero is the empty set; the call writes only `m`.
            let mut m: libc::cpu_set_t = unsafe { std::mem::zeroed() };
            assert_eq!(unsafe { libc::sched_getaffinity(0, size, &mut m) }, 0);
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| unsafe { libc::CPU_ISSET(c, &m) })
                .collect::<Vec<usize>>()
        };
        let before = mask();
        if before.len() < 2 {
            return;
        }
        // The scheduler may move the thread back between the two reads: a few tries.
        let moved = (0..20).any(|_| {
            let cpu = current_cpu();
            move_off(cpu);
            current_cpu() != cpu
        });
        assert!(moved, "the thread never left its CPU");
        assert!(before == mask(), "the affinity was not restored");
        // Not on the caller's CPU: nothing to do.
        move_off(-1);
        assert!(before == mask());
    }

    #[test]
    fn every_index_runs_once_and_results_keep_index_order() {
        for n in [0, 1, 2, 3, 17, 1000] {
            let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            for_each(n, |i| {
                hits[i].fetch_add(1, Ordering::Relaxed);
            });
            assert!(
                hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
                "n = {n}"
            );
            let v = map_collect(n, |i| i * i);
            assert_eq!(v, (0..n).map(|i| i * i).collect::<Vec<_>>());
        }
    }

    /// A block's owner claims from its front and a helping thread from its back: in order
    /// from each end, every index once, whatever the interleaving (two threads racing on one
    /// claim word), and nothing once the ends meet.
    #[test]
    fn claims_take_the_front_for_the_owner_and_the_back_for_helpers() {
        let w = AtomicU64::new(0);
        let got: Vec<Option<usize>> = [true, false, false, true, false, true]
            .iter()
            .map(|&front| claim(&w, 10, 15, front))
            .collect();
        assert_eq!(
            got,
            [Some(10), Some(14), Some(13), Some(11), Some(12), None]
        );
        for (lo, hi) in [(0, 0), (3, 4), (100, 5100)] {
            let w = AtomicU64::new(0);
            let (front, back) = std::thread::scope(|sc| {
                let take = |front: bool| {
                    let w = &w;
                    sc.spawn(move || {
                        std::iter::from_fn(|| claim(w, lo, hi, front)).collect::<Vec<_>>()
                    })
                };
                let (f, b) = (take(true), take(false));
                (f.join().unwrap(), b.join().unwrap())
            });
            assert!(front.windows(2).all(|p| p[0] < p[1]), "{front:?}");
            assert!(back.windows(2).all(|p| p[0] > p[1]), "{back:?}");
            let mut all: Vec<usize> = front.iter().chain(&back).copied().collect();
            all.sort_unstable();
            assert_eq!(all, (lo..hi).collect::<Vec<_>>());
            assert_eq!(claim(&w, lo, hi, true), None);
        }
    }

    #[test]
    fn chunks_cover_the_slice() {
        let mut v = vec![0usize; 1003];
        for_each_chunk_mut(&mut v, 100, |i, c| {
            for (j, x) in c.iter_mut().enumerate() {
                *x = i * 100 + j;
            }
        });
        assert_eq!(v, (0..1003).collect::<Vec<_>>());
    }

    #[test]
    fn sections_from_many_threads_and_nested_sections_complete() {
        std::thread::scope(|sc| {
            for t in 0..4 {
                sc.spawn(move || {
                    for k in 0..200 {
                        let v = map_collect(8, |i| {
                            // A nested section runs on its caller alone.
                            map_collect(3, |j| i + j + k + t).iter().sum::<usize>()
                        });
                        let want: Vec<usize> = (0..8).map(|i| 3 * (i + k + t) + 3).collect();
                        assert_eq!(v, want);
                    }
                });
            }
        });
    }

    #[test]
    fn a_panicking_task_is_re_raised_and_the_team_stays_usable() {
        let r = catch_unwind(|| {
            for_each(64, |i| {
                if i == 40 {
                    panic!("task 40");
                }
            })
        });
        assert!(r.is_err());
        assert_eq!(map_collect(5, |i| i + 1), vec![1, 2, 3, 4, 5]);
    }
}
