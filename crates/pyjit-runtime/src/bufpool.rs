//! A size-class pool for big element buffers.
//!
//! With glibc's default settings a freed 16 MB buffer goes back to the OS (it was `mmap`ed, or
//! it is trimmed off the heap top), and the next kernel's fresh 16 MB output is page-faulted in
//! again: ~4,000 minor faults, measured by shared/peerbench as doubling numpy's time for 4M
//! elementwise chains. The runtime instead keeps freed buffers of at least [`MIN_BYTES`] (one
//! storage dropping its last view gives its buffer here) and hands them to the next kernel
//! output of the same element type and size class (powers of two of the byte length). Buffers
//! are reused with their old contents, which every kernel taking one fully overwrites.
//!
//! Bounded: at most [`PER_CLASS`] buffers per class and [`MAX_TOTAL_BYTES`] in all; beyond that
//! buffers are freed as usual. `PYJIT_BUFFER_POOL=0` disables the pool.
//!
//! Tile-sized buffers (from [`TILE_MIN_BYTES`] to [`MIN_BYTES`]) are kept per thread instead,
//! at most [`PER_THREAD`] of them: a fused group (`ops/fused.rs`) allocates and frees a few per
//! tile on each pool thread, and glibc trims such a buffer off the thread's arena when it is
//! freed, so the next tile page-faulted it in again (measured: 7x the page faults of the
//! unfused ops on the 4M elementwise chain).

use std::sync::Mutex;
use std::sync::OnceLock;

use crate::dtype::DType;
use crate::element::Element;
use crate::tensor::Buffer;

/// Buffers from this size on go to the shared pool (smaller ones stay with their thread, see
/// [`TILE_MIN_BYTES`]).
pub const MIN_BYTES: usize = 1 << 20;
/// Buffers kept per (dtype, size class).
pub const PER_CLASS: usize = 4;
/// All pooled buffers together.
pub const MAX_TOTAL_BYTES: usize = 1 << 29;

/// Buffers from this size up to [`MIN_BYTES`] are kept per thread.
pub const TILE_MIN_BYTES: usize = 1 << 14;
/// Tile-sized buffers kept per thread.
pub const PER_THREAD: usize = 8;

thread_local! {
    /// `(dtype, class, buffer)` of this thread's tile-sized buffers, most recently freed last.
    static LOCAL: std::cell::RefCell<Vec<(DType, u32, Buffer)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

struct Pool {
    /// `(dtype, class, buffer)`, most recently freed last.
    free: Vec<(DType, u32, Buffer)>,
    bytes: usize,
}

fn pool() -> Option<&'static Mutex<Pool>> {
    static POOL: OnceLock<Option<Mutex<Pool>>> = OnceLock::new();
    POOL.get_or_init(|| {
        let off = std::env::var("PYJIT_BUFFER_POOL").is_ok_and(|v| v.trim() == "0");
        (!off).then(|| {
            Mutex::new(Pool {
                free: Vec::new(),
                bytes: 0,
            })
        })
    })
    .as_ref()
}

fn class_of(bytes: usize) -> u32 {
    bytes.next_power_of_two().trailing_zeros()
}

fn buffer_bytes(b: &Buffer, dtype: DType) -> usize {
    b.len() * dtype.size_of()
}

/// A buffer of exactly `n` elements of `T` with unspecified (initialized) contents, from the
/// pool if it holds one of `n`'s size class, else `None`.
pub(crate) fn take<T: Element>(n: usize) -> Option<Vec<T>> {
    let bytes = n.checked_mul(T::DTYPE.size_of())?;
    if bytes < MIN_BYTES {
        if bytes < TILE_MIN_BYTES {
            return None;
        }
        pool()?;
        let class = class_of(bytes);
        let buf = LOCAL
            .try_with(|l| {
                let mut l = l.try_borrow_mut().ok()?;
                let i = l
                    .iter()
                    .rposition(|(d, c, b)| *d == T::DTYPE && *c == class && b.len() >= n)?;
                Some(l.swap_remove(i).2)
            })
            .ok()
            .flatten()?;
        let mut v = T::from_buffer(buf)?;
        v.truncate(n);
        return Some(v);
    }
    let class = class_of(bytes);
    let mut p = pool()?.lock().ok()?;
    let i = p
        .free
        .iter()
        .rposition(|(d, c, b)| *d == T::DTYPE && *c == class && b.len() >= n)?;
    let (_, _, buf) = p.free.swap_remove(i);
    p.bytes -= buffer_bytes(&buf, T::DTYPE);
    drop(p);
    let mut v = T::from_buffer(buf)?;
    v.truncate(n);
    Some(v)
}

/// Buffers from this size on are backed by 2 MiB pages where the kernel allows it (NumPy's
/// threshold for the same advice, `numpy/core/src/multiarray/alloc.c`).
pub const HUGE_PAGE_MIN_BYTES: usize = 1 << 22;

/// Asks Linux to back the whole 2 MiB-aligned pages inside `[ptr, ptr + bytes)` with transparent
/// huge pages (`madvise(MADV_HUGEPAGE)`; with THP in `madvise` mode nothing else gets them), before
/// the buffer is first written. A 16 MB kernel operand then needs 8 TLB entries instead of 4,096.
/// Advice only: ignored where the kernel refuses it, and a no-op elsewhere.
pub(crate) fn advise_huge_pages(ptr: *const u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 1 << 21;
        if bytes < HUGE_PAGE_MIN_BYTES {
            return;
        }
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + bytes) & !(HUGE - 1);
        if end > start {
            // SAFETY: the range lies inside the caller's live allocation; MADV_HUGEPAGE changes
            // no contents and no mapping, only how future faults in it are served.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, bytes);
}

/// `n` elements of `T` for a kernel that overwrites all of them: pooled, or freshly zeroed (an
/// allocation error instead of an abort when memory is short).
pub(crate) fn alloc<T: Element>(n: usize) -> crate::error::Result<Vec<T>> {
    match take::<T>(n) {
        Some(v) => Ok(v),
        None => crate::tensor::alloc_filled(n, T::default()),
    }
}

/// `n` copies of `v` in a pooled buffer when one of the size class is free (filled: cheaper
/// than page-faulting a fresh one in), else in a fresh one (`torch.zeros/full/empty` and their
/// `_like` forms).
pub(crate) fn alloc_filled<T: Element>(n: usize, v: T) -> crate::error::Result<Vec<T>> {
    match take::<T>(n) {
        Some(mut buf) => {
            buf.fill(v);
            Ok(buf)
        }
        None => crate::tensor::alloc_filled(n, v),
    }
}

/// Offers a dead storage's owned buffer to the pool (dropped if it is small, external, or the
/// pool is full).
pub(crate) fn give(buf: Buffer, dtype: DType) {
    if matches!(buf, Buffer::External(_)) {
        return; // not ours: its owner frees it
    }
    let bytes = buffer_bytes(&buf, dtype);
    if (TILE_MIN_BYTES..MIN_BYTES).contains(&bytes) {
        if pool().is_none() {
            return;
        }
        // Dropped here (outside the borrow) when this thread keeps enough already.
        let _rest = LOCAL
            .try_with(|l| match l.try_borrow_mut() {
                Ok(mut l) if l.len() < PER_THREAD => {
                    l.push((dtype, class_of(bytes), buf));
                    None
                }
                _ => Some(buf),
            })
            .ok()
            .flatten();
        return;
    }
    if !(MIN_BYTES..=MAX_TOTAL_BYTES / 4).contains(&bytes) {
        return;
    }
    let Some(m) = pool() else { return };
    let Ok(mut p) = m.lock() else { return };
    let class = class_of(bytes);
    let same = p
        .free
        .iter()
        .filter(|(d, c, _)| *d == dtype && *c == class)
        .count();
    if same >= PER_CLASS || p.bytes + bytes > MAX_TOTAL_BYTES {
        return; // freed after the lock is released
    }
    p.bytes += bytes;
    p.free.push((dtype, class, buf));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Tensor;

    #[test]
    fn a_dropped_big_buffer_is_reused_with_the_right_length() {
        let n = (MIN_BYTES / 4) * 3 + 5; // f32: 3 MiB, class 4 MiB
        let t = Tensor::from_vec(vec![1.5f32; n], &[n]).unwrap();
        drop(t);
        let v = take::<f32>(n - 10).expect("pooled");
        assert_eq!(v.len(), n - 10);
        assert!(v.iter().all(|&x| x == 1.5));
        assert!(take::<f64>(n).is_none() || pool().is_none());
        assert!(take::<f32>(100).is_none(), "small requests go to malloc");
    }

    #[test]
    fn a_dropped_tile_buffer_is_reused_on_its_thread_only() {
        let n = 1 << 14; // f32: 64 KiB
        let t = Tensor::from_vec(vec![2.5f32; n], &[n]).unwrap();
        drop(t);
        if pool().is_none() {
            return;
        }
        assert!(
            std::thread::spawn(move || take::<f32>(n).is_none())
                .join()
                .unwrap(),
            "another thread has its own buffers"
        );
        let v = take::<f32>(n - 3).expect("kept by this thread");
        assert_eq!(v.len(), n - 3);
        assert!(v.iter().all(|&x| x == 2.5));
        assert!(take::<f32>(n).is_none(), "taken once");
        // At most PER_THREAD are kept.
        let many: Vec<Tensor> = (0..PER_THREAD + 3)
            .map(|_| Tensor::from_vec(vec![0f32; n], &[n]).unwrap())
            .collect();
        drop(many);
        let kept = LOCAL.with(|l| l.borrow().len());
        assert_eq!(kept, PER_THREAD);
    }

    /// Whether the mapping holding `addr` is advised huge (`hg` in its `VmFlags`), or `None`
    /// where `/proc/self/smaps` does not say.
    #[cfg(target_os = "linux")]
    fn advised_huge(addr: usize) -> Option<bool> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            if let Some((a, b)) = first.split_once('-')
                && let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
            {
                inside = (a..b).contains(&addr);
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return Some(flags.split_whitespace().any(|f| f == "hg"));
            }
        }
        None
    }

    #[cfg(target_os = "linux")]
    fn middle(t: &Tensor) -> usize {
        t.with_slice::<f32, usize>(|s| s[s.len() / 2..].as_ptr() as usize)
            .expect("contiguous f32")
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn big_buffers_from_npy_files_and_copies_are_advised_huge_as_kernel_outputs() {
        let n = (HUGE_PAGE_MIN_BYTES / 4) * 2; // f32: 8 MiB
        // The control: a kernel output's fresh buffer. Where the kernel takes no advice (no
        // THP), there is nothing to check.
        let out = Tensor::from_vec(crate::tensor::alloc_filled(n, 1.0f32).unwrap(), &[n]).unwrap();
        if advised_huge(middle(&out)) != Some(true) {
            return;
        }
        let copy = out.clone_data().unwrap();
        assert_eq!(
            advised_huge(middle(&copy)),
            Some(true),
            "a copy (clone_data)"
        );
        let file = crate::npy::write_npy_bytes(&out).unwrap();
        let read = crate::npy::read_npy_bytes(&file).unwrap();
        assert_eq!(
            advised_huge(middle(&read)),
            Some(true),
            "an array read from .npy bytes"
        );
        assert_eq!(read.to_vec::<f32>(), out.to_vec::<f32>());
    }
}
