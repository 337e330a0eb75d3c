//! The host side of native code: the per-call context, the table of error sites, and every
//! `extern "C"` function native code calls (registered by name with `JITBuilder::symbol`).
//!
//! Errors never unwind through native code. A host function that fails stores an
//! [`InterpError`] in the context and sets its `failed` byte; native code reads that byte after
//! each fallible call, releases what it owns and returns. The error carries the span of the op
//! from the *site* table, so it reads exactly like the interpreter's.

use crate::layout::{self, Slot};
use pyjit_ir::{MathFn, OpKind, Type};
use pyjit_syntax::Span;
use pyjit_value::{
    CallSite, ExcKind, InterpError, PyErr, Value, from_runtime, ops, scalar, to_runtime,
};
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What native code knows about one fallible op or call site.
#[derive(Debug)]
pub(crate) struct Site {
    /// The function containing the op.
    pub function: String,
    pub span: Span,
    pub kind: SiteKind,
    /// The calls inlining removed between the op and its function's caller, innermost first.
    pub inline_frames: Vec<CallSite>,
}

#[derive(Debug)]
pub(crate) enum SiteKind {
    /// An error whose class and message are known at compile time (division by zero, a failed
    /// guard, unwrapping `None`, recursion too deep).
    Error(PyErr),
    /// An op run by [`pjn_op`]: operands and results are passed as slots of these types.
    Op {
        kind: OpKind,
        operands: Vec<Type>,
        results: Vec<Type>,
        /// The number of operand slots (precomputed: this runs on every call).
        arg_slots: usize,
        /// For a `fused` op: its tile program.
        fused: Option<Box<crate::fused::FusedSite>>,
        /// Per operand: whether native code hands its reference over (its last use): a
        /// tensor op's first operand when the op has an in-place form
        /// (`dispatch::call_owned`), a `fused` group's tensor operands. The host takes those
        /// references.
        owned: Vec<bool>,
    },
    /// A scalar op run by a dedicated host function (its error comes from the function).
    Scalar,
    /// A `call` op: recorded in the error's call stack when the callee fails.
    Call,
    /// A tensor made when compiling (`scalar_tensor` of constants, NumPy's `np.float32(2.0)`,
    /// read only by ops that make fresh tensors): native code takes a reference to its handle
    /// each time the op runs; the site keeps one for the compiled module's life.
    ConstTensor { _handle: ConstHandle },
}

/// A tensor handle owned by a [`SiteKind::ConstTensor`] (released with the site table).
#[derive(Debug)]
pub(crate) struct ConstHandle(pub *mut pyjit_runtime::abi::PjTensor);

impl Drop for ConstHandle {
    fn drop(&mut self) {
        // SAFETY: the handle came from `handle_from_tensor` and this is its one reference that
        // the site owns; every reference native code took was released by native code.
        unsafe { pyjit_runtime::abi::pj_tensor_release(self.0) };
    }
}

/// The per-call context native code receives as its first argument. `#[repr(C)]` because native
/// code reads `failed`, `depth` and `max_depth` at fixed offsets.
#[repr(C)]
pub(crate) struct Ctx<'a> {
    pub failed: u8,
    pub depth: u64,
    pub max_depth: u64,
    pub sites: &'a [Site],
    pub error: Option<InterpError>,
    pub out: &'a mut dyn Write,
}

pub(crate) const OFFSET_FAILED: i32 = std::mem::offset_of!(Ctx<'static>, failed) as i32;
pub(crate) const OFFSET_DEPTH: i32 = std::mem::offset_of!(Ctx<'static>, depth) as i32;
pub(crate) const OFFSET_MAX_DEPTH: i32 = std::mem::offset_of!(Ctx<'static>, max_depth) as i32;

impl Ctx<'_> {
    fn site(&self, site: u64) -> Option<&Site> {
        self.sites.get(site as usize)
    }

    /// Records an error raised at `site` (the first error wins: later ones are consequences).
    fn fail(&mut self, site: u64, mut e: InterpError) {
        if self.error.is_none() {
            if let Some(s) = self.site(site) {
                e.span = s.span;
                e.function = s.function.clone();
                e.call_stack.extend(s.inline_frames.iter().cloned());
            }
            self.error = Some(e);
        }
        self.failed = 1;
    }

    fn fail_with(&mut self, site: u64, error: PyErr) {
        self.fail(site, InterpError::at(error, Span::DUMMY));
    }

    fn fail_internal(&mut self, site: u64, message: &str) {
        self.fail_with(site, PyErr::new(ExcKind::Internal, message));
    }
}

/// Runs `f` on the context, turning a panic in host code into an internal error (a panic must
/// never unwind into native frames).
fn with_ctx<R: Default>(ctx: *mut Ctx<'_>, site: u64, f: impl FnOnce(&mut Ctx<'_>) -> R) -> R {
    // SAFETY: native code passes the context pointer it received from `NativeFunction::call`,
    // which stays valid and unaliased by Rust references for the whole call.
    let ctx = unsafe { &mut *ctx };
    match catch_unwind(AssertUnwindSafe(|| f(ctx))) {
        Ok(r) => r,
        Err(_) => {
            ctx.fail_internal(site, "panic in a host function");
            R::default()
        }
    }
}

/// Records the compile-time error of `site`.
pub(crate) extern "C" fn pjn_error(ctx: *mut Ctx<'_>, site: u64) {
    with_ctx(ctx, site, |c| {
        let error = match c.site(site).map(|s| &s.kind) {
            Some(SiteKind::Error(e)) => e.clone(),
            _ => PyErr::new(ExcKind::Internal, "bad error site"),
        };
        c.fail_with(site, error);
    })
}

/// Adds a call site to the pending error's call stack (innermost caller first).
pub(crate) extern "C" fn pjn_note_call(ctx: *mut Ctx<'_>, site: u64) {
    with_ctx(ctx, site, |c| {
        let Some(s) = c.site(site) else { return };
        let cs = CallSite {
            function: s.function.clone(),
            span: s.span,
        };
        let inlined = s.inline_frames.clone();
        if let Some(e) = c.error.as_mut() {
            e.call_stack.push(cs);
            e.call_stack.extend(inlined);
        }
    })
}

/// Runs an op that native code does not inline (tensor ops, lists, strings, subscripts, `print`,
/// `raise`, a failed `check`). Operand slots are read from `args`; result slots (owned) are
/// written to `out` only on success.
pub(crate) extern "C" fn pjn_op(ctx: *mut Ctx<'_>, site: u64, args: *const u64, out: *mut u64) {
    with_ctx(ctx, site, |c| {
        // The site table outlives the context borrow: no need to clone the op's description.
        let sites = c.sites;
        let Some(Site {
            kind:
                SiteKind::Op {
                    kind,
                    operands,
                    results,
                    arg_slots,
                    fused,
                    owned,
                },
            span,
            ..
        }) = sites.get(site as usize)
        else {
            c.fail_internal(site, "bad op site");
            return;
        };
        let nargs = *arg_slots;
        let raw: &[u64] = if nargs == 0 {
            &[]
        } else {
            // SAFETY: native code stores exactly `nargs` slots at `args`.
            unsafe { std::slice::from_raw_parts(args, nargs) }
        };
        let outcome = match (kind, fused) {
            (OpKind::Fused, Some(fs)) => {
                // Operands handed over (`owned`): taken out of their handles once,
                // moved into their last input and cloned into earlier ones.
                // (Inline for the usual few operands: no allocation per call.)
                let mut taken: smallvec::SmallVec<[Option<pyjit_runtime::Tensor>; 4]> = owned
                    .iter()
                    .enumerate()
                    .map(|(i, &o)| {
                        let pos = fs.slot_pos.get(i).copied().filter(|_| o)?;
                        // SAFETY: `owned`: native code handed this operand's reference over.
                        unsafe { handed_over(raw, pos) }
                    })
                    .collect();
                // Each input straight from its slots, as a tensor op's operand is (no
                // intermediate interpreter value: a tensor clone costs allocations).
                let inputs: Vec<pyjit_runtime::Value> = fs
                    .uses
                    .iter()
                    .enumerate()
                    .map(|(j, (i, ty))| {
                        if let Some(slot) = taken.get_mut(*i)
                            && slot.is_some()
                        {
                            let later = fs.uses[j + 1..].iter().any(|(o, _)| o == i);
                            let t = if later { slot.clone() } else { slot.take() };
                            return t
                                .map_or(pyjit_runtime::Value::None, pyjit_runtime::Value::Tensor);
                        }
                        let mut pos = fs.slot_pos.get(*i).copied().unwrap_or(nargs);
                        match operands.get(*i) {
                            // SAFETY: the operand slots are live values owned by the calling
                            // native code.
                            Some(t) => unsafe { runtime_operand(t, raw, &mut pos, Some(ty)) },
                            None => pyjit_runtime::Value::None,
                        }
                    })
                    .collect();
                // (An operand handed over but read by no step is released here.)
                drop(taken);
                let result = match &fs.repeat {
                    Some(r) => {
                        let count = raw.get(r.count_slot).map_or(0, |&v| v as i64);
                        pyjit_runtime::ops::fused::run_repeat(
                            &fs.program,
                            inputs,
                            &r.carried,
                            count,
                        )
                    }
                    None => pyjit_runtime::ops::fused::run(&fs.program, inputs),
                };
                match result {
                    Ok(t) => Ok(smallvec::smallvec![Value::Tensor(t)]),
                    Err(e) => {
                        let at = fs.step_sites.get(e.step).copied().unwrap_or(site);
                        let err = InterpError::new(e.error.kind(), e.error.to_string(), *span);
                        c.fail(at, err);
                        return;
                    }
                }
            }
            // SAFETY: the operand slots are live values owned by the calling native code.
            (OpKind::Tensor(id), _) => unsafe {
                run_tensor_op(*id, operands, raw, *span, owned.first() == Some(&true))
            },
            _ => {
                let mut pos = 0;
                let vals: Vec<Value> = operands
                    .iter()
                    // SAFETY: as above.
                    .map(|t| unsafe { layout::slots_to_value(t, raw, &mut pos) })
                    .collect();
                run_op(c, kind, vals, *span).map(Results::from_vec)
            }
        };
        match outcome {
            // The usual result, one tensor: its handle straight into the result slot.
            Ok(mut vs) if vs.len() == 1 && matches!(results.as_slice(), [Type::Tensor(_)]) => {
                match vs.pop() {
                    Some(Value::Tensor(t)) => {
                        // SAFETY: native code reserved one u64 per result slot at `out`.
                        unsafe { *out = pyjit_runtime::abi::handle_from_tensor(t) as u64 };
                    }
                    _ => c.fail_internal(site, "a tensor op's result is not a tensor"),
                }
            }
            Ok(vs) => {
                let mut slots = Vec::with_capacity(vs.len());
                for (v, t) in vs.into_iter().zip(results) {
                    if let Err(m) = layout::value_into_slots(v, t, &mut slots) {
                        let kinds: Vec<Slot> = results.iter().flat_map(layout::slots_of).collect();
                        layout::release_raw(&kinds, &slots);
                        c.fail_internal(site, &m);
                        return;
                    }
                }
                for (i, s) in slots.into_iter().enumerate() {
                    // SAFETY: native code reserved one u64 per result slot at `out`.
                    unsafe { *out.add(i) = s };
                }
            }
            Err(e) => c.fail(site, e),
        }
    })
}

/// A tensor op straight from the operand slots: tensor operands go from their handles to the
/// runtime's values without an intermediate interpreter value (this is the per-op hot path);
/// other operands are converted exactly as the interpreter converts them.
///
/// # Safety
/// `raw` must hold the live operand slots of `operands`.
unsafe fn run_tensor_op(
    id: pyjit_ir::OpId,
    operands: &[Type],
    raw: &[u64],
    span: Span,
    owned_first: bool,
) -> Result<Results, InterpError> {
    let schema = pyjit_runtime::schema::schema(id);
    let mut pos = 0;
    let mut rt: smallvec::SmallVec<[pyjit_runtime::Value; 4]> = smallvec::SmallVec::new();
    for (i, t) in operands.iter().enumerate() {
        if i == 0 && owned_first && matches!(t, Type::Tensor(_)) {
            pos = 1;
            // SAFETY: `owned_first`: native code handed this operand's reference over.
            let t = unsafe { handed_over(raw, 0) };
            rt.push(t.map_or(pyjit_runtime::Value::None, pyjit_runtime::Value::Tensor));
            continue;
        }
        let param = schema.params.get(i).map(|p| &p.ty);
        // SAFETY: the caller guarantees the slots are live.
        rt.push(unsafe { runtime_operand(t, raw, &mut pos, param) });
    }
    let out = if owned_first {
        pyjit_runtime::dispatch::call_owned_in(id, &mut rt)
    } else {
        pyjit_runtime::dispatch::call(id, &rt)
    }
    .map_err(|e| InterpError::new(e.kind(), e.to_string(), span))?;
    Ok(out.into_iter().map(from_runtime).collect())
}

/// The results of an op run by [`pjn_op`] (inline for the usual one or two).
type Results = smallvec::SmallVec<[Value; 2]>;

/// The tensor of the handle in slot `pos`, taking over its reference.
///
/// # Safety
/// `raw[pos]` must be a live tensor handle whose reference native code handed over (the
/// operand's last use): it does not release or read the handle after the call.
unsafe fn handed_over(raw: &[u64], pos: usize) -> Option<pyjit_runtime::Tensor> {
    let h = raw.get(pos).copied().unwrap_or(0) as *mut pyjit_runtime::abi::PjTensor;
    // SAFETY: the caller guarantees the handle is live and its reference is ours.
    unsafe { pyjit_runtime::abi::tensor_from_handle(h) }
}

/// The runtime value of an operand of type `t` read from its slots at `pos` (advanced past
/// them), for a tensor-op parameter of type `param` (converted as the interpreter converts
/// it; `None`: no parameter, converted generically). A tensor goes from its handle to the
/// runtime's tensor directly.
///
/// # Safety
/// `raw[*pos..]` must hold the live slots of a value of type `t`.
unsafe fn runtime_operand(
    t: &Type,
    raw: &[u64],
    pos: &mut usize,
    param: Option<&pyjit_runtime::schema::ArgType>,
) -> pyjit_runtime::Value {
    match t {
        Type::Tensor(_) => {
            let h = raw.get(*pos).copied().unwrap_or(0) as *const pyjit_runtime::abi::PjTensor;
            *pos += 1;
            // SAFETY: the caller guarantees the handle is live.
            match unsafe { pyjit_runtime::abi::tensor_of_handle(h) } {
                Some(t) => pyjit_runtime::Value::Tensor(t),
                None => pyjit_runtime::Value::None,
            }
        }
        _ => {
            // SAFETY: the caller guarantees the slots are live.
            let v = unsafe { layout::slots_to_value(t, raw, pos) };
            match param {
                Some(p) => to_runtime(&v, p),
                None => pyjit_value::generic_to_runtime(&v),
            }
        }
    }
}

/// One value op (lists, strings, subscripts, `print`, `raise`, a failed `check`), with the
/// semantics every backend shares ([`pyjit_value::ops`]).
fn run_op(
    c: &mut Ctx<'_>,
    kind: &OpKind,
    args: Vec<Value>,
    span: Span,
) -> Result<Vec<Value>, InterpError> {
    let mut ectx = ops::EvalCtx { out: &mut *c.out };
    match ops::eval(kind, &args, &mut ectx) {
        Some(Ok(vals)) => Ok(vals),
        Some(Err(e)) if ops::raised_by_program(kind) => {
            Err(InterpError::raised(e.kind, e.message, span))
        }
        Some(Err(e)) => Err(InterpError::at(e, span)),
        None => Err(InterpError::internal(
            format!("`{}` has no host implementation", kind.name()),
            span,
        )),
    }
}

// ---- scalar host functions (Python semantics from pyjit_value::scalar) ----

fn scalar_fn<R: Default>(ctx: *mut Ctx<'_>, site: u64, r: impl FnOnce() -> Result<R, PyErr>) -> R {
    with_ctx(ctx, site, |c| match r() {
        Ok(v) => v,
        Err(e) => {
            c.fail_with(site, e);
            R::default()
        }
    })
}

pub(crate) extern "C" fn pjn_int_pow(ctx: *mut Ctx<'_>, site: u64, a: i64, b: i64) -> i64 {
    scalar_fn(ctx, site, || scalar::int_bin(pyjit_ir::IntBinOp::Pow, a, b))
}

pub(crate) extern "C" fn pjn_int_truediv(ctx: *mut Ctx<'_>, site: u64, a: i64, b: i64) -> f64 {
    scalar_fn(ctx, site, || scalar::int_truediv(a, b))
}

pub(crate) extern "C" fn pjn_float_floordiv(ctx: *mut Ctx<'_>, site: u64, a: f64, b: f64) -> f64 {
    scalar_fn(ctx, site, || {
        scalar::float_bin(pyjit_ir::FloatBinOp::FloorDiv, a, b)
    })
}

pub(crate) extern "C" fn pjn_float_mod(ctx: *mut Ctx<'_>, site: u64, a: f64, b: f64) -> f64 {
    scalar_fn(ctx, site, || {
        scalar::float_bin(pyjit_ir::FloatBinOp::Mod, a, b)
    })
}

pub(crate) extern "C" fn pjn_float_pow(ctx: *mut Ctx<'_>, site: u64, a: f64, b: f64) -> f64 {
    scalar_fn(ctx, site, || scalar::float_pow(a, b))
}

pub(crate) extern "C" fn pjn_float_to_int(ctx: *mut Ctx<'_>, site: u64, x: f64) -> i64 {
    scalar_fn(ctx, site, || scalar::float_to_int(x))
}

fn math_fn(code: i64) -> MathFn {
    MathFn::ALL
        .get(code as usize)
        .copied()
        .unwrap_or(MathFn::Fabs)
}

/// `math.*` functions with a float result.
pub(crate) extern "C" fn pjn_math_f(
    ctx: *mut Ctx<'_>,
    site: u64,
    code: i64,
    x: f64,
    y: f64,
) -> f64 {
    scalar_fn(ctx, site, || scalar::math_float(math_fn(code), x, y))
}

/// `math.floor/ceil/trunc/round`: float → int.
pub(crate) extern "C" fn pjn_math_i(ctx: *mut Ctx<'_>, site: u64, code: i64, x: f64) -> i64 {
    scalar_fn(ctx, site, || scalar::math_int(math_fn(code), x))
}

/// The address of every host function, by the name native code imports it under.
pub(crate) fn symbols() -> Vec<(&'static str, *const u8)> {
    let elem = pyjit_runtime::ops::elem::entries()
        .into_iter()
        .map(|e| (e.name, e.address));
    elem.chain([
        ("pjn_error", pjn_error as *const u8),
        ("pjn_note_call", pjn_note_call as *const u8),
        ("pjn_op", pjn_op as *const u8),
        ("pjn_int_pow", pjn_int_pow as *const u8),
        ("pjn_int_truediv", pjn_int_truediv as *const u8),
        ("pjn_float_floordiv", pjn_float_floordiv as *const u8),
        ("pjn_float_mod", pjn_float_mod as *const u8),
        ("pjn_float_pow", pjn_float_pow as *const u8),
        ("pjn_float_to_int", pjn_float_to_int as *const u8),
        ("pjn_math_f", pjn_math_f as *const u8),
        ("pjn_math_i", pjn_math_i as *const u8),
        ("pjn_obj_retain", layout::pjn_obj_retain as *const u8),
        ("pjn_obj_release", layout::pjn_obj_release as *const u8),
        (
            "pj_tensor_retain",
            pyjit_runtime::abi::pj_tensor_retain as *const u8,
        ),
        (
            "pj_tensor_release",
            pyjit_runtime::abi::pj_tensor_release as *const u8,
        ),
        (
            "pj_tensor_view",
            pyjit_runtime::abi::pj_tensor_view as *const u8,
        ),
        (
            "pj_fused_group_is_small",
            pyjit_runtime::abi::pj_fused_group_is_small as *const u8,
        ),
    ])
    .collect()
}
