//! The loop vectorizer: a counted loop over the last dim of float32 (float64) views runs eight
//! (four) iterations at a time, as two `f32x4` (`f64x2`) vectors whose instructions interleave.
//!
//! **Which loops.** A `loop` with a trip count and a constant-true condition (`for k in
//! range(n)`) whose body holds only
//! * element loads and stores `t[a, …, k + c]` of tensors with a view, all float32 or all
//!   float64: the leading indices defined outside the loop, the last the counter plus a
//!   constant `c >= 0`;
//! * `elem` ops of that precision the backend computes inline (`+ - * /`, neg, abs, sqrt, the
//!   cast, and `inline_math`'s exp, expm1, tanh, sigmoid) of such loads, of loop-invariant
//!   floats and of constants; for float64, Python's float `+ - *` too (the same IEEE operations;
//!   `/` raises on zero);
//! * constants and `k + c` index arithmetic;
//!
//! and whose carried values are floats that are either passed through unchanged or updated by
//! one binary inline float32 op with a value of the body (`s += e`, `p *= e`), or by one
//! float64 op with a float32 lane value (a float64 accumulator of float32 elements), or running
//! maxima and minima (`if x[k] > m: m = x[k]`, see [`Extremum`]), the result yielded and used
//! nowhere else.
//!
//! **Same bits as the scalar loop.** Every lane runs the scalar code's operations (inline
//! `elem` ops round in `f32` as the scalar code does; `inline_math` emits the same operations on
//! vectors), and a carried value is updated lane by lane, in iteration order (`s + e0 + e1 + e2 +
//! e3`, never a tree), so sums round exactly as the scalar loop's do.
//!
//! **When.** In front of the scalar loop, one check decides: the trip count is at least 4, every
//! access's last-dim stride is 1, every index of every iteration is in bounds (so no iteration
//! can raise), and no store overlaps another access unless both touch the same address in every
//! iteration (a store and a later load of an element another lane wrote would otherwise see the
//! vector order). When the check fails the scalar loop runs every iteration as before; when it
//! holds, the vector loop runs `n & !7` (`n & !3`) iterations and the scalar loop the rest,
//! starting from the vector loop's counter and carried values.

use super::{Lowering, Res};
use crate::CodegenError;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self, BlockArg, InstBuilder, MemFlagsData, types};
use pyjit_ir::{CmpOp, Const, ElemFn, IntBinOp, Op, OpKind, Prec, Type, Value as IrValue};
use std::collections::HashMap;

/// Vectors per trip of the vector loop: two, computed instruction by instruction together, so
/// that the long dependency chains of the inline math (an `exp` is some 20 dependent
/// operations) of two vectors overlap in the core's out-of-order window.
const PARTS: usize = 2;

/// The vector type of a precision: 128 bits, the widest Cranelift's x64 backend has.
fn vector_type(p: Prec) -> types::Type {
    match p {
        Prec::F32 => types::F32X4,
        Prec::F64 => types::F64X2,
    }
}

/// What a value of the loop body is, to the vectorizer.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Class {
    /// The loop counter plus a constant.
    Index(i64),
    /// An integer constant defined in the body.
    Int(i64),
    /// A float constant defined in the body.
    Float(f64),
    /// A float32 value per iteration: one lane each.
    Lanes,
    /// The `j`th carried value (a body parameter).
    Carried(usize),
    /// The new value of the `j`th carried value (its update op's result).
    Update(usize),
    /// A strict comparison of a lane value with the `j`th carried value, only for the `if` of a
    /// running maximum or minimum.
    Compare(usize),
}

/// A running maximum (minimum) of carried value `j`: `m = x if x > m else m` (`<`), `x` a lane
/// value. Each lane keeps its own maximum and the iteration that gave it; at the end the lanes
/// combine into the first maximum in iteration order (the greatest value, of equal ones the
/// earliest: what the scalar loop keeps, `-0.0` and `0.0` included), so the result is the scalar
/// loop's to the bit.
#[derive(Clone, Copy)]
struct Extremum {
    j: usize,
    max: bool,
    /// The lane value compared.
    x: IrValue,
    /// The `if`.
    op: Op,
}

/// One element load or store.
struct Access {
    op: Op,
    tensor: IrValue,
    /// The indices of the dims before the last (values defined outside the loop, or body
    /// constants).
    lead: Vec<IrValue>,
    /// `c` of the last index `k + c`.
    offset: i64,
    store: bool,
}

/// A loop the vectorizer takes: its precision, its body's ops in order (the yield excluded), the
/// classes of its values and its accesses in order.
pub(super) struct Plan {
    prec: Prec,
    ops: Vec<Op>,
    class: HashMap<IrValue, Class>,
    accesses: Vec<Access>,
    extrema: Vec<Extremum>,
}

/// Whether `f` is computed inline on vectors as on scalars.
fn vector_fn(f: ElemFn) -> bool {
    f.is_inline() || crate::inline_math::inlines(f)
}

/// An op computing one float from floats the vectorizer knows: `elem.F.P`, or Python's float
/// `+ - *` (float64, no error possible).
fn float_fn(kind: &OpKind) -> Option<(ElemFn, Prec)> {
    use pyjit_ir::FloatBinOp as B;
    match kind {
        OpKind::Elem(f, p) => Some((*f, *p)),
        OpKind::FloatBin(B::Add) => Some((ElemFn::Add, Prec::F64)),
        OpKind::FloatBin(B::Sub) => Some((ElemFn::Sub, Prec::F64)),
        OpKind::FloatBin(B::Mul) => Some((ElemFn::Mul, Prec::F64)),
        _ => None,
    }
}

impl Lowering<'_, '_> {
    /// The body of loop `op` when the vectorizers may take it (they are on, and it is a `for k
    /// in range(n)`: a trip count and a constant-true condition).
    pub(super) fn counted_loop_body(&self, op: Op) -> Option<pyjit_ir::Region> {
        let d = self.f.op(op);
        (self.vectorize
            && d.kind == OpKind::Loop
            && self.const_bool(d.operands[1]) == Some(true)
            && self.const_int(d.operands[0]) != Some(i64::MAX))
        .then(|| d.regions[0])
    }

    /// The plan for loop `op` when the vectorizer takes it (see the module doc).
    pub(super) fn vector_plan(&self, op: Op) -> Option<Plan> {
        let f = self.f;
        let body = self.counted_loop_body(op)?;
        let params = f.region_params(body);
        let (&counter, carried) = params.split_first()?;
        let mut class: HashMap<IrValue, Class> = HashMap::new();
        class.insert(counter, Class::Index(0));
        for (j, &p) in carried.iter().enumerate() {
            if f.values[p].ty != Type::Float {
                return None;
            }
            class.insert(p, Class::Carried(j));
        }
        let all = f.region_ops(body);
        let (&last, ops) = all.split_last()?;
        // The precision: the dtype of the first element access (every one must have it).
        let prec = ops.iter().find_map(|&o| {
            let od = f.op(o);
            matches!(od.kind, OpKind::TensorLoad | OpKind::TensorStore)
                .then(|| f.values[od.operands[0]].ty.as_tensor()?.dtype)
                .flatten()
        })?;
        let prec = match prec {
            pyjit_runtime::DType::Float32 => Prec::F32,
            pyjit_runtime::DType::Float64 => Prec::F64,
            _ => return None,
        };
        let mut accesses = Vec::new();
        let mut updates: Vec<Option<Op>> = vec![None; carried.len()];
        let mut uses: HashMap<IrValue, usize> = HashMap::new();
        // A float operand an `elem` op or a store may take: per-lane, invariant or constant.
        let float_operand = |class: &HashMap<IrValue, Class>, v: IrValue| match class.get(&v) {
            Some(Class::Lanes | Class::Float(_)) => true,
            None => f.values[v].ty == Type::Float,
            _ => false,
        };
        let mut extrema: Vec<Extremum> = Vec::new();
        for &o in ops {
            let od = f.op(o);
            for &v in &od.operands {
                *uses.entry(v).or_default() += 1;
            }
            let result = od.results.first().copied();
            if od.kind == OpKind::If {
                let e = self.extremum(o, &class, &mut uses, prec, carried)?;
                if updates[e.j].is_some() {
                    return None;
                }
                updates[e.j] = Some(o);
                extrema.push(e);
                class.insert(od.results[0], Class::Update(e.j));
                continue;
            }
            if !od.regions.is_empty() {
                return None;
            }
            let c = match &od.kind {
                OpKind::FloatCmp(CmpOp::Gt | CmpOp::Lt) => {
                    match (class.get(&od.operands[0]), class.get(&od.operands[1])) {
                        (Some(Class::Lanes), Some(Class::Carried(j)))
                        | (Some(Class::Carried(j)), Some(Class::Lanes)) => Class::Compare(*j),
                        _ => return None,
                    }
                }
                OpKind::Const(Const::Int(k)) => Class::Int(*k),
                OpKind::Const(Const::Float(x)) => Class::Float(*x),
                OpKind::IntBin(IntBinOp::Add) => {
                    let k_of = |v: IrValue| match class.get(&v) {
                        Some(Class::Int(k)) => Some(*k),
                        None => self.const_int(v),
                        _ => None,
                    };
                    let (a, b) = (od.operands[0], od.operands[1]);
                    match (class.get(&a), class.get(&b)) {
                        (Some(Class::Index(c)), _) => Class::Index(c.checked_add(k_of(b)?)?),
                        (_, Some(Class::Index(c))) => Class::Index(c.checked_add(k_of(a)?)?),
                        _ => return None,
                    }
                }
                OpKind::TensorLoad | OpKind::TensorStore => {
                    let store = od.kind == OpKind::TensorStore;
                    let t = od.operands[0];
                    let tt = f.values[t].ty.as_tensor()?;
                    let view = self.views.get(&t)?;
                    let n_idx = od.operands.len() - 1 - store as usize;
                    if class.contains_key(&t)
                        || tt.dtype.and_then(Prec::of) != Some(prec)
                        || n_idx == 0
                        || view.sizes.len() != n_idx
                    {
                        return None;
                    }
                    let idx = &od.operands[1..1 + n_idx];
                    let (&last_idx, lead) = idx.split_last()?;
                    let Some(Class::Index(offset)) = class.get(&last_idx).copied() else {
                        return None;
                    };
                    let lead_ok = lead.iter().all(|v| match class.get(v) {
                        Some(Class::Int(_)) => true,
                        None => f.values[*v].ty == Type::Int,
                        _ => false,
                    });
                    if offset < 0 || !lead_ok {
                        return None;
                    }
                    if store && !float_operand(&class, od.operands[1 + n_idx]) {
                        return None;
                    }
                    accesses.push(Access {
                        op: o,
                        tensor: t,
                        lead: lead.to_vec(),
                        offset,
                        store,
                    });
                    if store {
                        continue;
                    }
                    Class::Lanes
                }
                kind => {
                    let (func, q) = float_fn(kind)?;
                    let carried_at: Vec<usize> = od
                        .operands
                        .iter()
                        .filter_map(|v| match class.get(v) {
                            Some(Class::Carried(j)) => Some(*j),
                            _ => None,
                        })
                        .collect();
                    match carried_at[..] {
                        [] if q == prec
                            && vector_fn(func)
                            && od.operands.iter().all(|&v| float_operand(&class, v)) =>
                        {
                            Class::Lanes
                        }
                        // An update: the plan's precision, or a float64 accumulator of float32
                        // lanes (`s = np.float64(0.0)`, `s += x[k]` of a float32 `x`), each lane
                        // promoted exactly as the scalar code does. (A float64 result never
                        // travels in an `f32` register, `f32_carried`.)
                        [j] if func.arity() == 2
                            && func.is_inline()
                            && updates[j].is_none()
                            && od.operands.iter().any(|&v| float_operand(&class, v))
                            && (q == prec
                                || (q == Prec::F64
                                    && od
                                        .operands
                                        .iter()
                                        .any(|v| class.get(v) == Some(&Class::Lanes))
                                    && !self.f32_vals.contains(&carried[j]))) =>
                        {
                            updates[j] = Some(o);
                            Class::Update(j)
                        }
                        _ => return None,
                    }
                }
            };
            if let Some(r) = result {
                class.insert(r, c);
            }
        }
        // The yield: condition true, each carried value its update or itself.
        let yd = f.op(last);
        if yd.kind != OpKind::Yield || self.const_bool(*yd.operands.first()?) != Some(true) {
            return None;
        }
        for (j, &y) in yd.operands[1..].iter().enumerate() {
            *uses.entry(y).or_default() += 1;
            let ok = match class.get(&y) {
                Some(Class::Update(i)) => *i == j,
                Some(Class::Carried(i)) => *i == j && updates[j].is_none(),
                _ => false,
            };
            if !ok {
                return None;
            }
        }
        // A carried value and its update are used once each (by the update op, by the yield);
        // a running extremum's twice (by the comparison and by the `if`'s else branch), and its
        // comparison once (by the `if`).
        for (j, &p) in carried.iter().enumerate() {
            if let Some(u) = updates[j] {
                let r = f.op(u).results[0];
                let n = if f.op(u).kind == OpKind::If { 2 } else { 1 };
                if uses.get(&p) != Some(&n) || uses.get(&r) != Some(&1) {
                    return None;
                }
            }
        }
        let compares_used_once = class
            .iter()
            .filter(|(_, c)| matches!(c, Class::Compare(_)))
            .all(|(v, _)| {
                uses.get(v) == Some(&1) && extrema.iter().any(|e| f.op(e.op).operands[0] == *v)
            });
        if !compares_used_once {
            return None;
        }
        if accesses.is_empty() {
            return None;
        }
        Some(Plan {
            prec,
            ops: ops.to_vec(),
            class,
            accesses,
            extrema,
        })
    }

    /// The running extremum an `if` of the loop body is: one float result, each branch only a
    /// `yield`, the condition a strict comparison ([`Class::Compare`]) of the lane value the
    /// then branch yields with the carried value the else branch yields (`m = x if x > m else
    /// m`; the other way round, `m if m > x else x`, keeps the latest of equal values and lets
    /// NaN in, and is not taken). Counts the branches' uses in `uses`.
    fn extremum(
        &self,
        op: Op,
        class: &HashMap<IrValue, Class>,
        uses: &mut HashMap<IrValue, usize>,
        prec: Prec,
        carried: &[IrValue],
    ) -> Option<Extremum> {
        let f = self.f;
        let d = f.op(op);
        let Some(Class::Compare(j)) = class.get(d.operands.first()?).copied() else {
            return None;
        };
        let max = self.max_or_min(op)?;
        let yielded = |k: usize| -> Option<IrValue> {
            match f.region_ops(*d.regions.get(k)?) {
                [y] => f.op(*y).operands.first().copied(),
                _ => None,
            }
        };
        let (t, e) = (yielded(0)?, yielded(1)?);
        for v in [t, e] {
            *uses.entry(v).or_default() += 1;
        }
        let p = *carried.get(j)?;
        // The lane registers hold the plan's precision; the carried value must too (an `f32`
        // register for float32 lanes, `f32_carried`; a float64 one for float64 lanes).
        let same_reg = self.f32_vals.contains(&p) == (prec == Prec::F32);
        (class.get(&t) == Some(&Class::Lanes) && e == p && same_reg).then_some(Extremum {
            j,
            max,
            x: t,
            op,
        })
    }

    /// Emits the check and the vector loop of `plan` in front of the scalar loop (trip count
    /// `max`, carried values `carried` in the scalar loop's registers, `mask` marking the `f32`
    /// ones); returns where the scalar loop starts: its first counter value and carried values
    /// (0 and `carried` when the check fails).
    pub(super) fn emit_vector_loop(
        &mut self,
        plan: &Plan,
        max: ir::Value,
        carried: &[ir::Value],
        mask: &[bool],
    ) -> Res<(ir::Value, Vec<ir::Value>)> {
        // Not `aligned`: a vector's address is only element-aligned, and an SSE instruction
        // Cranelift folded an aligned load into would fault on it.
        let flags = MemFlagsData::new().with_notrap();
        let vty = vector_type(plan.prec);
        // Iterations per trip of the vector loop: `PARTS` vectors.
        let n_lanes = i64::from(vty.lane_count()) * PARTS as i64;
        // log2 of the element size.
        let shift = i64::from(vty.lane_bits().trailing_zeros()) - 3;
        let mut ok = self.b.ins().iconst(types::I8, 1);
        // Per access: the address of its element at k = 0.
        let mut bases = Vec::with_capacity(plan.accesses.len());
        for a in &plan.accesses {
            let view = self
                .views
                .get(&a.tensor)
                .cloned()
                .ok_or_else(|| CodegenError::Internal("vector access without a view".into()))?;
            let last = view.sizes.len() - 1;
            let mut off = self.b.ins().iconst(types::I64, a.offset);
            for (d, &v) in a.lead.iter().enumerate() {
                let i = match plan.class.get(&v) {
                    Some(Class::Int(k)) => self.b.ins().iconst(types::I64, *k),
                    _ => self.one(v)?,
                };
                let size = view.sizes[d];
                let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, i, 0);
                let wrapped = self.b.ins().iadd(i, size);
                let j = self.b.ins().select(neg, wrapped, i);
                let inb = self.b.ins().icmp(IntCC::UnsignedLessThan, j, size);
                ok = self.b.ins().band(ok, inb);
                let term = self.b.ins().imul(j, view.strides[d]);
                off = self.b.ins().iadd(off, term);
            }
            let unit = self.b.ins().icmp_imm_s(IntCC::Equal, view.strides[last], 1);
            ok = self.b.ins().band(ok, unit);
            // k + offset < size for every k < max.
            let room = self.b.ins().iadd_imm_s(view.sizes[last], -a.offset);
            let fits = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, max, room);
            ok = self.b.ins().band(ok, fits);
            let bytes = self.b.ins().ishl_imm_u(off, shift);
            bases.push(self.b.ins().iadd(view.data, bytes));
        }
        // A store and any other access: the same address, or byte ranges apart.
        let len = self.b.ins().ishl_imm_u(max, shift);
        let n = plan.accesses.len();
        for s in (0..n).filter(|&s| plan.accesses[s].store) {
            for o in (0..n).filter(|&o| o != s) {
                let (bs, bo) = (bases[s], bases[o]);
                let same = self.b.ins().icmp(IntCC::Equal, bs, bo);
                let end_s = self.b.ins().iadd(bs, len);
                let end_o = self.b.ins().iadd(bo, len);
                let before = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end_s, bo);
                let after = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end_o, bs);
                let apart = self.b.ins().bor(before, after);
                let fine = self.b.ins().bor(same, apart);
                ok = self.b.ins().band(ok, fine);
            }
        }
        // Iteration numbers of running extrema are kept in lanes as wide as the values'.
        let ity = vty.as_int();
        if !plan.extrema.is_empty() && ity.lane_bits() == 32 {
            let fits =
                self.b
                    .ins()
                    .icmp_imm_s(IntCC::SignedLessThanOrEqual, max, i64::from(i32::MAX));
            ok = self.b.ins().band(ok, fits);
        }
        let nv = self.b.ins().band_imm_s(max, -n_lanes);
        let some = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, nv, 0);
        let go = self.b.ins().band(ok, some);

        // Loop-invariant operands, splat once here.
        let mut lanes: HashMap<IrValue, Vec<ir::Value>> = HashMap::new();
        for &o in &plan.ops {
            for &v in &self.f.op(o).operands {
                if lanes.contains_key(&v) || self.f.values[v].ty != Type::Float {
                    continue;
                }
                let x = match plan.class.get(&v) {
                    Some(Class::Float(x)) => self.b.ins().f64const(*x),
                    None => self.one(v)?,
                    _ => continue,
                };
                let x = match plan.prec {
                    Prec::F32 => self.narrow(x),
                    Prec::F64 => x,
                };
                let x = self.b.ins().splat(vty, x);
                lanes.insert(v, vec![x; PARTS]);
            }
        }

        let reg = |narrow: bool| if narrow { types::F32 } else { types::F64 };
        let vbody = self.b.create_block();
        let vexit = self.b.create_block();
        let join = self.b.create_block();
        for blk in [vbody, vexit, join] {
            self.b.append_block_param(blk, types::I64);
            for &m in mask {
                self.b.append_block_param(blk, reg(m));
            }
        }
        // Per running extremum and part: the lanes' extremum and the iteration that gave it
        // (-1: the carried value it started from, earlier than every iteration).
        let n_state = plan.extrema.len() * PARTS;
        for blk in [vbody, vexit] {
            for _ in 0..n_state {
                self.b.append_block_param(blk, vty);
            }
            for _ in 0..n_state {
                self.b.append_block_param(blk, ity);
            }
        }
        let lane_ty = ity.lane_type();
        let mut state0 = Vec::with_capacity(2 * n_state);
        for e in &plan.extrema {
            let m = self.b.ins().splat(vty, carried[e.j]);
            state0.extend(std::iter::repeat_n(m, PARTS));
        }
        let minus1 = self.b.ins().iconst(lane_ty, -1);
        let minus1 = self.b.ins().splat(ity, minus1);
        state0.extend(std::iter::repeat_n(minus1, n_state));
        // The iteration of each lane of part `u` relative to the trip's first.
        let per = vty.lane_count();
        let iota: Vec<ir::Value> = (0..PARTS as u32)
            .map(|u| {
                let first = self.b.ins().iconst(lane_ty, i64::from(u * per));
                let mut v = self.b.ins().splat(ity, first);
                for l in 1..per {
                    let k = self.b.ins().iconst(lane_ty, i64::from(u * per + l));
                    v = self.b.ins().insertlane(v, k, l as u8);
                }
                v
            })
            .collect();
        let bargs = |i: ir::Value, vs: &[ir::Value], st: &[ir::Value]| {
            std::iter::once(BlockArg::Value(i))
                .chain(vs.iter().chain(st).map(|&v| BlockArg::Value(v)))
                .collect::<Vec<_>>()
        };
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().brif(
            go,
            vbody,
            &bargs(zero, carried, &state0),
            join,
            &bargs(zero, carried, &[]),
        );

        self.b.switch_to_block(vbody);
        let params = self.b.block_params(vbody).to_vec();
        let (iv, mut acc) = (params[0], params[1..1 + mask.len()].to_vec());
        let mut state = params[1 + mask.len()..].to_vec();
        let iv_lanes = if lane_ty == types::I32 {
            let t = self.b.ins().ireduce(types::I32, iv);
            self.b.ins().splat(ity, t)
        } else {
            self.b.ins().splat(ity, iv)
        };
        let step = self.b.ins().ishl_imm_u(iv, shift);
        let outer_loc = self.b.srcloc();
        let mut access = plan.accesses.iter().zip(&bases);
        for &o in &plan.ops {
            self.b.set_srcloc(ir::SourceLoc::new(o.as_u32()));
            let od = self.f.op(o);
            match &od.kind {
                // The comparison of a running extremum: part of its `if`.
                OpKind::FloatCmp(_) => {}
                OpKind::If => {
                    let (k, e) = plan
                        .extrema
                        .iter()
                        .enumerate()
                        .find(|(_, e)| e.op == o)
                        .ok_or_else(|| CodegenError::Internal("vector if".into()))?;
                    let xs = lane_value(&lanes, e.x)?;
                    for (u, &x) in xs.iter().enumerate() {
                        let (vi, ii) = (k * PARTS + u, n_state + k * PARTS + u);
                        let m = state[vi];
                        // `x if x > m else m` as `m < x` (`x < m`): `maxps`/`minps`.
                        let c = if e.max {
                            self.b.ins().fcmp(FloatCC::LessThan, m, x)
                        } else {
                            self.b.ins().fcmp(FloatCC::LessThan, x, m)
                        };
                        let cf = self.b.ins().bitcast(vty, MemFlagsData::new(), c);
                        state[vi] = self.b.ins().bitselect(cf, x, m);
                        let k_lanes = self.b.ins().iadd(iv_lanes, iota[u]);
                        state[ii] = self.b.ins().bitselect(c, k_lanes, state[ii]);
                    }
                }
                OpKind::TensorLoad | OpKind::TensorStore => {
                    let (a, &base) = access
                        .next()
                        .filter(|(a, _)| a.op == o)
                        .ok_or_else(|| CodegenError::Internal("vector access order".into()))?;
                    let addr = self.b.ins().iadd(base, step);
                    // Part `u` holds the iterations `u * lanes ..`, `u * 16` bytes on.
                    if a.store {
                        let v = *od.operands.last().ok_or_else(|| {
                            CodegenError::Internal("store without a value".into())
                        })?;
                        for (u, x) in lane_value(&lanes, v)?.into_iter().enumerate() {
                            self.b.ins().store(flags, x, addr, 16 * u as i32);
                        }
                    } else {
                        let xs = (0..PARTS)
                            .map(|u| self.b.ins().load(vty, flags, addr, 16 * u as i32))
                            .collect();
                        lanes.insert(od.results[0], xs);
                    }
                }
                kind => {
                    let Some((func, prec)) = float_fn(kind) else {
                        continue;
                    };
                    if let Some(Class::Update(j)) = plan.class.get(&od.results[0]).copied() {
                        // Lane by lane, in iteration order.
                        let (x, acc_first) = match plan.class.get(&od.operands[0]) {
                            Some(Class::Carried(_)) => (lane_value(&lanes, od.operands[1])?, true),
                            _ => (lane_value(&lanes, od.operands[0])?, false),
                        };
                        // The accumulator at the op's precision (an `f32` register holds only
                        // float32 updates' results, `f32_carried`).
                        let mut s = match (prec, mask[j]) {
                            (Prec::F32, true) | (Prec::F64, false) => acc[j],
                            (Prec::F32, false) => self.narrow(acc[j]),
                            (Prec::F64, true) => {
                                return Err(CodegenError::Internal(
                                    "float64 update of an f32 register".into(),
                                ));
                            }
                        };
                        for part in x {
                            for lane in 0..vty.lane_count() as u8 {
                                let mut e = self.b.ins().extractlane(part, lane);
                                if prec == Prec::F64 && plan.prec == Prec::F32 {
                                    e = self.b.ins().fpromote(types::F64, e);
                                }
                                let (l, r) = if acc_first { (s, e) } else { (e, s) };
                                s = self.inline_elem(func, prec, &[l], Some(&[r])).ok_or_else(
                                    || CodegenError::Internal("vector update".into()),
                                )?[0];
                            }
                        }
                        acc[j] = if prec == Prec::F32 && !mask[j] {
                            self.widen(s)
                        } else {
                            s
                        };
                    } else {
                        let a = lane_value(&lanes, od.operands[0])?;
                        let b = match od.operands.get(1) {
                            Some(&v) => Some(lane_value(&lanes, v)?),
                            None => None,
                        };
                        let r = self
                            .inline_elem(func, prec, &a, b.as_deref())
                            .ok_or_else(|| CodegenError::Internal(format!("vector {func:?}")))?;
                        lanes.insert(od.results[0], r);
                    }
                }
            }
        }
        self.b.set_srcloc(outer_loc);
        let next = self.b.ins().iadd_imm_s(iv, n_lanes);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, next, nv);
        self.b.ins().brif(
            more,
            vbody,
            &bargs(next, &acc, &state),
            vexit,
            &bargs(next, &acc, &state),
        );

        // The lanes of each running extremum combined: the greatest (least) value, of equal
        // ones the one from the earliest iteration.
        self.b.switch_to_block(vexit);
        let params = self.b.block_params(vexit).to_vec();
        let (next, mut acc) = (params[0], params[1..1 + mask.len()].to_vec());
        let state = params[1 + mask.len()..].to_vec();
        for (k, e) in plan.extrema.iter().enumerate() {
            let mut best: Option<(ir::Value, ir::Value)> = None;
            for u in 0..PARTS {
                let (vs, is) = (state[k * PARTS + u], state[n_state + k * PARTS + u]);
                for l in 0..per as u8 {
                    let v = self.b.ins().extractlane(vs, l);
                    let i = self.b.ins().extractlane(is, l);
                    best = Some(match best {
                        None => (v, i),
                        Some((bv, bi)) => {
                            let beats = if e.max {
                                self.b.ins().fcmp(FloatCC::LessThan, bv, v)
                            } else {
                                self.b.ins().fcmp(FloatCC::LessThan, v, bv)
                            };
                            let equal = self.b.ins().fcmp(FloatCC::Equal, v, bv);
                            let earlier = self.b.ins().icmp(IntCC::SignedLessThan, i, bi);
                            let tie = self.b.ins().band(equal, earlier);
                            let take = self.b.ins().bor(beats, tie);
                            (
                                self.b.ins().select(take, v, bv),
                                self.b.ins().select(take, i, bi),
                            )
                        }
                    });
                }
            }
            acc[e.j] = best
                .ok_or_else(|| CodegenError::Internal("vector extremum".into()))?
                .0;
        }
        self.b.ins().jump(join, &bargs(next, &acc, &[]));

        self.b.switch_to_block(join);
        let params = self.b.block_params(join).to_vec();
        Ok((params[0], params[1..].to_vec()))
    }
}

/// The vectors of body value `v` (per-lane, or an invariant splat), one per part.
fn lane_value(lanes: &HashMap<IrValue, Vec<ir::Value>>, v: IrValue) -> Res<Vec<ir::Value>> {
    lanes
        .get(&v)
        .cloned()
        .ok_or_else(|| CodegenError::Internal("vector operand without lanes".into()))
}
