//! IR → Cranelift, one function at a time.
//!
//! * Regions become blocks: an `if` branches to two blocks that jump to a merge block whose
//!   parameters are the `if`'s results; a `loop` is a header block with parameters
//!   `(i, cond, carried…)`, a body block and an exit block whose parameters are the results.
//!   IR values map to Cranelift SSA values directly: no variables, no phi placement.
//! * Every function takes the call context first; errors are a flag in the context that native
//!   code tests after each fallible call (see `host.rs`).
//! * **Ownership.** Every value with tensor or object slots owns one reference per slot. A value
//!   is released right after the last op (of the region it is defined in) that uses it, directly
//!   or inside that op's regions; uses inside nested regions borrow. `call`, `loop` (its carried
//!   operands), `yield` and `return` *consume* their operands: an operand at its last use is
//!   moved, otherwise a new reference is taken. Every other op borrows its operands and returns
//!   fresh references. The set of references owned at each point is known statically (the
//!   `frames` stack), so every error path releases exactly what is live and nothing leaks.

use crate::CodegenError;
use crate::host::{self, Site, SiteKind};
use crate::layout::{Slot, has_refs, slots_of};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    self, AbiParam, BlockArg, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, types,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use cranelift_module::{FuncId as ClFuncId, Module as _};
use pyjit_ir::{
    BoolBinOp, CastOp, CmpOp, Const, ElemFn, EntityRef, FloatBinOp, FloatUnOp, IntBinOp, IntUnOp,
    MathFn, Op, OpKind, Prec, Region, SecondaryMap, Type, Value as IrValue, ValueDef,
};
use pyjit_syntax::Span;
use pyjit_value::{ExcKind, PyErr, scalar};
use std::collections::{HashMap, HashSet};

mod refill;
mod repeat;
mod spmd;
mod vectorize;

pub(crate) fn clif_type(s: Slot) -> ir::Type {
    match s {
        Slot::Int | Slot::Tensor | Slot::Obj => types::I64,
        Slot::Float => types::F64,
        Slot::Bool => types::I8,
    }
}

/// The Cranelift signatures of the host functions: (name, params, returns).
pub(crate) fn host_signatures() -> Vec<(&'static str, Vec<ir::Type>, Vec<ir::Type>)> {
    use types::{F64, I64};
    let elem = pyjit_runtime::ops::elem::entries().into_iter().map(|e| {
        let t = match e.prec {
            Prec::F32 => types::F32,
            Prec::F64 => F64,
        };
        (e.name, vec![t], vec![t])
    });
    elem.chain([
        ("pjn_error", vec![I64, I64], vec![]),
        ("pjn_note_call", vec![I64, I64], vec![]),
        ("pjn_op", vec![I64, I64, I64, I64], vec![]),
        ("pjn_int_pow", vec![I64, I64, I64, I64], vec![I64]),
        ("pjn_int_truediv", vec![I64, I64, I64, I64], vec![F64]),
        ("pjn_float_floordiv", vec![I64, I64, F64, F64], vec![F64]),
        ("pjn_float_mod", vec![I64, I64, F64, F64], vec![F64]),
        ("pjn_float_pow", vec![I64, I64, F64, F64], vec![F64]),
        ("pjn_float_to_int", vec![I64, I64, F64], vec![I64]),
        ("pjn_math_f", vec![I64, I64, I64, F64, F64], vec![F64]),
        ("pjn_math_i", vec![I64, I64, I64, F64], vec![I64]),
        ("pjn_obj_retain", vec![I64], vec![]),
        ("pjn_obj_release", vec![I64], vec![]),
        ("pj_tensor_retain", vec![I64], vec![]),
        ("pj_tensor_release", vec![I64], vec![]),
        ("pj_tensor_view", vec![I64, I64], vec![types::I32]),
        ("pj_fused_group_is_small", vec![I64, I64], vec![types::I8]),
    ])
    .collect()
}

/// What a `yield` does in the region being lowered.
#[derive(Clone, Copy)]
enum Exit {
    Body,
    IfMerge(ir::Block),
    /// A loop body: the yield branches back to `body` or to `exit`; `counter` is the
    /// iteration index and the trip count it is tested against (none for `while` loops).
    Loop {
        body: ir::Block,
        exit: ir::Block,
        counter: Option<(ir::Value, Option<ir::Value>)>,
    },
    /// The region is computed speculatively: its yielded values are kept in `captured`.
    Capture,
}

pub(crate) struct Lowering<'a, 'b> {
    pub f: &'a pyjit_ir::Function,
    pub b: FunctionBuilder<'b>,
    pub jit: &'a mut JITModule,
    pub host: &'a HashMap<&'static str, ClFuncId>,
    /// Cranelift ids of the module's functions, by `FuncId` index.
    /// Cranelift's id of each IR function (`None`: not compiled, so not callable).
    pub funcs: &'a [Option<ClFuncId>],
    pub sites: &'a mut Vec<Site>,
    frefs: HashMap<ClFuncId, ir::FuncRef>,
    ctx: ir::Value,
    vals: HashMap<IrValue, Vec<ir::Value>>,
    last_use: HashMap<IrValue, u32>,
    nested_use: HashSet<(Op, IrValue)>,
    frames: Vec<Vec<IrValue>>,
    ret_slots: Vec<Slot>,
    captured: Vec<ir::Value>,
    /// The op being lowered (its sites carry the frames inlining removed).
    cur_op: Option<Op>,
    /// Tensors (of known dtype and rank) whose elements `tensor.load`/`tensor.store` access
    /// inline: their raw view is read once, where the tensor is defined.
    view_users: HashSet<IrValue>,
    views: HashMap<IrValue, View>,
    /// `a and b` computed speculatively (`select(a, b, false)`): the two conditions, so a loop's
    /// `yield` can test them with two branches instead of materializing the conjunction.
    short_and: HashMap<IrValue, (ir::Value, ir::Value)>,
    /// `size.int` (constant dim) and `numel` of tensors of known rank: read from the view.
    shape_ops: HashMap<Op, ShapeQuery>,
    /// The function's use lists, built the first time a bounds check asks whether a tensor's
    /// sizes are those of the list it was created from ([`Lowering::created_size`]).
    uses: std::cell::OnceCell<pyjit_ir::Uses>,
    /// `f64` values that are the exact promotion of an `f32` value (an `f32` element load, an
    /// `elem.*.f32` result), with that value: narrowing one again is free.
    narrowed: HashMap<ir::Value, ir::Value>,
    /// The `float` values kept in `f32` registers ([`f32_carried`]), and, per block their
    /// values enter through (a loop body, an `if`'s merge), which of its parameters are those.
    f32_vals: HashSet<IrValue>,
    f32_params: HashMap<ir::Block, Vec<bool>>,
    /// Per loop body block: the order of its carried slots among the block's parameters
    /// ([`Lowering::carried_order`]): parameter `p` (after the index) is carried slot `order[p]`.
    carried_order: HashMap<ir::Block, Vec<usize>>,
    /// Whether the function has a loop; the scratch words of `float_const` and how many are used.
    has_loop: bool,
    const_slot: Option<(ir::StackSlot, usize)>,
    pinned_consts: usize,
    /// Run counted loops over float views several iterations at a time ([`vectorize`]).
    vectorize: bool,
    /// Lowering the interleaver's lanes (`refill.rs`; see [`Lowering::select_cond`]).
    interleaving: bool,
}

#[derive(Clone, Copy)]
enum ShapeQuery {
    /// `x.size(d)` with `d` already wrapped into `0..rank`.
    Size(usize),
    Numel,
}

/// The `size.int`/`numel` ops that cannot fail (known rank, constant dim in range) and so read
/// the tensor's view inline.
fn shape_queries(f: &pyjit_ir::Function) -> HashMap<Op, ShapeQuery> {
    let mut out = HashMap::new();
    for op in f.all_ops() {
        let d = f.op(op);
        let OpKind::Tensor(id) = d.kind else { continue };
        let Some(rank) = d
            .operands
            .first()
            .and_then(|&t| f.values[t].ty.as_tensor())
            .and_then(|tt| tt.rank)
        else {
            continue;
        };
        let r = i64::from(rank);
        let q = match pyjit_ir::schema::op_name(id).as_str() {
            "numel" => ShapeQuery::Numel,
            "size.int" => {
                let dim = d
                    .operands
                    .get(1)
                    .and_then(|&v| match &f.op(f.defining_op(v)?).kind {
                        OpKind::Const(Const::Int(i)) => Some(*i),
                        _ => None,
                    });
                match dim {
                    Some(k) if (-r..r).contains(&k) => {
                        ShapeQuery::Size(if k < 0 { k + r } else { k } as usize)
                    }
                    _ => continue,
                }
            }
            _ => continue,
        };
        out.insert(op, q);
    }
    out
}

/// A tensor's raw view as Cranelift values: data pointer (address of element `[0, …, 0]`), and
/// per dim its size and stride (in elements).
#[derive(Clone)]
struct View {
    data: ir::Value,
    sizes: Vec<ir::Value>,
    strides: Vec<ir::Value>,
}

type Res<T> = Result<T, CodegenError>;

impl<'a, 'b> Lowering<'a, 'b> {
    pub(crate) fn new(
        f: &'a pyjit_ir::Function,
        b: FunctionBuilder<'b>,
        jit: &'a mut JITModule,
        host: &'a HashMap<&'static str, ClFuncId>,
        funcs: &'a [Option<ClFuncId>],
        sites: &'a mut Vec<Site>,
        vectorize: bool,
    ) -> Self {
        let (last_use, nested_use) = liveness(f);
        let mut view_users: HashSet<IrValue> = f
            .all_ops()
            .into_iter()
            .filter(|&op| matches!(f.op(op).kind, OpKind::TensorLoad | OpKind::TensorStore))
            .filter_map(|op| f.op(op).operands.first().copied())
            .filter(|&t| {
                f.values[t]
                    .ty
                    .as_tensor()
                    .is_some_and(|tt| tt.dtype.is_some() && tt.rank.is_some())
            })
            .collect();
        let shape_ops = shape_queries(f);
        view_users.extend(shape_ops.keys().map(|&op| f.op(op).operands[0]));
        Lowering {
            f,
            b,
            jit,
            host,
            funcs,
            sites,
            frefs: HashMap::new(),
            ctx: ir::Value::from_u32(0),
            vals: HashMap::new(),
            last_use,
            nested_use,
            frames: Vec::new(),
            ret_slots: slots_of(&f.ret),
            captured: Vec::new(),
            cur_op: None,
            view_users,
            views: HashMap::new(),
            short_and: HashMap::new(),
            shape_ops,
            uses: std::cell::OnceCell::new(),
            narrowed: HashMap::new(),
            f32_vals: f32_carried(f),
            f32_params: HashMap::new(),
            carried_order: HashMap::new(),
            has_loop: f.all_ops().iter().any(|&op| f.op(op).kind == OpKind::Loop),
            const_slot: None,
            pinned_consts: 0,
            vectorize,
            interleaving: false,
        }
    }

    /// Lowers the whole function; the builder is finalized by the caller.
    pub(crate) fn lower_function(mut self) -> Res<FunctionBuilder<'b>> {
        let entry = self.b.create_block();
        self.b.append_block_param(entry, types::I64);
        let mut param_slots = Vec::new();
        for &p in self.f.params() {
            let kinds = slots_of(&self.f.values[p].ty);
            let vs: Vec<ir::Value> = kinds
                .iter()
                .map(|&k| self.b.append_block_param(entry, clif_type(k)))
                .collect();
            param_slots.push((p, vs));
        }
        self.b.switch_to_block(entry);
        self.ctx = self.b.block_params(entry)[0];
        for (p, vs) in param_slots {
            self.vals.insert(p, vs);
        }
        self.lower_region(self.f.body, Exit::Body, true)?;
        self.b.seal_all_blocks();
        Ok(self.b)
    }

    // ---- helpers ----

    fn ins(&mut self) -> cranelift_frontend::FuncInstBuilder<'_, 'b> {
        self.b.ins()
    }

    fn ty(&self, v: IrValue) -> &'a Type {
        &self.f.values[v].ty
    }

    fn slots(&self, v: IrValue) -> Res<Vec<ir::Value>> {
        self.vals
            .get(&v)
            .cloned()
            .ok_or_else(|| CodegenError::Internal(format!("value {v} used before definition")))
    }

    fn one(&self, v: IrValue) -> Res<ir::Value> {
        self.slots(v)?
            .first()
            .copied()
            .ok_or_else(|| CodegenError::Internal(format!("value {v} has no slot")))
    }

    fn fref(&mut self, id: ClFuncId) -> ir::FuncRef {
        if let Some(&r) = self.frefs.get(&id) {
            return r;
        }
        let r = self.jit.declare_func_in_func(id, self.b.func);
        self.frefs.insert(id, r);
        r
    }

    fn call_host(&mut self, name: &'static str, args: &[ir::Value]) -> Vec<ir::Value> {
        let id = self.host[name];
        let r = self.fref(id);
        let inst = self.b.ins().call(r, args);
        self.b.inst_results(inst).to_vec()
    }

    fn site(&mut self, kind: SiteKind, span: Span) -> ir::Value {
        // An op inlined from another function raises (or calls) in that function's name, with
        // the inlined calls as frames.
        let (inner, frames) = match self.cur_op {
            Some(op) => self.f.inline_frames(op),
            None => (None, Vec::new()),
        };
        self.sites.push(Site {
            function: inner.unwrap_or(&self.f.name).to_string(),
            span,
            kind,
            inline_frames: frames
                .into_iter()
                .map(|(function, span)| pyjit_value::CallSite {
                    function: function.to_string(),
                    span,
                })
                .collect(),
        });
        let idx = (self.sites.len() - 1) as i64;
        self.b.ins().iconst(types::I64, idx)
    }

    fn error_site(&mut self, error: PyErr, span: Span) -> ir::Value {
        self.site(SiteKind::Error(error), span)
    }

    fn refcount(&mut self, ty: &Type, slots: &[ir::Value], retain: bool) {
        for (k, &v) in slots_of(ty).iter().zip(slots) {
            let name = match (k, retain) {
                (Slot::Tensor, true) => "pj_tensor_retain",
                (Slot::Tensor, false) => "pj_tensor_release",
                (Slot::Obj, true) => "pjn_obj_retain",
                (Slot::Obj, false) => "pjn_obj_release",
                _ => continue,
            };
            self.call_host(name, &[v]);
        }
    }

    fn release_value(&mut self, v: IrValue) -> Res<()> {
        let slots = self.slots(v)?;
        self.refcount(self.ty(v), &slots, false);
        Ok(())
    }

    fn zero(&mut self, s: Slot) -> ir::Value {
        match s {
            Slot::Float => self.b.ins().f64const(0.0),
            other => self.b.ins().iconst(clif_type(other), 0),
        }
    }

    /// Releases every reference owned at this point, leaves the call depth and returns zeros
    /// (the caller sees the context's failed flag).
    fn emit_fail_return(&mut self) -> Res<()> {
        let live: Vec<IrValue> = self.frames.iter().flatten().copied().collect();
        for v in live {
            self.release_value(v)?;
        }
        self.leave_depth();
        let zeros: Vec<ir::Value> = self
            .ret_slots
            .clone()
            .into_iter()
            .map(|s| self.zero(s))
            .collect();
        self.b.ins().return_(&zeros);
        Ok(())
    }

    fn leave_depth(&mut self) {
        let flags = MemFlagsData::trusted();
        let d = self
            .b
            .ins()
            .load(types::I64, flags, self.ctx, host::OFFSET_DEPTH);
        let d1 = self.b.ins().iadd_imm_s(d, -1);
        self.b.ins().store(flags, d1, self.ctx, host::OFFSET_DEPTH);
    }

    /// Branches to a cold failure path when `cond` is true; continues in a fresh block.
    /// `on_fail` emits what the failure path does before cleaning up (record the error).
    fn fail_if(&mut self, cond: ir::Value, on_fail: impl FnOnce(&mut Self) -> Res<()>) -> Res<()> {
        self.fail_when(cond, true, on_fail)
    }

    /// [`Self::fail_if`], taking the failure path when `cond` is `fail_on`.
    fn fail_when(
        &mut self,
        cond: ir::Value,
        fail_on: bool,
        on_fail: impl FnOnce(&mut Self) -> Res<()>,
    ) -> Res<()> {
        let fail = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(fail);
        if fail_on {
            self.b.ins().brif(cond, fail, &[], cont, &[]);
        } else {
            self.b.ins().brif(cond, cont, &[], fail, &[]);
        }
        self.b.switch_to_block(fail);
        on_fail(self)?;
        self.emit_fail_return()?;
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// After a fallible call: propagate a recorded error (noting the call site for calls).
    fn check_failed(&mut self, call_site: Option<ir::Value>) -> Res<()> {
        let flag = self.b.ins().load(
            types::I8,
            MemFlagsData::trusted(),
            self.ctx,
            host::OFFSET_FAILED,
        );
        let ctx = self.ctx;
        self.fail_if(flag, |s| {
            if let Some(site) = call_site {
                s.call_host("pjn_note_call", &[ctx, site]);
            }
            Ok(())
        })
    }

    /// Raises the compile-time error `class: message` when `cond` is true.
    fn raise_if(&mut self, cond: ir::Value, error: PyErr, span: Span) -> Res<()> {
        self.fail_if(cond, |s| {
            s.record_error(error, span);
            Ok(())
        })
    }

    /// Records the compile-time error `error` at `span` in the context.
    fn record_error(&mut self, error: PyErr, span: Span) {
        let site = self.error_site(error, span);
        let ctx = self.ctx;
        self.call_host("pjn_error", &[ctx, site]);
    }

    /// Whether op `op` (index `k`) may take over the current frame's reference to `v`: it is
    /// `v`'s last use, not from a nested region, and the frame owns `v`.
    fn movable(&self, v: IrValue, k: u32, op: Op) -> bool {
        self.last_use.get(&v) == Some(&k)
            && !self.nested_use.contains(&(op, v))
            && self.frames.last().is_some_and(|f| f.contains(&v))
    }

    /// The slots of an operand passed to a consuming op (`call`, `loop`, `yield`, `return`, a
    /// tensor op writing over a dead operand): moved at its last use ([`Self::movable`]),
    /// otherwise a new reference.
    fn consume(&mut self, v: IrValue, k: u32, op: Op) -> Res<Vec<ir::Value>> {
        let slots = self.slots(v)?;
        let ty = self.ty(v);
        if !has_refs(ty) {
            return Ok(slots);
        }
        if self.movable(v, k, op) {
            if let Some(frame) = self.frames.last_mut()
                && let Some(pos) = frame.iter().position(|&x| x == v)
            {
                frame.remove(pos);
            }
            return Ok(slots);
        }
        self.refcount(ty, &slots, true);
        Ok(slots)
    }

    /// Releases the values of the current frame whose last use was op `k`.
    fn end_of_op(&mut self, k: u32) -> Res<()> {
        let frame = self.frames.pop().unwrap_or_default();
        let (done, keep): (Vec<IrValue>, Vec<IrValue>) = frame
            .into_iter()
            .partition(|v| self.last_use.get(v) == Some(&k));
        self.frames.push(keep);
        for v in done {
            self.release_value(v)?;
        }
        Ok(())
    }

    /// Binds new values (op results or region parameters) the current frame now owns; unused
    /// ones are released at once.
    fn define(&mut self, vs: &[IrValue], slots: Vec<ir::Value>) -> Res<()> {
        let mut it = slots.into_iter();
        for &v in vs {
            let n = slots_of(self.ty(v)).len();
            let s: Vec<ir::Value> = it.by_ref().take(n).collect();
            self.vals.insert(v, s);
            if self.view_users.contains(&v) {
                self.load_view(v)?;
            }
            if has_refs(self.ty(v)) {
                if self.last_use.contains_key(&v) {
                    if let Some(f) = self.frames.last_mut() {
                        f.push(v);
                    }
                } else {
                    self.release_value(v)?;
                }
            }
        }
        Ok(())
    }

    /// Reads the raw view of tensor `t` (just defined) with one runtime call; its data pointer,
    /// sizes and strides are SSA values from here on, so element accesses in loops below reuse
    /// them (the view of a handle never changes and storage never moves, docs/abi.md).
    fn load_view(&mut self, t: IrValue) -> Res<()> {
        use pyjit_runtime::RawView;
        let rank = self.ty(t).as_tensor().and_then(|tt| tt.rank).unwrap_or(0) as usize;
        let h = self.one(t)?;
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            std::mem::size_of::<RawView>() as u32,
            3,
        ));
        let addr = self.b.ins().stack_addr(types::I64, ss, 0);
        // Fails only for a null handle, which a tensor value never is.
        self.call_host("pj_tensor_view", &[h, addr]);
        let flags = MemFlagsData::trusted();
        let field = |s: &mut Self, off: usize| s.b.ins().load(types::I64, flags, addr, off as i32);
        let data = field(self, std::mem::offset_of!(RawView, data));
        let shape = field(self, std::mem::offset_of!(RawView, shape));
        let strides_p = field(self, std::mem::offset_of!(RawView, strides));
        let mut sizes = Vec::with_capacity(rank);
        let mut strides = Vec::with_capacity(rank);
        for k in 0..rank {
            let o = (8 * k) as i32;
            sizes.push(self.b.ins().load(types::I64, flags, shape, o));
            strides.push(self.b.ins().load(types::I64, flags, strides_p, o));
        }
        self.views.insert(
            t,
            View {
                data,
                sizes,
                strides,
            },
        );
        Ok(())
    }

    /// `tensor.load` / `tensor.store` through the view: wraps negative indices, checks every
    /// index against its size (one branch to a cold path that runs the op on the host, which
    /// raises PyTorch's `IndexError`), then loads or stores with the dtype's conversion.
    fn lower_access(&mut self, op: Op, k: u32) -> Res<()> {
        let data = self.f.op(op);
        let store = data.kind == OpKind::TensorStore;
        let operands = data.operands.clone();
        let results = data.results.clone();
        let t = operands[0];
        let dtype = self
            .ty(t)
            .as_tensor()
            .and_then(|tt| tt.dtype)
            .ok_or_else(|| CodegenError::Internal("element access of an untyped tensor".into()))?;
        let view = self
            .views
            .get(&t)
            .cloned()
            .ok_or_else(|| CodegenError::Internal("element access without a view".into()))?;
        let n_idx = operands.len() - 1 - store as usize;
        if view.sizes.len() != n_idx {
            return Err(CodegenError::Internal(
                "element access with a wrong index count".into(),
            ));
        }
        let mut bad: Option<ir::Value> = None;
        let mut off: Option<ir::Value> = None;
        for d in 0..n_idx {
            let i = self.one(operands[1 + d])?;
            let size = view.sizes[d];
            if self.index_proven(t, d, operands[1 + d]) {
                // `for i in range(t.size(d))`: 0 <= i < size, no wrap, no check.
                let term = self.b.ins().imul(i, view.strides[d]);
                off = Some(match off {
                    None => term,
                    Some(o) => self.b.ins().iadd(o, term),
                });
                continue;
            }
            let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, i, 0);
            let wrapped = self.b.ins().iadd(i, size);
            let j = self.b.ins().select(neg, wrapped, i);
            // Unsigned: a still-negative index is huge, so one compare checks both ends.
            let oob = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, j, size);
            bad = Some(match bad {
                None => oob,
                Some(b) => self.b.ins().bor(b, oob),
            });
            let term = self.b.ins().imul(j, view.strides[d]);
            off = Some(match off {
                None => term,
                Some(o) => self.b.ins().iadd(o, term),
            });
        }
        if let Some(bad) = bad {
            self.fail_if(bad, |s| {
                // The host runs the op as the interpreter does, raising the same IndexError;
                // were it to succeed, the internal error below is what the caller sees.
                s.emit_host_call(op)?;
                let span = s.f.op(op).span;
                s.record_error(
                    PyErr::new(
                        ExcKind::Internal,
                        "inline bounds check disagrees with the runtime",
                    ),
                    span,
                );
                Ok(())
            })?;
        }
        let addr = match off {
            None => view.data,
            Some(o) => {
                let shift = dtype.size_of().trailing_zeros() as i64;
                let bytes = self.b.ins().ishl_imm_u(o, shift);
                self.b.ins().iadd(view.data, bytes)
            }
        };
        let flags = MemFlagsData::trusted();
        use pyjit_runtime::DType as D;
        if store {
            let v = self.one(operands[operands.len() - 1])?;
            let vt = self.ty(operands[operands.len() - 1]).clone();
            self.store_element(v, &vt, dtype, addr)?;
            self.end_of_op(k)?;
            return Ok(());
        }
        let v = match dtype {
            D::Bool => self.b.ins().load(types::I8, flags, addr, 0),
            D::Int32 => self.b.ins().sload32(flags, addr, 0),
            D::Int64 => self.b.ins().load(types::I64, flags, addr, 0),
            D::Float32 => {
                let x = self.b.ins().load(types::F32, flags, addr, 0);
                self.widen(x)
            }
            D::Float64 => self.b.ins().load(types::F64, flags, addr, 0),
        };
        self.end_of_op(k)?;
        self.define(&results, vec![v])
    }

    /// Whether index `idx` of dim `d` of tensor `t` is in range by construction: it is the
    /// iteration index of a loop whose trip count is `t.size(d)`, or that index plus a constant
    /// k >= 0 of a loop running `t.size(d) - k` times (`range(k, n)`) (the same view's size, or the
    /// size of the tensor `t` was made like: `out = np.empty_like(x)` has `x`'s sizes).
    fn index_proven(&self, t: IrValue, d: usize, idx: IrValue) -> bool {
        let f = self.f;
        let const_int = |v: IrValue| match f.defining_op(v).map(|o| &f.op(o).kind) {
            Some(OpKind::Const(Const::Int(k))) => Some(*k),
            _ => None,
        };
        // The index is the counter, or the counter plus k >= 0 (`range(k, n)`).
        let (counter, k) = match f.values[idx].def {
            ValueDef::Param(..) => (idx, 0),
            ValueDef::Result(op, 0) => match (&f.op(op).kind, &f.op(op).operands[..]) {
                (OpKind::IntBin(IntBinOp::Add), &[c, kv]) => match const_int(kv) {
                    Some(k) if k >= 0 => (c, k),
                    _ => return false,
                },
                _ => return false,
            },
            _ => return false,
        };
        let ValueDef::Param(r, 0) = f.values[counter].def else {
            return false;
        };
        let Some(lp) = f.regions[r].parent else {
            return false;
        };
        let ld = f.op(lp);
        if ld.kind != OpKind::Loop {
            return false;
        }
        // The trip count: `t.size(d)`, or `t.size(d) - k` for an index offset by k (counters
        // then run below size - k, so indices stay below the size).
        let mut size = ld.operands[0];
        if k != 0 {
            let Some(sub) = f.defining_op(size) else {
                return false;
            };
            match (&f.op(sub).kind, &f.op(sub).operands[..]) {
                (OpKind::IntBin(IntBinOp::Sub), &[s, kv]) if const_int(kv) == Some(k) => size = s,
                _ => return false,
            }
        }
        // `out = np.zeros((n, m))` then `for i in range(n)`: the size `t` was created with.
        if self.created_size(self.shape_source(t), d) == Some(size) {
            return true;
        }
        let Some(size_op) = f.defining_op(size) else {
            return false;
        };
        matches!(self.shape_ops.get(&size_op), Some(ShapeQuery::Size(q)) if *q == d)
            && self.shape_source(f.op(size_op).operands[0]) == self.shape_source(t)
    }

    /// The int value dim `d` of tensor `t` was created with, when `t` is made by
    /// `zeros`/`ones`/`empty`/`full` from a list built in place (`np.zeros((n, m))`,
    /// `torch.empty([n, m])`) that nothing else uses (so nothing changed it before): a tensor
    /// that exists has exactly those sizes (a negative one raised when it was made).
    fn created_size(&self, t: IrValue, d: usize) -> Option<IrValue> {
        let f = self.f;
        let op = f.defining_op(t)?;
        let OpKind::Tensor(id) = f.op(op).kind else {
            return None;
        };
        if !matches!(
            pyjit_ir::schema::op_name(id).as_str(),
            "zeros" | "ones" | "empty" | "full"
        ) {
            return None;
        }
        self.inline_list(*f.op(op).operands.first()?)?
            .get(d)
            .copied()
    }

    /// Whether tensor op `op` (`id`) is a `scalar_tensor` (NumPy's `np.float32(2.0)`) whose every
    /// use only reads it into a fresh tensor: an operand of a `fused` group, or of an
    /// elementwise op or comparison of two or more tensors that is not in place. Such a tensor,
    /// when its operands are constants, is made once, when compiling ([`Self::const_tensor`]),
    /// instead of on every run: nothing can write it (its storage is shared with the module, so
    /// no kernel takes it over either) and nothing hands it on.
    fn is_const_tensor(&self, op: Op, id: pyjit_ir::OpId) -> bool {
        use pyjit_runtime::schema::{ArgType, OpKind as Kind};
        let f = self.f;
        if pyjit_ir::schema::schema(id).name != "scalar_tensor" {
            return false;
        }
        let data = f.op(op);
        if data.results.len() != 1 {
            return false;
        }
        let uses = self.uses.get_or_init(|| pyjit_ir::Uses::build(f));
        let users = uses.users(data.results[0]);
        !users.is_empty()
            && users.iter().all(|&(user, _)| match f.op(user).kind {
                OpKind::Fused => true,
                OpKind::Tensor(uid) => {
                    let facts = pyjit_ir::schema::facts(uid);
                    let tensors = pyjit_ir::schema::schema(uid)
                        .params
                        .iter()
                        .filter(|p| p.ty == ArgType::Tensor)
                        .count();
                    matches!(facts.kind, Kind::Elementwise | Kind::Comparison)
                        && !facts.effects.writes_first
                        && tensors >= 2
                }
                _ => false,
            })
    }

    /// The runtime values of `op`'s operands when every one is a constant.
    fn const_operands(&self, op: Op) -> Option<Vec<pyjit_runtime::Value>> {
        let f = self.f;
        f.op(op)
            .operands
            .iter()
            .map(|&v| match &f.op(f.defining_op(v)?).kind {
                OpKind::Const(c) => Some(c.to_runtime()),
                _ => None,
            })
            .collect()
    }

    /// The handle of the tensor constant op `op` ([`Self::is_const_tensor`]) makes, made now by
    /// the op's kernel and kept by a [`SiteKind::ConstTensor`] site (`None`: an operand is not a
    /// constant, or the kernel failed; the op then runs as any other).
    fn const_tensor(
        &mut self,
        op: Op,
        id: pyjit_ir::OpId,
    ) -> Option<*mut pyjit_runtime::abi::PjTensor> {
        let args = self.const_operands(op)?;
        let mut out = pyjit_runtime::dispatch::call(id, &args).ok()?;
        let t = match (out.pop(), out.is_empty()) {
            (Some(pyjit_runtime::Value::Tensor(t)), true) => t,
            _ => return None,
        };
        let h = pyjit_runtime::abi::handle_from_tensor(t);
        let span = self.f.op(op).span;
        self.site(
            SiteKind::ConstTensor {
                _handle: host::ConstHandle(h),
            },
            span,
        );
        Some(h)
    }

    /// The elements of `v` when it is a list of ints built in place (`list.new`) whose one
    /// use is an operand of a tensor op (`np.zeros((n, m))`, `x.view(b, -1)`): native code
    /// then never makes the list (a host call, an allocation and a release per call) and the
    /// op's host call takes the ints themselves (`emit_host_call_with`); nothing can change
    /// the list between, so a tensor made from it has those sizes (`created_size`).
    ///
    /// The same holds through a `fused` group (a reduction's dims): a list whose one use is an
    /// operand of the group, and whose body parameter only tensor ops read, is never made
    /// either; the group's host call takes the ints, and so does each body op reading the
    /// parameter (what `inline_list` of the parameter gives).
    fn inline_list(&self, v: IrValue) -> Option<Vec<IrValue>> {
        let f = self.f;
        if !matches!(self.ty(v), Type::List(e) if **e == Type::Int) {
            return None;
        }
        let uses = self.uses.get_or_init(|| pyjit_ir::Uses::build(f));
        let only_tensor_ops = |v: IrValue| {
            let users = uses.users(v);
            !users.is_empty()
                && users
                    .iter()
                    .all(|(u, _)| matches!(f.op(*u).kind, OpKind::Tensor(_)))
        };
        if let ValueDef::Param(r, i) = f.values[v].def {
            let group = f.regions[r].parent?;
            if f.op(group).kind != OpKind::Fused || !only_tensor_ops(v) {
                return None;
            }
            let &outer = f.op(group).operands.get(i as usize)?;
            return self.inline_list(outer);
        }
        let list = f.defining_op(v)?;
        if f.op(list).kind != OpKind::ListNew {
            return None;
        }
        match uses.users(v) {
            [(user, _)] if matches!(f.op(*user).kind, OpKind::Tensor(_)) => {}
            [(user, j)] if f.op(*user).kind == OpKind::Fused => {
                let body = *f.op(*user).regions.first()?;
                let &p = f.region_params(body).get(*j as usize)?;
                if !only_tensor_ops(p) {
                    return None;
                }
            }
            _ => return None,
        }
        let items = f.op(list).operands.clone();
        items
            .iter()
            .all(|&e| *self.ty(e) == Type::Int)
            .then_some(items)
    }

    /// The tensor whose sizes `t` was created with: through `empty_like`/`zeros_like`/
    /// `ones_like`/`full_like` (whose results have their operand's sizes) to the first tensor
    /// that is not one.
    fn shape_source(&self, mut t: IrValue) -> IrValue {
        while let Some(op) = self.f.defining_op(t)
            && let OpKind::Tensor(id) = self.f.op(op).kind
            && matches!(
                pyjit_ir::schema::op_name(id).as_str(),
                "empty_like" | "zeros_like" | "ones_like" | "full_like"
            )
        {
            t = self.f.op(op).operands[0];
        }
        t
    }

    /// Stores scalar `v` (of IR type `vt`) into a `dtype` element at `addr`, converted as the
    /// runtime's `Element::from_i64/from_f64/from_bool` convert (what `index_put_` of a Python
    /// scalar does).
    fn store_element(
        &mut self,
        v: ir::Value,
        vt: &Type,
        dtype: pyjit_runtime::DType,
        addr: ir::Value,
    ) -> Res<()> {
        use pyjit_runtime::DType as D;
        let flags = MemFlagsData::trusted();
        let x = match (vt, dtype) {
            (Type::Int, D::Int64) | (Type::Float, D::Float64) | (Type::Bool, D::Bool) => v,
            (Type::Int, D::Int32) => self.b.ins().ireduce(types::I32, v),
            (Type::Int, D::Float64) => self.b.ins().fcvt_from_sint(types::F64, v),
            (Type::Int, D::Float32) => self.b.ins().fcvt_from_sint(types::F32, v),
            (Type::Int, D::Bool) => self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0),
            (Type::Float, D::Float32) => self.narrow(v),
            (Type::Float, D::Bool) => {
                let z = self.b.ins().f64const(0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, v, z)
            }
            (Type::Float, D::Int64 | D::Int32) => {
                // Out of range or NaN gives the type's minimum (x86's "integer indefinite",
                // what PyTorch produces), otherwise truncation toward zero.
                let (ty, lim) = if dtype == D::Int64 {
                    (types::I64, 9_223_372_036_854_775_808.0)
                } else {
                    (types::I32, 2_147_483_648.0)
                };
                let hi = self.b.ins().f64const(lim);
                let lo = self.b.ins().f64const(-lim);
                let below = self.b.ins().fcmp(FloatCC::LessThan, v, hi);
                let above = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, v, lo);
                let ok = self.b.ins().band(below, above);
                let t = self.b.ins().fcvt_to_sint_sat(ty, v);
                let min = if ty == types::I64 {
                    self.b.ins().iconst(ty, i64::MIN)
                } else {
                    self.b.ins().iconst(ty, i32::MIN as i64)
                };
                self.b.ins().select(ok, t, min)
            }
            (Type::Bool, D::Int64) => self.b.ins().uextend(types::I64, v),
            (Type::Bool, D::Int32) => self.b.ins().uextend(types::I32, v),
            (Type::Bool, D::Float64) => self.b.ins().fcvt_from_uint(types::F64, v),
            (Type::Bool, D::Float32) => self.b.ins().fcvt_from_uint(types::F32, v),
            (t, _) => {
                return Err(CodegenError::Internal(format!("`tensor.store` of a {t}")));
            }
        };
        self.b.ins().store(flags, x, addr, 0);
        Ok(())
    }

    // ---- regions ----

    fn lower_region(&mut self, r: Region, exit: Exit, is_body: bool) -> Res<()> {
        pyjit_syntax::grow(|| self.lower_region_unbounded(r, exit, is_body))
    }

    fn lower_region_unbounded(&mut self, r: Region, exit: Exit, is_body: bool) -> Res<()> {
        self.frames.push(Vec::new());
        let params = self.f.region_params(r).to_vec();
        let slots: Vec<ir::Value> = params
            .iter()
            .map(|p| self.slots(*p))
            .collect::<Res<Vec<_>>>()?
            .concat();
        self.define(&params, slots)?;
        if is_body {
            self.enter_depth()?;
        }
        let ops = self.f.region_ops(r).to_vec();
        for (k, op) in ops.into_iter().enumerate() {
            self.lower_op(op, k as u32, exit)?;
        }
        self.frames.pop();
        Ok(())
    }

    /// Counts the call depth; more than the limit raises `RecursionError` (as the interpreter
    /// does) instead of overflowing the native stack.
    fn enter_depth(&mut self) -> Res<()> {
        let flags = MemFlagsData::trusted();
        let d = self
            .b
            .ins()
            .load(types::I64, flags, self.ctx, host::OFFSET_DEPTH);
        let d1 = self.b.ins().iadd_imm_s(d, 1);
        self.b.ins().store(flags, d1, self.ctx, host::OFFSET_DEPTH);
        let max = self
            .b
            .ins()
            .load(types::I64, flags, self.ctx, host::OFFSET_MAX_DEPTH);
        let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, d1, max);
        self.raise_if(over, scalar::recursion_error(), self.f.span)
    }

    /// Lowers one op; its instructions carry the op's index as their Cranelift source location
    /// (what `--emit clif|asm` maps back to `file.py:line`), restored afterwards so that the code
    /// after an `if`/`loop` belongs to the op that owns the regions.
    fn lower_op(&mut self, op: Op, k: u32, exit: Exit) -> Res<()> {
        // Locations are stored relative to the function's first one; with a base of 0 no op index
        // can land on the reserved "no location" value (base - 1 would).
        self.b.func.params.ensure_base_srcloc(ir::SourceLoc::new(0));
        let outer = self.b.srcloc();
        self.b.set_srcloc(ir::SourceLoc::new(op.as_u32()));
        let outer_op = self.cur_op.replace(op);
        let r = self.lower_op_at(op, k, exit);
        self.cur_op = outer_op;
        self.b.set_srcloc(outer);
        r
    }

    fn lower_op_at(&mut self, op: Op, k: u32, exit: Exit) -> Res<()> {
        let data = self.f.op(op);
        let span = data.span;
        let operands = data.operands.clone();
        let results = data.results.clone();
        let regions = data.regions.clone();
        let kind = data.kind.clone();
        let arg = |s: &Self, i: usize| -> Res<ir::Value> {
            s.one(*operands.get(i).ok_or_else(|| {
                CodegenError::Internal(format!("`{}` is missing operand {i}", kind.name()))
            })?)
        };
        if kind == OpKind::ListNew && self.inline_list(results[0]).is_some() {
            // Its one user takes the elements' slots as an operand (`emit_host_call_with`).
            return Ok(());
        }
        let out: Vec<ir::Value> = match &kind {
            OpKind::Const(c) => match c {
                Const::Int(i) => vec![self.b.ins().iconst(types::I64, *i)],
                Const::Float(x) => vec![self.float_const(op, *x)],
                Const::Bool(x) => vec![self.b.ins().iconst(types::I8, *x as i64)],
                Const::None => vec![],
                Const::DType(d) => vec![self.b.ins().iconst(types::I64, d.code() as i64)],
                Const::Str(_) => return self.host_op(op, k),
            },
            OpKind::IntBin(o) => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                let divisor = self.const_int(operands[1]);
                let lhs = self.const_int(operands[0]);
                match (o, lhs, divisor) {
                    // `3 * x` (and 5, 9) is `x + (x << k)`, which x86 computes with one `lea`
                    // (1-2 cycles) instead of `imul` (3 cycles): Collatz's `3 * x + 1` is on the
                    // loop-carried dependency chain. Wrapping, like `imul`.
                    (IntBinOp::Mul, Some(c), _) | (IntBinOp::Mul, _, Some(c))
                        if matches!(c, 3 | 5 | 9) =>
                    {
                        let x = if lhs == Some(c) { b } else { a };
                        let k = (c - 1).trailing_zeros() as i64;
                        let sh = self.ins().ishl_imm_u(x, k);
                        vec![self.ins().iadd(x, sh)]
                    }
                    _ => vec![self.int_bin(*o, a, b, divisor, span)?],
                }
            }
            // Correctly rounded division of the exact integers (and its zero-division error)
            // by pyjit-value.
            OpKind::IntTrueDiv => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                let site = self.site(SiteKind::Scalar, span);
                let ctx = self.ctx;
                let r = self.call_host("pjn_int_truediv", &[ctx, site, a, b])[0];
                self.check_failed(None)?;
                vec![r]
            }
            OpKind::IntUn(o) => {
                let a = arg(self, 0)?;
                vec![match o {
                    IntUnOp::Neg => self.b.ins().ineg(a),
                    IntUnOp::Invert => self.b.ins().bnot(a),
                    IntUnOp::Abs => self.b.ins().iabs(a),
                }]
            }
            OpKind::FloatBin(o) => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                let two = |s: &Self, i: usize| matches!(s.f.defining_op(operands[i]).map(|d| &s.f.op(d).kind), Some(OpKind::Const(Const::Float(x))) if *x == 2.0);
                // `2.0 * x` is `x + x` bit for bit (NaN, infinities and signed zeros included),
                // and an add is cheaper than a multiply by a constant loaded from memory.
                if *o == FloatBinOp::Mul && (two(self, 0) || two(self, 1)) {
                    let x = if two(self, 0) { b } else { a };
                    vec![self.b.ins().fadd(x, x)]
                } else {
                    vec![self.float_bin(*o, a, b, span)?]
                }
            }
            OpKind::FloatUn(o) => {
                let a = arg(self, 0)?;
                vec![match o {
                    FloatUnOp::Neg => self.b.ins().fneg(a),
                    FloatUnOp::Abs => self.b.ins().fabs(a),
                }]
            }
            OpKind::IntCmp(c) => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                vec![self.b.ins().icmp(int_cc(*c, true), a, b)]
            }
            OpKind::BoolCmp(c) => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                vec![self.b.ins().icmp(int_cc(*c, false), a, b)]
            }
            OpKind::FloatCmp(c) => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                // Two promoted `f32` values compare as the `f32` values do (promotion is exact
                // and monotone, NaN stays NaN).
                let (a, b) = match (self.narrowed.get(&a), self.narrowed.get(&b)) {
                    (Some(&a), Some(&b)) => (a, b),
                    _ => (a, b),
                };
                vec![self.b.ins().fcmp(float_cc(*c), a, b)]
            }
            OpKind::BoolBin(o) => {
                let (a, b) = (arg(self, 0)?, arg(self, 1)?);
                vec![match o {
                    BoolBinOp::And => self.b.ins().band(a, b),
                    BoolBinOp::Or => self.b.ins().bor(a, b),
                    BoolBinOp::Xor => self.b.ins().bxor(a, b),
                }]
            }
            OpKind::Not => {
                let a = arg(self, 0)?;
                vec![self.b.ins().bxor_imm_u(a, 1)]
            }
            OpKind::Cast(c) => {
                let a = arg(self, 0)?;
                vec![match c {
                    CastOp::IntToFloat => self.b.ins().fcvt_from_sint(types::F64, a),
                    CastOp::IntToBool => self.b.ins().icmp_imm_s(IntCC::NotEqual, a, 0),
                    CastOp::FloatToBool => {
                        let z = self.b.ins().f64const(0.0);
                        self.b.ins().fcmp(FloatCC::NotEqual, a, z)
                    }
                    CastOp::BoolToInt => self.b.ins().uextend(types::I64, a),
                    CastOp::BoolToFloat => self.b.ins().fcvt_from_uint(types::F64, a),
                    CastOp::FloatToInt => {
                        let site = self.site(SiteKind::Scalar, span);
                        let ctx = self.ctx;
                        let r = self.call_host("pjn_float_to_int", &[ctx, site, a])[0];
                        self.check_failed(None)?;
                        r
                    }
                }]
            }
            OpKind::Math(m) => {
                let a = arg(self, 0)?;
                let b = if m.signature().0 == 2 {
                    arg(self, 1)?
                } else {
                    self.b.ins().f64const(0.0)
                };
                vec![self.math(*m, a, b, span)?]
            }
            OpKind::Elem(f, p) => {
                let a = arg(self, 0)?;
                let b = if f.arity() == 2 {
                    Some(arg(self, 1)?)
                } else {
                    None
                };
                vec![self.elem(*f, *p, a, b)]
            }
            OpKind::Select => {
                let c = arg(self, 0)?;
                let c = self.select_cond(c);
                let (a, b) = (self.slots(operands[1])?, self.slots(operands[2])?);
                let r: Vec<ir::Value> = a
                    .iter()
                    .zip(&b)
                    .map(|(&x, &y)| self.b.ins().select(c, x, y))
                    .collect();
                self.refcount(self.ty(results[0]), &r, true);
                r
            }
            OpKind::TupleNew => {
                let mut r = Vec::new();
                for &v in &operands {
                    let s = self.slots(v)?;
                    self.refcount(self.ty(v), &s, true);
                    r.extend(s);
                }
                r
            }
            OpKind::TupleGet(i) => {
                let Type::Tuple(ts) = self.ty(operands[0]) else {
                    return Err(CodegenError::Internal("tuple.get of a non-tuple".into()));
                };
                let start: usize = ts[..*i as usize].iter().map(|t| slots_of(t).len()).sum();
                let n = slots_of(&ts[*i as usize]).len();
                let r = self.slots(operands[0])?[start..start + n].to_vec();
                self.refcount(&ts[*i as usize], &r, true);
                r
            }
            OpKind::OptNone | OpKind::Undef => slots_of(self.ty(results[0]))
                .into_iter()
                .map(|s| self.zero(s))
                .collect(),
            OpKind::OptWrap => {
                let s = self.slots(operands[0])?;
                self.refcount(self.ty(operands[0]), &s, true);
                let mut r = vec![self.b.ins().iconst(types::I8, 1)];
                r.extend(s);
                r
            }
            OpKind::OptUnwrap => {
                let s = self.slots(operands[0])?;
                let none = self.b.ins().icmp_imm_s(IntCC::Equal, s[0], 0);
                self.raise_if(none, pyjit_value::ops::unwrap_none(), span)?;
                let r = s[1..].to_vec();
                self.refcount(self.ty(results[0]), &r, true);
                r
            }
            OpKind::OptIsNone => {
                let s = self.slots(operands[0])?;
                vec![self.b.ins().icmp_imm_s(IntCC::Equal, s[0], 0)]
            }
            OpKind::Guard { expected, message } => {
                let v = arg(self, 0)?;
                let holds = match expected {
                    Const::Int(i) => self.b.ins().icmp_imm_s(IntCC::Equal, v, *i),
                    Const::Bool(x) => self.b.ins().icmp_imm_s(IntCC::Equal, v, *x as i64),
                    Const::Float(x) => {
                        let bits = self.b.ins().bitcast(types::I64, MemFlagsData::new(), v);
                        self.b
                            .ins()
                            .icmp_imm_s(IntCC::Equal, bits, x.to_bits() as i64)
                    }
                    _ => self.b.ins().iconst(types::I8, 0),
                };
                let failed = self.b.ins().bxor_imm_u(holds, 1);
                self.raise_if(
                    failed,
                    PyErr::new(ExcKind::GuardFailure, message.clone()),
                    span,
                )?;
                vec![]
            }
            OpKind::Check(_) => {
                let c = arg(self, 0)?;
                self.fail_when(c, false, |s| s.emit_host_call(op).map(drop))?;
                vec![]
            }
            OpKind::Raise(_) => {
                self.emit_host_call(op)?;
                return self.emit_fail_return();
            }
            OpKind::TensorLoad | OpKind::TensorStore if self.views.contains_key(&operands[0]) => {
                return self.lower_access(op, k);
            }
            OpKind::Tensor(_) if self.shape_ops.contains_key(&op) => {
                let view =
                    self.views.get(&operands[0]).cloned().ok_or_else(|| {
                        CodegenError::Internal("shape query without a view".into())
                    })?;
                vec![match self.shape_ops[&op] {
                    ShapeQuery::Size(d) => view.sizes[d],
                    ShapeQuery::Numel => {
                        let mut n = self.b.ins().iconst(types::I64, 1);
                        for &s in &view.sizes {
                            n = self.b.ins().imul(n, s);
                        }
                        n
                    }
                }]
            }
            OpKind::Tensor(id) if self.is_const_tensor(op, *id) => match self.const_tensor(op, *id)
            {
                // The value owns a reference, as an op's fresh result does.
                Some(h) => {
                    let v = self.b.ins().iconst(types::I64, h as i64);
                    self.call_host("pj_tensor_retain", &[v]);
                    vec![v]
                }
                None => return self.host_op(op, k),
            },
            OpKind::Tensor(_)
            | OpKind::TensorLoad
            | OpKind::TensorStore
            | OpKind::Index(_)
            | OpKind::ListNew
            | OpKind::ListGet
            | OpKind::ListSet
            | OpKind::ListAppend
            | OpKind::ListLen
            | OpKind::DictNew
            | OpKind::DictGet
            | OpKind::DictSet
            | OpKind::DictContains
            | OpKind::DictLen
            | OpKind::DictKeys
            | OpKind::DictValues
            | OpKind::DictItems
            | OpKind::StrOf(_)
            | OpKind::StrNumPy
            | OpKind::StrConcat
            | OpKind::Print => return self.host_op(op, k),
            OpKind::Call(callee) => {
                let mut args = vec![self.ctx];
                for &v in &operands {
                    args.extend(self.consume(v, k, op)?);
                }
                let id = self
                    .funcs
                    .get(callee.index())
                    .copied()
                    .flatten()
                    .ok_or_else(|| {
                        CodegenError::Internal(format!("call of unknown function {callee}"))
                    })?;
                let r = self.fref(id);
                let inst = self.b.ins().call(r, &args);
                let res = self.b.inst_results(inst).to_vec();
                let site = self.site(SiteKind::Call, span);
                self.check_failed(Some(site))?;
                res
            }
            OpKind::If if self.speculatable(&regions) => {
                // Both branches are a few pure scalar ops: compute both and select, so a
                // data-dependent branch (Collatz's `x % 2 == 0`) cannot be mispredicted.
                let c = arg(self, 0)?;
                let c = self.select_cond(c);
                self.lower_region(regions[0], Exit::Capture, false)?;
                let t = std::mem::take(&mut self.captured);
                self.lower_region(regions[1], Exit::Capture, false)?;
                let e = std::mem::take(&mut self.captured);
                let else_ops = self.f.region_ops(regions[1]);
                if let ([r], [t0], [y]) = (&results[..], &t[..], else_ops)
                    && *self.ty(*r) == Type::Bool
                    && self.f.op(*y).operands.len() == 1
                    && self.const_bool(self.f.op(*y).operands[0]) == Some(false)
                {
                    self.short_and.insert(*r, (c, *t0));
                }
                let mask = self.f32_mask(&results);
                let max = self.max_or_min(op);
                t.iter()
                    .zip(&e)
                    .zip(mask)
                    .map(|((&x, &y), narrow)| {
                        let (x, y) = if narrow {
                            (self.narrow(x), self.narrow(y))
                        } else {
                            (x, y)
                        };
                        // `x if x > y else y` as the comparison Cranelift turns into `maxss`
                        // (`minss`), whose unordered case gives `y` as the select does.
                        let c = match max {
                            Some(true) => self.b.ins().fcmp(FloatCC::LessThan, y, x),
                            Some(false) => self.b.ins().fcmp(FloatCC::LessThan, x, y),
                            None => c,
                        };
                        let r = self.b.ins().select(c, x, y);
                        if narrow { self.widen(r) } else { r }
                    })
                    .collect()
            }
            OpKind::If => {
                let c = arg(self, 0)?;
                let (then_b, else_b, merge) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                let res_slots: Vec<Slot> =
                    results.iter().flat_map(|&r| slots_of(self.ty(r))).collect();
                let mask = self.f32_mask(&results);
                for (&s, &narrow) in res_slots.iter().zip(&mask) {
                    let t = if narrow { types::F32 } else { clif_type(s) };
                    self.b.append_block_param(merge, t);
                }
                self.f32_params.insert(merge, mask.clone());
                self.b.ins().brif(c, then_b, &[], else_b, &[]);
                self.b.switch_to_block(then_b);
                self.lower_region(regions[0], Exit::IfMerge(merge), false)?;
                self.b.switch_to_block(else_b);
                self.lower_region(regions[1], Exit::IfMerge(merge), false)?;
                self.b.switch_to_block(merge);
                let params = self.b.block_params(merge).to_vec();
                self.widen_masked(params, &mask)
            }
            OpKind::Loop => self.lower_loop(op, k)?,
            OpKind::Fused => return self.fused_op(op, k),
            OpKind::Yield => {
                let mut args = Vec::new();
                for &v in &operands {
                    args.extend(self.consume(v, k, op)?);
                }
                self.end_of_op(k)?;
                // The target's `f32` parameters take the `f32` values (a loop's after its
                // condition).
                let (target, skip) = match exit {
                    Exit::IfMerge(merge) => (Some(merge), 0),
                    Exit::Loop { body, .. } => (Some(body), 1),
                    Exit::Body | Exit::Capture => (None, 0),
                };
                if let Some(mask) = target.and_then(|b| self.f32_params.get(&b)).cloned() {
                    let from = skip.min(args.len());
                    self.narrow_masked(&mut args[from..], &mask);
                }
                let bargs =
                    |vs: &[ir::Value]| vs.iter().map(|&v| BlockArg::Value(v)).collect::<Vec<_>>();
                match exit {
                    Exit::IfMerge(merge) => {
                        self.b.ins().jump(merge, &bargs(&args));
                    }
                    Exit::Loop {
                        body,
                        exit,
                        counter,
                    } => {
                        let (&cond, rest) = args.split_first().ok_or_else(|| {
                            CodegenError::Internal("loop `yield` without a condition".into())
                        })?;
                        let rest = match self.carried_order.get(&body) {
                            Some(order) => permuted(rest, order),
                            None => rest.to_vec(),
                        };
                        let rest = &rest[..];
                        let always = self.const_bool(operands[0]) == Some(true);
                        let mut a = Vec::new();
                        let go = match counter {
                            Some((i, max)) => {
                                let next = self.b.ins().iadd_imm_s(i, 1);
                                a.push(next);
                                match max {
                                    Some(max) => {
                                        let lt =
                                            self.b.ins().icmp(IntCC::SignedLessThan, next, max);
                                        if always {
                                            lt
                                        } else {
                                            self.b.ins().band(cond, lt)
                                        }
                                    }
                                    None => cond,
                                }
                            }
                            None => cond,
                        };
                        a.extend(rest.iter().copied());
                        match self.short_and.get(&operands[0]).copied() {
                            // `while a and b`: two branches, as a short-circuiting compiler
                            // emits them (each predictable on its own).
                            Some((c1, c2)) if go == cond => {
                                let mid = self.b.create_block();
                                self.b.ins().brif(c1, mid, &[], exit, &bargs(rest));
                                self.b.switch_to_block(mid);
                                self.b.ins().brif(c2, body, &bargs(&a), exit, &bargs(rest));
                            }
                            _ => {
                                self.b.ins().brif(go, body, &bargs(&a), exit, &bargs(rest));
                            }
                        }
                    }
                    Exit::Capture => self.captured = args,
                    Exit::Body => {
                        return Err(CodegenError::Internal("`yield` in a function body".into()));
                    }
                }
                return Ok(());
            }
            OpKind::Return => {
                let mut args = Vec::new();
                for &v in &operands {
                    args.extend(self.consume(v, k, op)?);
                }
                self.end_of_op(k)?;
                self.leave_depth();
                self.b.ins().return_(&args);
                return Ok(());
            }
        };
        self.end_of_op(k)?;
        self.define(&results, out)
    }

    /// Stores the operands of `op` to a stack buffer and calls `pjn_op`; returns the result
    /// slots (loaded back from a second buffer).
    fn emit_host_call(&mut self, op: Op) -> Res<Vec<ir::Value>> {
        self.emit_host_call_with(op, None, None)
    }

    /// What the host needs to run `fused` op `op`: its tile program, an error site per step
    /// (the span and inlined frames of the body op it came from) and where each operand's
    /// slots are among the host call's.
    fn fused_site(&mut self, op: Op) -> Res<crate::fused::FusedSite> {
        let (program, uses, step_ops) = crate::fused::compile(self.f, op)?;
        let outer = self.cur_op;
        let mut step_sites = Vec::with_capacity(step_ops.len());
        for s in step_ops {
            self.cur_op = Some(s);
            let span = self.f.op(s).span;
            self.site(SiteKind::Scalar, span);
            step_sites.push((self.sites.len() - 1) as u64);
        }
        self.cur_op = outer;
        let mut slot_pos = Vec::new();
        let mut pos = 0;
        for &v in &self.f.op(op).operands {
            slot_pos.push(pos);
            pos += match self.inline_list(v) {
                Some(items) => items.len(),
                None => slots_of(self.ty(v)).len(),
            };
        }
        Ok(crate::fused::FusedSite {
            program,
            uses,
            slot_pos,
            step_sites,
            repeat: None,
        })
    }

    /// A `fused` group: one host call runs its tile program (`fused.rs`); each step of the
    /// program has an error site of its own (the span of the body op it came from), so that
    /// an error reads as the unfused op's.
    ///
    /// Beside it, the group's body lowered as the unfused ops it replaced, taken when the
    /// runtime's size test (`pj_fused_group_is_small`, the test the tile program would make
    /// first) says the group is too small to gain from fusion: a small group then costs what
    /// the unfused program costs, not that plus the group's host call (docs/fusion.md).
    fn fused_op(&mut self, op: Op, k: u32) -> Res<()> {
        let fused = self.fused_site(op)?;
        let data = self.f.op(op);
        let results = data.results.clone();
        let operands = data.operands.clone();
        let body = data.regions[0];
        let params = self.f.region_params(body).to_vec();
        // The unfused path needs each operand to become its body parameter as it is: distinct
        // operands (a tensor operand the group takes over moves into its parameter; others,
        // the dims lists of reductions among them, are borrowed), and the size test needs to
        // know which are tensors (no optional ones).
        let distinct = operands
            .iter()
            .enumerate()
            .all(|(i, v)| !operands[..i].contains(v));
        let plain = operands
            .iter()
            .all(|&v| !matches!(self.ty(v), Type::Optional(_)));
        if !(distinct && plain && params.len() == operands.len() && results.len() == 1) {
            let res = self.emit_host_call_with(op, Some(Box::new(fused)), Some(k))?;
            self.check_failed(None)?;
            self.end_of_op(k)?;
            return self.define(&results, res);
        }
        // Decided before the host call takes them: the operands whose last use this is.
        let moved: Vec<bool> = operands
            .iter()
            .map(|&v| matches!(self.ty(v), Type::Tensor(_)) && self.movable(v, k, op))
            .collect();
        let small = self.group_is_small(&operands)?;
        let small_b = self.b.create_block();
        let fused_b = self.b.create_block();
        let merge = self.b.create_block();
        let res_kinds = slots_of(self.ty(results[0]));
        for &s in &res_kinds {
            self.b.append_block_param(merge, clif_type(s));
        }
        self.b.ins().brif(small, small_b, &[], fused_b, &[]);

        self.b.switch_to_block(fused_b);
        let res = self.emit_host_call_with(op, Some(Box::new(fused)), Some(k))?;
        self.check_failed(None)?;
        let bargs: Vec<BlockArg> = res.iter().map(|&v| BlockArg::Value(v)).collect();
        self.b.ins().jump(merge, &bargs);

        // The body's ops as unfused code runs them: each parameter is its operand's slots,
        // owned by the body when the group took the operand over (so the op reading it last
        // may write over it, as the unfused op would), else borrowed from the caller's frame.
        self.b.switch_to_block(small_b);
        self.frames.push(Vec::new());
        for ((&p, &v), &m) in params.iter().zip(&operands).zip(&moved) {
            if self.inline_list(p).is_some() {
                // (Its readers take the list's ints: `inline_list`.)
                continue;
            }
            let slots = self.slots(v)?;
            self.vals.insert(p, slots);
            if m {
                if self.last_use.contains_key(&p) {
                    if let Some(f) = self.frames.last_mut() {
                        f.push(p);
                    }
                } else {
                    self.release_value(p)?;
                }
            }
        }
        let ops = self.f.region_ops(body).to_vec();
        for (i, o) in ops.into_iter().enumerate() {
            self.lower_op(o, i as u32, Exit::IfMerge(merge))?;
        }
        self.frames.pop();

        self.b.switch_to_block(merge);
        let res = self.b.block_params(merge).to_vec();
        self.end_of_op(k)?;
        self.define(&results, res)
    }

    /// Whether a group with `operands` runs as its unfused ops: the runtime's size test
    /// (`pyjit_runtime::ops::fused::small_group`; an `i8`, 1 if so).
    ///
    /// Inline when every tensor operand's rank is known: per dim from the right, the largest
    /// size (1 for an operand without the dim), their product below `MIN_FUSED` (each factor
    /// and each partial product clamped to `MIN_FUSED`, which keeps the comparison and cannot
    /// overflow). Otherwise from each tensor's element count (read from its handle's sizes,
    /// in a loop when its rank is unknown): the group is small when their product is below
    /// `MIN_FUSED` (the broadcast has at most that many elements) and not when one count
    /// reaches it (it has at least that many); in between, `pj_fused_group_is_small` decides.
    fn group_is_small(&mut self, operands: &[IrValue]) -> Res<ir::Value> {
        use pyjit_runtime::ops::fused::MIN_FUSED;
        let mut tensors = Vec::new();
        for &v in operands {
            if let Type::Tensor(t) = self.ty(v) {
                tensors.push((self.one(v)?, t.rank));
            }
        }
        let flags = MemFlagsData::trusted();
        let cap = self.b.ins().iconst(types::I64, MIN_FUSED as i64);
        if tensors.iter().all(|(_, r)| r.is_some()) {
            let rank = tensors.iter().filter_map(|t| t.1).max().unwrap_or(0) as usize;
            let mut sizes: Vec<Vec<ir::Value>> = Vec::new();
            for &(h, r) in &tensors {
                let r = r.unwrap_or(0) as usize;
                let shape = self.handle_shape(h);
                // From the right: `from_right[j]` is dim `r - 1 - j`.
                let from_right = (0..r)
                    .rev()
                    .map(|d| self.b.ins().load(types::I64, flags, shape, (8 * d) as i32))
                    .collect();
                sizes.push(from_right);
            }
            let mut bound = self.b.ins().iconst(types::I64, 1);
            for j in 0..rank {
                let mut m: Option<ir::Value> = None;
                let mut missing = false;
                for s in &sizes {
                    match s.get(j) {
                        Some(&d) => m = Some(m.map_or(d, |m| self.b.ins().umax(m, d))),
                        None => missing = true,
                    }
                }
                let Some(mut m) = m else { continue };
                if missing {
                    let one = self.b.ins().iconst(types::I64, 1);
                    m = self.b.ins().umax(m, one);
                }
                bound = self.clamped_mul(bound, m, cap);
            }
            return Ok(self.b.ins().icmp(IntCC::UnsignedLessThan, bound, cap));
        }
        let mut product = self.b.ins().iconst(types::I64, 1);
        let mut largest = self.b.ins().iconst(types::I64, 0);
        for &(h, r) in &tensors {
            let n = self.clamped_numel(h, r, cap);
            product = self.clamped_mul(product, n, cap);
            largest = self.b.ins().umax(largest, n);
        }
        let small = self.b.ins().icmp(IntCC::UnsignedLessThan, product, cap);
        if tensors.len() == 1 {
            return Ok(small);
        }
        let big = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, largest, cap);
        let decided = self.b.ins().bor(small, big);
        let ask = self.b.create_block();
        let done = self.b.create_block();
        let result = self.b.append_block_param(done, types::I8);
        self.b
            .ins()
            .brif(decided, done, &[BlockArg::Value(small)], ask, &[]);
        self.b.switch_to_block(ask);
        let n = self.b.ins().iconst(types::I64, tensors.len() as i64);
        let ss = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (tensors.len() * 8) as u32,
            3,
        ));
        let addr = self.b.ins().stack_addr(types::I64, ss, 0);
        for (i, &(h, _)) in tensors.iter().enumerate() {
            self.b.ins().store(flags, h, addr, (i * 8) as i32);
        }
        let asked = self.call_host("pj_fused_group_is_small", &[addr, n])[0];
        self.b.ins().jump(done, &[BlockArg::Value(asked)]);
        self.b.switch_to_block(done);
        Ok(result)
    }

    /// The address of the sizes of the tensor of handle `h` (the handle's first word).
    fn handle_shape(&mut self, h: ir::Value) -> ir::Value {
        let off = pyjit_runtime::abi::PJ_TENSOR_SHAPE_OFFSET;
        self.b
            .ins()
            .load(types::I64, MemFlagsData::trusted(), h, off)
    }

    /// `min(a * min(b, cap), cap)` for `a <= cap` (no overflow: both factors are at most
    /// `cap`, 2^15), which is below `cap` exactly when `a * b` is.
    fn clamped_mul(&mut self, a: ir::Value, b: ir::Value, cap: ir::Value) -> ir::Value {
        let b = self.b.ins().umin(b, cap);
        let p = self.b.ins().imul(a, b);
        self.b.ins().umin(p, cap)
    }

    /// The number of elements of the tensor of handle `h`, clamped to `cap`: the product of
    /// its sizes, unrolled for a known rank, else a loop over the rank the handle holds.
    fn clamped_numel(&mut self, h: ir::Value, rank: Option<u32>, cap: ir::Value) -> ir::Value {
        let flags = MemFlagsData::trusted();
        let shape = self.handle_shape(h);
        let one = self.b.ins().iconst(types::I64, 1);
        if let Some(r) = rank {
            let mut p = one;
            for d in 0..r as i32 {
                let s = self.b.ins().load(types::I64, flags, shape, 8 * d);
                p = self.clamped_mul(p, s, cap);
            }
            return p;
        }
        let rank = self.b.ins().load(
            types::I64,
            flags,
            h,
            pyjit_runtime::abi::PJ_TENSOR_RANK_OFFSET,
        );
        let head = self.b.create_block();
        let step = self.b.create_block();
        let done = self.b.create_block();
        let i = self.b.append_block_param(head, types::I64);
        let acc = self.b.append_block_param(head, types::I64);
        let result = self.b.append_block_param(done, types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(zero), BlockArg::Value(one)]);
        self.b.switch_to_block(head);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, i, rank);
        self.b
            .ins()
            .brif(more, step, &[], done, &[BlockArg::Value(acc)]);
        self.b.switch_to_block(step);
        let off = self.b.ins().ishl_imm_u(i, 3);
        let at = self.b.ins().iadd(shape, off);
        let d = self.b.ins().load(types::I64, flags, at, 0);
        let p = self.clamped_mul(acc, d, cap);
        let next = self.b.ins().iadd_imm_u(i, 1);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(next), BlockArg::Value(p)]);
        self.b.switch_to_block(done);
        result
    }

    /// Emits the `pjn_op` call of `op`. `k` (the op's index, given for a tensor op and a
    /// `fused` group) lets dead tensor operands be handed over (`SiteKind::Op::owned`): the
    /// first operand of a tensor op with an in-place form (`dispatch::has_owned_kernel`), and
    /// every tensor operand of a group, when `op` is its last use. The host takes those
    /// references, and the kernel (a group's step reading one last) may write over the
    /// operand's buffer.
    fn emit_host_call_with(
        &mut self,
        op: Op,
        fused: Option<Box<crate::fused::FusedSite>>,
        k: Option<u32>,
    ) -> Res<Vec<ir::Value>> {
        self.emit_host_call_extra(op, fused, k, &[])
    }

    /// [`Self::emit_host_call_with`], with `int` slots `extra` after the operands' (a repeated
    /// group's count, `repeat.rs`).
    fn emit_host_call_extra(
        &mut self,
        op: Op,
        fused: Option<Box<crate::fused::FusedSite>>,
        k: Option<u32>,
        extra: &[ir::Value],
    ) -> Res<Vec<ir::Value>> {
        let data = self.f.op(op);
        // An int list built in place for this op alone travels as its elements' slots, typed
        // as a tuple of ints (which every `int[]` parameter takes as it takes the list).
        let inline: Vec<Option<Vec<IrValue>>> =
            data.operands.iter().map(|&v| self.inline_list(v)).collect();
        let operand_types: Vec<Type> = data
            .operands
            .iter()
            .zip(&inline)
            .map(|(&v, items)| match items {
                Some(items) => Type::Tuple(vec![Type::Int; items.len()]),
                None => self.ty(v).clone(),
            })
            .collect();
        let result_types: Vec<Type> = data.results.iter().map(|&v| self.ty(v).clone()).collect();
        let owned: Vec<bool> = data
            .operands
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let handed = match &data.kind {
                    OpKind::Tensor(id) => {
                        i == 0
                            && pyjit_runtime::dispatch::has_owned_kernel(*id)
                            && !data.operands[1..].contains(&v)
                    }
                    OpKind::Fused => !data.operands[..i].contains(&v),
                    _ => false,
                };
                handed
                    && matches!(self.ty(v), Type::Tensor(_))
                    && k.is_some_and(|k| self.movable(v, k, op))
            })
            .collect();
        let mut args = Vec::new();
        for (i, &v) in data.operands.iter().enumerate() {
            if let Some(items) = &inline[i] {
                for &e in items {
                    args.push((self.one(e)?, Slot::Int));
                }
                continue;
            }
            let kinds = slots_of(self.ty(v));
            let slots = match k {
                Some(k) if owned[i] => self.consume(v, k, op)?,
                _ => self.slots(v)?,
            };
            for (s, k) in slots.into_iter().zip(kinds) {
                args.push((s, k));
            }
        }
        args.extend(extra.iter().map(|&v| (v, Slot::Int)));
        let res_kinds: Vec<Slot> = result_types.iter().flat_map(slots_of).collect();
        let site = self.site(
            SiteKind::Op {
                kind: data.kind.clone(),
                operands: operand_types,
                results: result_types,
                arg_slots: args.len(),
                fused,
                owned,
            },
            data.span,
        );
        let flags = MemFlagsData::trusted();
        let buffer = |s: &mut Self, n: usize| -> ir::Value {
            if n == 0 {
                return s.b.ins().iconst(types::I64, 0);
            }
            let ss = s.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                (n * 8) as u32,
                3,
            ));
            s.b.ins().stack_addr(types::I64, ss, 0)
        };
        let args_ptr = buffer(self, args.len());
        for (i, (v, k)) in args.iter().enumerate() {
            let v = if *k == Slot::Bool {
                self.b.ins().uextend(types::I64, *v)
            } else {
                *v
            };
            self.b.ins().store(flags, v, args_ptr, (i * 8) as i32);
        }
        let out_ptr = buffer(self, res_kinds.len());
        let ctx = self.ctx;
        self.call_host("pjn_op", &[ctx, site, args_ptr, out_ptr]);
        Ok(res_kinds
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                self.b
                    .ins()
                    .load(clif_type(k), flags, out_ptr, (i * 8) as i32)
            })
            .collect())
    }

    fn host_op(&mut self, op: Op, k: u32) -> Res<()> {
        // Results must be loaded only after the failure check (they are not written on failure),
        // so call, check, then load.
        let data = self.f.op(op);
        let results = data.results.clone();
        let res = self.emit_host_call_checked(op, k)?;
        self.end_of_op(k)?;
        self.define(&results, res)
    }

    fn emit_host_call_checked(&mut self, op: Op, k: u32) -> Res<Vec<ir::Value>> {
        // The loads emitted by `emit_host_call` come right after the call; moving the check
        // between them would need a second pass, so loads of unwritten (zeroed) buffers are
        // harmless: the stack buffers are read but the values are never used on failure.
        let vals = self.emit_host_call_with(op, None, Some(k))?;
        self.check_failed(None)?;
        Ok(vals)
    }

    /// A rotated loop: the entry test is done once before the loop, and each `yield` tests the
    /// continue condition (and the trip count) itself and branches straight back to the body
    /// or out, so an iteration costs one conditional branch. A `while` loop (unbounded trip
    /// count) whose body ignores the iteration index carries no counter at all.
    fn lower_loop(&mut self, op: Op, k: u32) -> Res<Vec<ir::Value>> {
        let data = self.f.op(op);
        let operands = data.operands.clone();
        let body = data.regions[0];
        let params = self.f.region_params(body).to_vec();
        let max = self.one(operands[0])?;
        let cond0 = self.one(operands[1])?;
        let unbounded = self.const_int(operands[0]) == Some(i64::MAX);
        let need_i = !unbounded
            || params
                .first()
                .is_some_and(|p| self.last_use.contains_key(p));
        let mut carried = Vec::new();
        let mut kinds = Vec::new();
        for &v in &operands[2..] {
            kinds.extend(slots_of(self.ty(v)));
            carried.extend(self.consume(v, k, op)?);
        }
        // Carried `float`s that are always `f32` values travel in `f32` registers.
        let mask = self.f32_mask(params.get(1..).unwrap_or(&[]));
        self.narrow_masked(&mut carried, &mask);
        // The vector loop, when it takes this one, runs first; the scalar loop does the rest.
        let mut first = None;
        if let Some(plan) = self.vector_plan(op) {
            let (start, rest) = self.emit_vector_loop(&plan, max, &carried, &mask)?;
            first = Some(start);
            carried = rest;
        }
        // Or the outer-loop vectorizer's (four iterations per trip), when it takes this one.
        if first.is_none()
            && let Some(plan) = self.spmd_plan(op)
        {
            let (start, rest) = self.emit_spmd_loop(op, &plan, max, &carried)?;
            first = Some(start);
            carried = rest;
        }
        // Or the interleaver's (iterations in flight, each taking the next when it ends).
        if first.is_none()
            && let Some(plan) = self.refill_plan(op)
        {
            let (start, rest) = self.emit_refill_loop(op, &plan, max, &carried)?;
            first = Some(start);
            carried = rest;
        }
        // Or a loop whose body is one fused group: all its rounds in one host call.
        if first.is_none()
            && let Some(plan) = self.repeat_plan(op)
        {
            let (start, rest) = self.emit_repeat(&plan, max, &carried)?;
            first = Some(start);
            carried = rest;
        }
        let body_b = self.b.create_block();
        let exit_b = self.b.create_block();
        let i_b = need_i.then(|| self.b.append_block_param(body_b, types::I64));
        let order = self.carried_order(body, kinds.len());
        for &j in &order {
            let t = if mask[j] {
                types::F32
            } else {
                clif_type(kinds[j])
            };
            self.b.append_block_param(body_b, t);
            self.b.append_block_param(exit_b, t);
        }
        self.f32_params.insert(body_b, mask.clone());
        self.carried_order.insert(body_b, order.clone());
        let entry_carried = permuted(&carried, &order);
        let bargs = |vs: &[ir::Value]| vs.iter().map(|&v| BlockArg::Value(v)).collect::<Vec<_>>();
        let zero = self.b.ins().iconst(types::I64, 0);
        let first = first.unwrap_or(zero);
        let go = if unbounded {
            cond0
        } else {
            let lt = self.b.ins().icmp(IntCC::SignedLessThan, first, max);
            if self.const_bool(operands[1]) == Some(true) {
                lt
            } else {
                self.b.ins().band(cond0, lt)
            }
        };
        let mut a = Vec::new();
        if need_i {
            a.push(first);
        }
        a.extend(entry_carried.iter().copied());
        self.b
            .ins()
            .brif(go, body_b, &bargs(&a), exit_b, &bargs(&entry_carried));

        self.b.switch_to_block(body_b);
        let mut body_vals = self.b.block_params(body_b).to_vec();
        if !need_i {
            // The index is never read: any value will do.
            body_vals.insert(0, zero);
        }
        let carried_vals = unpermuted(&body_vals.split_off(1), &order);
        body_vals.extend(self.widen_masked(carried_vals, &mask));
        // The body region's parameters are (i, carried…): bind their slots before lowering.
        let mut it = body_vals.into_iter();
        for &p in &params {
            let n = slots_of(self.ty(p)).len();
            let s: Vec<ir::Value> = it.by_ref().take(n).collect();
            self.vals.insert(p, s);
        }
        let counter = i_b.map(|i| (i, (!unbounded).then_some(max)));
        self.lower_region(
            body,
            Exit::Loop {
                body: body_b,
                exit: exit_b,
                counter,
            },
            false,
        )?;

        self.b.switch_to_block(exit_b);
        let results = unpermuted(self.b.block_params(exit_b), &order);
        Ok(self.widen_masked(results, &mask))
    }

    /// The order of a loop's `n` carried slots among its blocks' parameters: by the position,
    /// in the body, of the op that computes the value yielded back (values the body does not
    /// compute first), ties in slot order. Cranelift's e-graph pass places each pure
    /// instruction at its first use, and for a loop's arithmetic that is the branch back,
    /// whose arguments it visits in order: in the IR's order the machine code computes the
    /// carried values in the order the program does. (mandelbrot's body reassigns `zi`
    /// before `zr`; with the slots in that order, `zi`'s update came ahead of `zr`'s longer
    /// chain and each iteration took 8% longer.) Identity when the body does not end in a
    /// `yield` of `n` slots.
    fn carried_order(&self, body: pyjit_ir::Region, n: usize) -> Vec<usize> {
        let ops = self.f.region_ops(body);
        let yielded = match ops.last().map(|&o| self.f.op(o)) {
            Some(y) if matches!(y.kind, OpKind::Yield) => y.operands.get(1..).unwrap_or(&[]),
            _ => &[],
        };
        let mut keyed = Vec::with_capacity(n);
        for &v in yielded {
            let at = self
                .f
                .defining_op(v)
                .and_then(|d| ops.iter().position(|&o| o == d))
                .map_or(0, |p| p + 1);
            for _ in slots_of(self.ty(v)) {
                keyed.push((at, keyed.len()));
            }
        }
        if keyed.len() != n {
            return (0..n).collect();
        }
        keyed.sort_unstable();
        keyed.into_iter().map(|(_, slot)| slot).collect()
    }

    /// Per slot of `vs`: whether it is a `float` kept in an `f32` register ([`f32_carried`]).
    fn f32_mask(&self, vs: &[IrValue]) -> Vec<bool> {
        vs.iter()
            .flat_map(|v| {
                let narrow = self.f32_vals.contains(v);
                slots_of(self.ty(*v)).into_iter().map(move |_| narrow)
            })
            .collect()
    }

    /// The values of `vs` that `mask` marks (promoted `f32` values) narrowed to `f32` in place.
    fn narrow_masked(&mut self, vs: &mut [ir::Value], mask: &[bool]) {
        for (v, &narrow) in vs.iter_mut().zip(mask) {
            if narrow {
                *v = self.narrow(*v);
            }
        }
    }

    /// `vs` with the `f32` registers `mask` marks widened to the `f64` the IR's `float` is.
    fn widen_masked(&mut self, vs: Vec<ir::Value>, mask: &[bool]) -> Vec<ir::Value> {
        vs.into_iter()
            .enumerate()
            .map(|(i, v)| {
                if mask.get(i).copied().unwrap_or(false) {
                    self.widen(v)
                } else {
                    v
                }
            })
            .collect()
    }

    /// A float constant. In a function with loops, a constant of the function's body is also
    /// stored to a scratch stack word nothing reads: Cranelift rematerializes a constant at
    /// its first use, and where that is inside a loop, everything computed from it counts as
    /// depending on that loop, so its LICM keeps it inside (mandelbrot's `ci = -1.5 + 3.0 * i /
    /// n`, sharing `3.0` with the inner loop's `cr`, was recomputed per `j`). The store is a
    /// use that is not pure, so the constant is first placed here, in front of the loops.
    /// (Loading the constant back from the word, to keep it in a register, made the register
    /// allocator spill it around the loops' host calls and reload it in the inner loop.)
    fn float_const(&mut self, op: Op, x: f64) -> ir::Value {
        if self.f.op(op).parent != Some(self.f.body) || !self.has_loop {
            return self.b.ins().f64const(x);
        }
        // One word per constant: Cranelift drops a store that a later one to the same address
        // overwrites. The slot (and the count of the body's float constants) is made once.
        let (slot, n) = match self.const_slot {
            Some(s) => s,
            None => {
                let n = self
                    .f
                    .region_ops(self.f.body)
                    .iter()
                    .filter(|&&o| matches!(self.f.op(o).kind, OpKind::Const(Const::Float(_))))
                    .count();
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    (8 * n) as u32,
                    3,
                ));
                self.const_slot = Some((slot, n));
                (slot, n)
            }
        };
        if self.pinned_consts >= n {
            return self.b.ins().f64const(x);
        }
        let off = (8 * self.pinned_consts) as i32;
        self.pinned_consts += 1;
        let v = self.b.ins().f64const(x);
        self.b.ins().stack_store(types::I64, v, slot, off);
        v
    }

    /// The value of a `bool` constant op, if `v` is one.
    fn const_bool(&self, v: IrValue) -> Option<bool> {
        match &self.f.op(self.f.defining_op(v)?).kind {
            OpKind::Const(Const::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// For an `if` with one float result whose branches only yield `t` and `e` and whose
    /// condition compares them strictly (a running maximum, `if x > m: m = x`): `Some(true)` for
    /// `t if t > e else e`, `Some(false)` for `t if t < e else e`.
    fn max_or_min(&self, op: Op) -> Option<bool> {
        let f = self.f;
        let d = f.op(op);
        let [r] = d.results[..] else { return None };
        if *self.ty(r) != Type::Float {
            return None;
        }
        let yielded = |reg: Region| -> Option<IrValue> {
            match f.region_ops(reg) {
                [y] if f.op(*y).kind == OpKind::Yield => f.op(*y).operands.first().copied(),
                _ => None,
            }
        };
        let (t, e) = (yielded(d.regions[0])?, yielded(d.regions[1])?);
        let cd = f.op(f.defining_op(d.operands[0])?);
        let OpKind::FloatCmp(c) = cd.kind else {
            return None;
        };
        match (c, &cd.operands[..]) {
            (CmpOp::Gt, &[a, b]) | (CmpOp::Lt, &[b, a]) if (a, b) == (t, e) => Some(true),
            (CmpOp::Lt, &[a, b]) | (CmpOp::Gt, &[b, a]) if (a, b) == (t, e) => Some(false),
            _ => None,
        }
    }

    /// Whether both regions of an `if` are short, pure, non-raising scalar code ending in
    /// `yield`, so computing both and selecting is safe and cheaper than branching.
    fn speculatable(&self, regions: &[Region]) -> bool {
        const MAX_OPS: usize = 6;
        regions.iter().all(|&r| {
            let ops = self.f.region_ops(r);
            ops.len() <= MAX_OPS
                && ops.iter().all(|&op| {
                    let d = self.f.op(op);
                    let scalar = d
                        .results
                        .iter()
                        .chain(&d.operands)
                        .all(|&v| self.ty(v).is_scalar());
                    let cheap = match &d.kind {
                        OpKind::Const(c) => !matches!(c, Const::Str(_)),
                        OpKind::IntBin(IntBinOp::FloorDiv | IntBinOp::Mod) => {
                            self.const_int(d.operands[1]).is_some_and(|c| c > 0)
                        }
                        OpKind::Select | OpKind::Yield => true,
                        k => k.is_scalar_arith() && !k.may_raise(),
                    };
                    scalar && cheap
                })
        })
    }

    /// The value of an `int` constant op, if `v` is one.
    fn const_int(&self, v: IrValue) -> Option<i64> {
        match &self.f.op(self.f.defining_op(v)?).kind {
            OpKind::Const(Const::Int(i)) => Some(*i),
            _ => None,
        }
    }

    fn int_bin(
        &mut self,
        o: IntBinOp,
        a: ir::Value,
        b: ir::Value,
        divisor: Option<i64>,
        span: Span,
    ) -> Res<ir::Value> {
        Ok(match o {
            IntBinOp::Add => self.ins().iadd(a, b),
            IntBinOp::Sub => self.ins().isub(a, b),
            IntBinOp::Mul => self.ins().imul(a, b),
            IntBinOp::BitAnd => self.ins().band(a, b),
            IntBinOp::BitOr => self.ins().bor(a, b),
            IntBinOp::BitXor => self.ins().bxor(a, b),
            IntBinOp::FloorDiv | IntBinOp::Mod if divisor.is_some_and(|d| d > 0) => {
                // A positive constant divisor needs no zero or overflow check; a power of two
                // is a shift or a mask (both round toward −∞ in two's complement).
                let d = divisor.unwrap_or(1);
                if d.count_ones() == 1 {
                    let k = d.trailing_zeros() as i64;
                    if o == IntBinOp::FloorDiv {
                        self.ins().sshr_imm_u(a, k)
                    } else {
                        self.ins().band_imm_u(a, d - 1)
                    }
                } else {
                    let q0 = self.ins().sdiv(a, b);
                    let r0 = self.ins().srem(a, b);
                    // With d > 0, the remainder needs fixing exactly when it is negative.
                    let neg = self.ins().icmp_imm_s(IntCC::SignedLessThan, r0, 0);
                    if o == IntBinOp::FloorDiv {
                        let adj = self.ins().uextend(types::I64, neg);
                        self.ins().isub(q0, adj)
                    } else {
                        let rb = self.ins().iadd(r0, b);
                        self.ins().select(neg, rb, r0)
                    }
                }
            }
            IntBinOp::FloorDiv | IntBinOp::Mod => {
                let zero = self.ins().icmp_imm_s(IntCC::Equal, b, 0);
                self.raise_if(zero, scalar::int_zero_division(o), span)?;
                // `i64::MIN / -1` traps on x86: divide by 1 instead and fix the result up.
                let m1 = self.ins().icmp_imm_s(IntCC::Equal, b, -1);
                let one = self.ins().iconst(types::I64, 1);
                let bs = self.ins().select(m1, one, b);
                let q0 = self.ins().sdiv(a, bs);
                let r0 = self.ins().srem(a, bs);
                // Round toward −∞: adjust when the remainder's sign differs from the divisor's.
                let rnz = self.ins().icmp_imm_s(IntCC::NotEqual, r0, 0);
                let x = self.ins().bxor(r0, b);
                let neg = self.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
                let adj = self.ins().band(rnz, neg);
                if o == IntBinOp::FloorDiv {
                    let adj64 = self.ins().uextend(types::I64, adj);
                    let q = self.ins().isub(q0, adj64);
                    let na = self.ins().ineg(a);
                    self.ins().select(m1, na, q)
                } else {
                    let rb = self.ins().iadd(r0, b);
                    self.ins().select(adj, rb, r0)
                }
            }
            IntBinOp::Pow => {
                let site = self.site(SiteKind::Scalar, span);
                let ctx = self.ctx;
                let r = self.call_host("pjn_int_pow", &[ctx, site, a, b])[0];
                self.check_failed(None)?;
                r
            }
            IntBinOp::Shl | IntBinOp::Shr => {
                let neg = self.ins().icmp_imm_s(IntCC::SignedLessThan, b, 0);
                self.raise_if(neg, scalar::negative_shift(), span)?;
                let big = self
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, b, 64);
                if o == IntBinOp::Shl {
                    let sh = self.ins().ishl(a, b);
                    let z = self.ins().iconst(types::I64, 0);
                    self.ins().select(big, z, sh)
                } else {
                    let sh = self.ins().sshr(a, b);
                    let sign = self.ins().sshr_imm_u(a, 63);
                    self.ins().select(big, sign, sh)
                }
            }
        })
    }

    fn float_bin(
        &mut self,
        o: FloatBinOp,
        a: ir::Value,
        b: ir::Value,
        span: Span,
    ) -> Res<ir::Value> {
        let name = match o {
            FloatBinOp::Add => return Ok(self.b.ins().fadd(a, b)),
            FloatBinOp::Sub => return Ok(self.b.ins().fsub(a, b)),
            FloatBinOp::Mul => return Ok(self.b.ins().fmul(a, b)),
            FloatBinOp::Div => {
                let z = self.b.ins().f64const(0.0);
                let zero = self.b.ins().fcmp(FloatCC::Equal, b, z);
                self.raise_if(zero, scalar::float_zero_division(), span)?;
                return Ok(self.b.ins().fdiv(a, b));
            }
            FloatBinOp::FloorDiv => "pjn_float_floordiv",
            FloatBinOp::Mod => "pjn_float_mod",
            FloatBinOp::Pow => "pjn_float_pow",
        };
        let site = self.site(SiteKind::Scalar, span);
        let ctx = self.ctx;
        let r = self.call_host(name, &[ctx, site, a, b])[0];
        self.check_failed(None)?;
        Ok(r)
    }

    /// `elem.F.P(a[, b])`: the IEEE operations inline (in `f32` registers for `f32`, which
    /// rounds exactly as [`pyjit_runtime::ops::elem::eval`] does), the exponential family
    /// inline too (`inline_math`: the runtime kernels' operations on their constants), the
    /// others through the runtime's per-element kernels.
    fn elem(&mut self, f: ElemFn, p: Prec, a: ir::Value, b: Option<ir::Value>) -> ir::Value {
        let f32 = p == Prec::F32;
        let a = if f32 { self.narrow(a) } else { a };
        let b = b.map(|b| if f32 { self.narrow(b) } else { b });
        let r = match self.inline_elem(f, p, &[a], b.as_ref().map(std::slice::from_ref)) {
            Some(r) => r[0],
            None => {
                let name = pyjit_runtime::ops::elem::entries()
                    .into_iter()
                    .find(|e| e.f == f && e.prec == p)
                    .map(|e| e.name)
                    .unwrap_or("pjn_elem_exp_f64");
                self.call_host(name, &[a])[0]
            }
        };
        if f32 { self.widen(r) } else { r }
    }

    /// `f(a[, b])` at precision `p` computed inline, on scalars or on vectors of them (the loop
    /// vectorizer's), for each part of `a` (and `b`): the IEEE operations, and `inline_math`'s
    /// kernels, whose parts are emitted interleaved; `None` for the functions the runtime
    /// computes.
    fn inline_elem(
        &mut self,
        f: ElemFn,
        p: Prec,
        a: &[ir::Value],
        b: Option<&[ir::Value]>,
    ) -> Option<Vec<ir::Value>> {
        if !f.is_inline() {
            let lanes = self.b.func.dfg.value_type(*a.first()?).lane_count();
            let fma = crate::inline_math::fma_flavour();
            return crate::inline_math::emit_lanes(&mut self.b, f, p, fma, a, lanes);
        }
        Some(
            a.iter()
                .enumerate()
                .map(|(i, &x)| {
                    let y = b.and_then(|b| b.get(i).copied());
                    let ins = self.b.ins();
                    match (f, y) {
                        (ElemFn::Neg, _) => ins.fneg(x),
                        (ElemFn::Abs, _) => ins.fabs(x),
                        (ElemFn::Sqrt, _) => ins.sqrt(x),
                        (ElemFn::Add, Some(y)) => ins.fadd(x, y),
                        (ElemFn::Sub, Some(y)) => ins.fsub(x, y),
                        (ElemFn::Mul, Some(y)) => ins.fmul(x, y),
                        (ElemFn::Div, Some(y)) => ins.fdiv(x, y),
                        // The cast to the precision: done by the narrowing of the operand.
                        _ => x,
                    }
                })
                .collect(),
        )
    }

    /// The condition a `select` is given. `x & 1 == 0` (`x % 2 == 0`) is recompared as
    /// `x & 1 != 1`: Cranelift folds a comparison with 0 of an `and` into `test x, 1` next to
    /// the `cmov`, which keeps `x` alive past the arms and, in a loop carrying `x`
    /// (Collatz), costs a register move and a jump on every back edge. Compared with 1, the
    /// comparison reads the masked bit, computed before the arms. Not in the interleaver's
    /// lanes, which are bound by how many instructions issue, not by one chain: there `test`
    /// saves the `and` and its copy (scalar_loop, alternated six times: 75.0-79.4 against
    /// 79.5-83.0 ms), the move and jump notwithstanding.
    fn select_cond(&mut self, c: ir::Value) -> ir::Value {
        if self.interleaving {
            return c;
        }
        let dfg = &self.b.func.dfg;
        let iconst = |v: ir::Value| match dfg.value_def(v) {
            ir::ValueDef::Result(i, 0) => match dfg.insts[i] {
                ir::InstructionData::UnaryImm {
                    opcode: ir::Opcode::Iconst,
                    imm,
                } => Some(imm.bits()),
                _ => None,
            },
            _ => None,
        };
        let ir::ValueDef::Result(cmp, 0) = dfg.value_def(c) else {
            return c;
        };
        let ir::InstructionData::IntCompare {
            opcode: ir::Opcode::Icmp,
            args: [masked, zero],
            cond,
        } = dfg.insts[cmp]
        else {
            return c;
        };
        let flipped = match cond {
            IntCC::Equal => IntCC::NotEqual,
            IntCC::NotEqual => IntCC::Equal,
            _ => return c,
        };
        let is_low_bit = match dfg.value_def(masked) {
            ir::ValueDef::Result(i, 0) => match dfg.insts[i] {
                ir::InstructionData::Binary {
                    opcode: ir::Opcode::Band,
                    args: [_, m],
                } => iconst(m) == Some(1),
                _ => false,
            },
            _ => false,
        };
        if !is_low_bit || iconst(zero) != Some(0) {
            return c;
        }
        let ty = dfg.value_type(masked);
        let one = self.b.ins().iconst(ty, 1);
        self.b.ins().icmp(flipped, masked, one)
    }

    /// `x` (an `f64` holding an `f32` value) as an `f32`: the value it was widened from when
    /// there is one, an `f32` constant for an `f64` constant (`np.float32(2.0)`: Cranelift
    /// rematerializes a constant where it is used, where a converted one is a loop-invariant
    /// value that holds a register or a stack slot through the loop), else a conversion.
    fn narrow(&mut self, x: ir::Value) -> ir::Value {
        if let Some(&n) = self.narrowed.get(&x) {
            return n;
        }
        let dfg = &self.b.func.dfg;
        if let ir::ValueDef::Result(inst, 0) = dfg.value_def(x)
            && let ir::InstructionData::UnaryIeee64 {
                opcode: ir::Opcode::F64const,
                imm,
            } = dfg.insts[inst]
        {
            let c = f64::from_bits(imm.bits());
            // `fdemote` rounds to nearest even, as `as f32` does; a NaN keeps the conversion.
            if !c.is_nan() {
                return self.b.ins().f32const(c as f32);
            }
        }
        self.b.ins().fdemote(types::F32, x)
    }

    /// `x` (an `f32`) as the `f64` the IR's `float` is, remembering where it came from.
    fn widen(&mut self, x: ir::Value) -> ir::Value {
        let w = self.b.ins().fpromote(types::F64, x);
        self.narrowed.insert(w, x);
        w
    }

    fn math(&mut self, m: MathFn, a: ir::Value, b: ir::Value, span: Span) -> Res<ir::Value> {
        let inf = || f64::INFINITY;
        Ok(match m {
            MathFn::Fabs => self.b.ins().fabs(a),
            MathFn::IsNan => self.b.ins().fcmp(FloatCC::Unordered, a, a),
            MathFn::IsInf => {
                let x = self.b.ins().fabs(a);
                let i = self.b.ins().f64const(inf());
                self.b.ins().fcmp(FloatCC::Equal, x, i)
            }
            MathFn::IsFinite => {
                let x = self.b.ins().fabs(a);
                let i = self.b.ins().f64const(inf());
                self.b.ins().fcmp(FloatCC::LessThan, x, i)
            }
            _ => {
                let code = MathFn::ALL.iter().position(|&x| x == m).unwrap_or(0) as i64;
                let site = self.site(SiteKind::Scalar, span);
                let ctx = self.ctx;
                let c = self.b.ins().iconst(types::I64, code);
                let r = if m.signature().1 == Type::Int {
                    self.call_host("pjn_math_i", &[ctx, site, c, a])[0]
                } else {
                    self.call_host("pjn_math_f", &[ctx, site, c, a, b])[0]
                };
                self.check_failed(None)?;
                r
            }
        })
    }
}

fn int_cc(c: CmpOp, signed: bool) -> IntCC {
    match (c, signed) {
        (CmpOp::Eq, _) => IntCC::Equal,
        (CmpOp::Ne, _) => IntCC::NotEqual,
        (CmpOp::Lt, true) => IntCC::SignedLessThan,
        (CmpOp::Le, true) => IntCC::SignedLessThanOrEqual,
        (CmpOp::Gt, true) => IntCC::SignedGreaterThan,
        (CmpOp::Ge, true) => IntCC::SignedGreaterThanOrEqual,
        (CmpOp::Lt, false) => IntCC::UnsignedLessThan,
        (CmpOp::Le, false) => IntCC::UnsignedLessThanOrEqual,
        (CmpOp::Gt, false) => IntCC::UnsignedGreaterThan,
        (CmpOp::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
    }
}

fn float_cc(c: CmpOp) -> FloatCC {
    match c {
        CmpOp::Eq => FloatCC::Equal,
        CmpOp::Ne => FloatCC::NotEqual,
        CmpOp::Lt => FloatCC::LessThan,
        CmpOp::Le => FloatCC::LessThanOrEqual,
        CmpOp::Gt => FloatCC::GreaterThan,
        CmpOp::Ge => FloatCC::GreaterThanOrEqual,
    }
}

/// For each value: the index, in the region defining it, of the last op that uses it (directly
/// or inside its regions); and which (op, value) pairs have uses inside the op's regions.
fn liveness(f: &pyjit_ir::Function) -> (HashMap<IrValue, u32>, HashSet<(Op, IrValue)>) {
    let mut position: HashMap<Op, u32> = HashMap::new();
    for r in f.all_regions() {
        for (i, &op) in f.region_ops(r).iter().enumerate() {
            position.insert(op, i as u32);
        }
    }
    let def_region = |v: IrValue| -> Option<Region> {
        match f.values[v].def {
            ValueDef::Param(r, _) => Some(r),
            ValueDef::Result(op, _) => f.op(op).parent,
        }
    };
    let mut last = HashMap::new();
    let mut nested = HashSet::new();
    // A pre-order walk with an explicit stack that knows, for every region on the path from the
    // body to the current op, the op of that region the path goes through: the ancestor of a
    // use that lives in the defining region is found in O(1) (climbing to it costs the nesting
    // depth per use: quadratic in an `elif` chain, whose constants are all defined in the body).
    let mut on_path: SecondaryMap<Region, Option<Op>> =
        SecondaryMap::with_capacity(f.regions.len());
    let mut stack: Vec<(Region, usize)> = vec![(f.body, 0)];
    while let Some(top_frame) = stack.last_mut() {
        let (r, i) = *top_frame;
        top_frame.1 += 1;
        let Some(&op) = f.region_ops(r).get(i) else {
            on_path[r] = None;
            stack.pop();
            continue;
        };
        if f.op(op).parent != Some(r) {
            continue; // detached
        }
        on_path[r] = Some(op);
        for &v in &f.op(op).operands {
            let Some(dr) = def_region(v) else { continue };
            let Some(top) = on_path[dr] else { continue };
            let k = position[&top];
            let e = last.entry(v).or_insert(k);
            *e = (*e).max(k);
            // Which ops a use of `v` is nested in matters only for values holding references
            // (see `consume`). A climb that reaches an ancestor already recorded for `v` stops:
            // an earlier use climbed the same path from there.
            if has_refs(&f.values[v].ty) {
                let mut cur = op;
                while cur != top {
                    let Some(owner) = f.op(cur).parent.and_then(|p| f.regions[p].parent) else {
                        break;
                    };
                    cur = owner;
                    if !nested.insert((cur, v)) {
                        break;
                    }
                }
            }
        }
        for &inner in f.op(op).regions.iter().rev() {
            stack.push((inner, 0));
        }
    }
    (last, nested)
}

/// Declares the Cranelift signature of an IR function: the context, then the parameters'
/// slots; the return type's slots as return values.
pub(crate) fn signature(jit: &JITModule, f: &pyjit_ir::Function) -> ir::Signature {
    let mut sig = jit.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    for &p in f.params() {
        for s in slots_of(&f.values[p].ty) {
            sig.params.push(AbiParam::new(clif_type(s)));
        }
    }
    for s in slots_of(&f.ret) {
        sig.returns.push(AbiParam::new(clif_type(s)));
    }
    sig
}

/// The `float` values that native code keeps in `f32` registers: the loop-carried values (a
/// loop body's parameters and the loop's results) and `if` results whose every incoming value
/// always holds an `f32` value — an `elem.*.f32` result, an element of a `float32` tensor, a
/// constant an `f32` holds exactly, or another value of this set. (A NumPy-style `float32`
/// accumulator, `s += e`, is such a value: kept as the IR's `f64`, each iteration would convert
/// it to `f32` and back on the loop's dependency chain.) The `f64` the IR's `float` is stays
/// available as the exact promotion of the register (`Lowering::widen`).
///
/// Found as a greatest fixpoint: every candidate starts in the set and is dropped once one of
/// its incoming values is not known to be an `f32` value.
fn f32_carried(f: &pyjit_ir::Function) -> HashSet<IrValue> {
    use pyjit_runtime::DType;
    let is_float = |v: IrValue| f.values[v].ty == Type::Float;
    let exact = |v: IrValue| match f.defining_op(v).map(|o| f.op(o)) {
        Some(d) => match &d.kind {
            OpKind::Elem(_, Prec::F32) => true,
            OpKind::TensorLoad => d.operands.first().is_some_and(|&t| {
                f.values[t]
                    .ty
                    .as_tensor()
                    .is_some_and(|tt| tt.dtype == Some(DType::Float32))
            }),
            OpKind::Const(Const::Float(x)) => f64::from(*x as f32) == *x,
            _ => false,
        },
        None => false,
    };
    let yielded = |r: Region| -> Option<Vec<IrValue>> {
        let &last = f.region_ops(r).last()?;
        let d = f.op(last);
        (d.kind == OpKind::Yield).then(|| d.operands.to_vec())
    };
    // Per candidate group: the values that share one register (a body parameter and the loop
    // result it becomes) and the values flowing into them.
    let mut groups: Vec<(Vec<IrValue>, Vec<IrValue>)> = Vec::new();
    for op in f.all_ops() {
        let d = f.op(op);
        match d.kind {
            OpKind::Loop => {
                let body = d.regions[0];
                let params = f.region_params(body);
                let ys = yielded(body).unwrap_or_default();
                for (j, &init) in d.operands.iter().skip(2).enumerate() {
                    let (Some(&p), Some(&r), Some(&y)) =
                        (params.get(1 + j), d.results.get(j), ys.get(1 + j))
                    else {
                        continue;
                    };
                    if is_float(p) {
                        groups.push((vec![p, r], vec![init, y]));
                    }
                }
            }
            OpKind::If if d.regions.len() == 2 => {
                let (Some(t), Some(e)) = (yielded(d.regions[0]), yielded(d.regions[1])) else {
                    continue;
                };
                for (j, &r) in d.results.iter().enumerate() {
                    if let (true, Some(&a), Some(&b)) = (is_float(r), t.get(j), e.get(j)) {
                        groups.push((vec![r], vec![a, b]));
                    }
                }
            }
            _ => {}
        }
    }
    let mut set: HashSet<IrValue> = groups.iter().flat_map(|g| g.0.iter().copied()).collect();
    loop {
        let before = set.len();
        for (members, incoming) in &groups {
            if members.iter().any(|m| set.contains(m))
                && !incoming.iter().all(|&v| set.contains(&v) || exact(v))
            {
                for m in members {
                    set.remove(m);
                }
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// `vs` in the order `order` gives: element `p` is `vs[order[p]]`.
/// (`vs` unchanged when `order` is not a permutation of its positions.)
fn permuted(vs: &[ir::Value], order: &[usize]) -> Vec<ir::Value> {
    match order.iter().map(|&j| vs.get(j).copied()).collect() {
        Some(p) if order.len() == vs.len() => p,
        _ => vs.to_vec(),
    }
}

/// The inverse of [`permuted`]: `vs[p]` goes to position `order[p]`.
fn unpermuted(vs: &[ir::Value], order: &[usize]) -> Vec<ir::Value> {
    let mut out = vs.to_vec();
    if order.len() == vs.len() && order.iter().all(|&j| j < vs.len()) {
        for (&v, &j) in vs.iter().zip(order) {
            out[j] = v;
        }
    }
    out
}
