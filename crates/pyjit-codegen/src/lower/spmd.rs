//! Outer-loop vectorization: a counted loop whose iterations are independent scalar programs
//! (mandelbrot's loop over the pixels of a row: a few float operations, a `while` loop with a
//! trip count of its own, one element store) runs four iterations at a time, as the lanes of
//! two `f64x2` / `i64x2` vectors whose instructions interleave. A loop nest that is
//! latency-bound on one iteration's dependency chain (mandelbrot's escape loop is one chain of
//! dependent multiplies and adds) then runs four chains side by side.
//!
//! **Which loops.** A `loop` with a trip count, a constant-true condition and no carried values
//! (`for j in range(n)`), whose body holds only
//! * constants and the `int`, `float` and `bool` scalar ops below, on values of the body and
//!   values defined before the loop (the same in every lane);
//! * `if`s and inner `loop`s (any trip count, any condition, carried `int`/`float`/`bool`
//!   values) made of the same;
//! * element stores `t[…] = v` at the body's top level, of tensors with a view;
//!
//! whose carried values are `int` running sums (`total += k`, also in an `if` or a loop: each
//! lane keeps a partial sum, added up after the vector loop; see [`Lowering::chain_use`]), and
//! whose inner loops do
//! `float` arithmetic (the case where lanes pay: see the end of [`Lowering::spmd_plan`]).
//! Integer `//` and `%` by a positive power of two are shifts and masks, as in the scalar code.
//!
//! The scalar ops: `int` `+ - * & | ^`, negation, comparisons; `float` `+ - *`, `/` by a value
//! defined before the loop (or a constant), negation, `abs`, comparisons; `bool` `and or xor
//! not ==  !=`; `int → float`, `bool → int`; `select`. None of them can raise (the divisor is
//! checked once before the vector loop; when it is zero, the scalar loop runs every iteration and
//! raises where the program does).
//!
//! **Same results, same order of effects.** Every lane performs the scalar code's IEEE and
//! wrapping operations. An `if` computes both sides for every lane and selects per lane (the
//! sides have no effects). An inner loop runs while any lane's condition holds; a lane whose
//! condition turned false keeps the carried values read after the loop (it is masked), so each
//! lane leaves the loop with the values the scalar loop would have. A loop inside an `if` side
//! or inside another loop starts only the lanes whose scalar program gets there (the side's
//! condition, the enclosing loop's live lanes): another lane's values may be anything there,
//! and a loop on them need not end. The stores, the only
//! effects, are made at the end of the vector body: iteration `j`'s in program order, then
//! `j + 1`'s, ..., which is the scalar loop's order; each is the scalar store (index wrap,
//! bounds check that raises PyTorch's `IndexError`, dtype conversion) on the lane's values. The
//! vector loop runs `n & !3` iterations; the scalar loop runs the rest.
//!
//! mandelbrot 200x200 (`pyjit bench`, builds alternated): 2.10-2.17 ms scalar; two lanes in one
//! vector 1.40-1.43 ms; four in two vectors 1.02-1.06 ms (docs/python.md).

use super::{Lowering, Res, float_cc, int_cc};
use crate::CodegenError;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self, BlockArg, InstBuilder, MemFlagsData, types};
use pyjit_ir::{
    BoolBinOp, CastOp, CmpOp, Const, FloatBinOp, FloatUnOp, IntBinOp, IntUnOp, Op, OpKind, Region,
    Type, Value as IrValue,
};
use std::collections::{HashMap, HashSet};

/// Lanes per vector: 128-bit vectors of 64-bit lanes.
const LANES: i64 = 2;

/// Vectors per value: two, whose instructions interleave, so that four iterations' dependency
/// chains overlap in the core.
const PARTS: usize = 2;

/// The vectors (one per part) of each value of the vector body.
type LaneMap = HashMap<IrValue, Vec<ir::Value>>;

/// A loop the outer-loop vectorizer takes: the values its body defines (everything else it
/// reads is the same in every lane), the divisors to test before it, and its stores.
pub(super) struct SpmdPlan {
    pub(super) defined: HashSet<IrValue>,
    pub(super) divisors: Vec<IrValue>,
    pub(super) stores: Vec<Op>,
    /// The values of the running sums (see [`Lowering::chain_use`]), with the carried slot of
    /// the outer loop each belongs to.
    chain: HashMap<IrValue, usize>,
    /// How many inner loops enclose the op being checked, and whether one holds `float`
    /// arithmetic (see [`Lowering::spmd_plan`]).
    depth: usize,
    pub(super) inner_float: bool,
}

/// The vector type of a scalar type's lanes (`bool`s are lane masks: all ones or zero).
fn lane_type(t: &Type) -> Option<types::Type> {
    match t {
        Type::Int | Type::Bool => Some(types::I64X2),
        Type::Float => Some(types::F64X2),
        _ => None,
    }
}

impl Lowering<'_, '_> {
    /// The plan for loop `op` when the outer-loop vectorizer takes it (see the module doc).
    pub(super) fn spmd_plan(&self, op: Op) -> Option<SpmdPlan> {
        // 64-bit lane compares and lane inserts/extracts/tests are SSE4.1/4.2 instructions on
        // x86-64 (Cranelift lowers them from what the host has).
        #[cfg(target_arch = "x86_64")]
        if !std::is_x86_feature_detected!("sse4.2") {
            return None;
        }
        let plan = self.independent_iterations(op)?;
        // Only loop nests whose inner loops do `float` arithmetic: there, one iteration is a
        // chain of 3-4-cycle dependent operations, and the lanes run four chains in the time of
        // about one (mandelbrot: 2.3 -> 1.05 ms). An integer inner loop is a chain of 1-cycle
        // operations that the scalar code runs branch-free, and lanes that finish at different
        // trips cost more than they save (Collatz's `scalar_loop` vectorized, two lanes: 162
        // against 118 ms; four: 117.1-117.3 against 112.6-114.3); such nests go to the
        // interleaver ([`Lowering::refill_plan`]).
        let sums = self.f.region_params(self.f.op(op).regions[0]).len() > 1;
        (plan.inner_float && (!plan.stores.is_empty() || sums)).then_some(plan)
    }

    /// The analysis both the outer-loop vectorizer and the interleaver rest on: whether loop
    /// `op`'s iterations are independent scalar programs of the ops above (every one free of
    /// errors but the float divisions by [`SpmdPlan::divisors`]), with element stores at the
    /// body's top level and `int` running sums as the carried values.
    pub(super) fn independent_iterations(&self, op: Op) -> Option<SpmdPlan> {
        let f = self.f;
        let body = self.counted_loop_body(op)?;
        let params = f.region_params(body);
        let mut plan = SpmdPlan {
            defined: HashSet::new(),
            divisors: Vec::new(),
            stores: Vec::new(),
            chain: HashMap::new(),
            depth: 0,
            inner_float: false,
        };
        plan.defined.extend(params.iter().copied());
        // Carried values: `int` running sums only.
        for (slot, &p) in params[1..].iter().enumerate() {
            if *self.ty(p) != Type::Int {
                return None;
            }
            plan.chain.insert(p, slot);
        }
        let ops = f.region_ops(body);
        let (&last, rest) = ops.split_last()?;
        let ld = f.op(last);
        if ld.kind != OpKind::Yield
            || ld.operands.len() != params.len()
            || self.const_bool(ld.operands[0]) != Some(true)
        {
            return None;
        }
        for &o in rest {
            let od = f.op(o);
            if od.kind == OpKind::TensorStore {
                if od.operands.iter().any(|v| plan.chain.contains_key(v)) {
                    return None;
                }
                let t = od.operands[0];
                let v = *od.operands.last()?;
                if !self.views.contains_key(&t) || plan.defined.contains(&t) {
                    return None;
                }
                if lane_type(self.ty(v)).is_none()
                    || od.operands[1..]
                        .iter()
                        .any(|&i| *self.ty(i) != Type::Int && i != v)
                {
                    return None;
                }
                plan.stores.push(o);
                continue;
            }
            if !self.spmd_op_ok(o, &mut plan) {
                return None;
            }
        }
        // Each carried slot yields a running sum of its own.
        for (slot, v) in ld.operands[1..].iter().enumerate() {
            if plan.chain.get(v) != Some(&slot) {
                return None;
            }
        }
        Some(plan)
    }

    /// The running-sum rule for op `o` when an operand is a sum (a value of [`SpmdPlan::chain`]):
    /// the outer loop's carried `int`s are running sums, `s + v`, `v + s` and `s - v` of a sum
    /// `s` and a value `v` that is not one are sums of the same slot, and so are an inner loop's
    /// carried values that start from a sum (its body must yield a sum of that slot back) and
    /// an `if`'s results that both sides yield as sums of one slot (`if c: total += x`; see
    /// `spmd_op_ok`). A
    /// sum is used in nothing else: each lane then keeps a partial sum of its iterations, and
    /// the lanes' partial sums add up to the scalar loop's (wrapping additions commute).
    /// Returns `None` when no operand is a sum, `Some(false)` when the use breaks the rule.
    fn chain_use(&self, o: Op, plan: &mut SpmdPlan) -> Option<bool> {
        let d = self.f.op(o);
        let origin: Vec<Option<usize>> = d
            .operands
            .iter()
            .map(|v| plan.chain.get(v).copied())
            .collect();
        if origin.iter().all(Option::is_none) {
            return None;
        }
        Some(match &d.kind {
            OpKind::IntBin(b @ (IntBinOp::Add | IntBinOp::Sub)) => {
                let slot = match (origin[0], origin[1]) {
                    (Some(s), None) => Some(s),
                    (None, Some(s)) if *b == IntBinOp::Add => Some(s),
                    _ => None,
                };
                match slot {
                    Some(s) => {
                        plan.chain.insert(d.results[0], s);
                        true
                    }
                    None => false,
                }
            }
            OpKind::Loop => {
                if origin[..2].iter().any(Option::is_some) {
                    return Some(false);
                }
                let params = self.f.region_params(d.regions[0]);
                for (q, s) in origin[2..].iter().enumerate() {
                    if let Some(s) = *s {
                        plan.chain.insert(params[1 + q], s);
                        plan.chain.insert(d.results[q], s);
                    }
                }
                true
            }
            _ => false,
        })
    }

    /// Whether op `o` (and its regions) is vectorizable; records what it defines.
    fn spmd_op_ok(&self, o: Op, plan: &mut SpmdPlan) -> bool {
        let f = self.f;
        let d = f.op(o);
        let scalar = |v: &IrValue| lane_type(&f.values[*v].ty).is_some();
        if !d.operands.iter().all(scalar) || !d.results.iter().all(scalar) {
            return false;
        }
        match self.chain_use(o, plan) {
            Some(false) => return false,
            Some(true) if d.kind != OpKind::Loop => {
                plan.defined.extend(d.results.iter().copied());
                return true;
            }
            _ => {}
        }
        let ok = match &d.kind {
            OpKind::Const(c) => matches!(c, Const::Int(_) | Const::Float(_) | Const::Bool(_)),
            OpKind::IntBin(IntBinOp::FloorDiv | IntBinOp::Mod) => {
                // By a positive power of two: a shift or a mask, as in the scalar code.
                self.const_int(d.operands[1])
                    .is_some_and(|k| k > 0 && k.count_ones() == 1)
            }
            OpKind::IntBin(b) => matches!(
                b,
                IntBinOp::Add
                    | IntBinOp::Sub
                    | IntBinOp::Mul
                    | IntBinOp::BitAnd
                    | IntBinOp::BitOr
                    | IntBinOp::BitXor
            ),
            OpKind::IntUn(u) => matches!(u, IntUnOp::Neg | IntUnOp::Invert),
            OpKind::IntCmp(_) | OpKind::FloatCmp(_) | OpKind::BoolBin(_) | OpKind::Not => true,
            OpKind::BoolCmp(c) => matches!(c, CmpOp::Eq | CmpOp::Ne),
            OpKind::FloatBin(FloatBinOp::Add | FloatBinOp::Sub | FloatBinOp::Mul) => {
                plan.inner_float |= plan.depth > 0;
                true
            }
            OpKind::FloatBin(FloatBinOp::Div) => {
                // A divisor the same in every iteration, tested once before the loop.
                let b = d.operands[1];
                match self.const_float(b) {
                    Some(x) => x != 0.0,
                    None if !plan.defined.contains(&b) => {
                        plan.divisors.push(b);
                        true
                    }
                    None => false,
                }
            }
            OpKind::FloatUn(FloatUnOp::Neg | FloatUnOp::Abs) => true,
            OpKind::Cast(CastOp::IntToFloat | CastOp::BoolToInt) => true,
            OpKind::Select => true,
            OpKind::If => {
                // A result that both sides yield as a running sum of one slot (`if c: total +=
                // x`) is a sum of that slot (each lane selects its own partial sum's update).
                let mut sides = Vec::with_capacity(2);
                for &r in &d.regions {
                    match self.spmd_region_sums(r, plan) {
                        Some(s) => sides.push(s),
                        None => return false,
                    }
                }
                if sides.windows(2).any(|w| w[0] != w[1]) {
                    return false;
                }
                for (q, slot) in sides.first().into_iter().flatten().enumerate() {
                    if let (Some(s), Some(&r)) = (slot, d.results.get(q)) {
                        plan.chain.insert(r, *s);
                    }
                }
                true
            }
            OpKind::Loop => {
                // The carried sums' slots, which the body's `yield` must give back.
                let body = d.regions[0];
                let params = f.region_params(body);
                let sums: Vec<Option<usize>> = std::iter::once(None)
                    .chain(params[1..].iter().map(|p| plan.chain.get(p).copied()))
                    .collect();
                plan.depth += 1;
                let ok = d.operands.len() >= 2
                    && !plan.defined.contains(&d.operands[0])
                    && self.spmd_region_ok(body, plan, &sums);
                plan.depth -= 1;
                ok
            }
            _ => false,
        };
        if ok {
            plan.defined.extend(d.results.iter().copied());
        }
        ok
    }

    /// Whether region `r` (an `if` side or an inner loop's body) is vectorizable: its
    /// parameters scalars, its ops vectorizable, ending in a `yield` whose operand `q` is a
    /// running sum of slot `sums[q]` where that is given, and not a sum elsewhere.
    fn spmd_region_ok(&self, r: Region, plan: &mut SpmdPlan, sums: &[Option<usize>]) -> bool {
        self.spmd_region_sums(r, plan).is_some_and(|slots| {
            slots
                .iter()
                .enumerate()
                .all(|(q, s)| *s == sums.get(q).copied().flatten())
        })
    }

    /// When region `r` is vectorizable (its parameters scalars, its ops vectorizable, ending
    /// in a `yield`): the running-sum slot of each operand of its `yield` (`None`: not a sum).
    fn spmd_region_sums(&self, r: Region, plan: &mut SpmdPlan) -> Option<Vec<Option<usize>>> {
        let f = self.f;
        let params = f.region_params(r);
        if !params.iter().all(|p| lane_type(&f.values[*p].ty).is_some()) {
            return None;
        }
        plan.defined.extend(params.iter().copied());
        let ops = f.region_ops(r);
        let (&last, rest) = ops.split_last()?;
        let ld = f.op(last);
        (ld.kind == OpKind::Yield
            && ld
                .operands
                .iter()
                .all(|v| lane_type(&f.values[*v].ty).is_some())
            && rest.iter().all(|&o| self.spmd_op_ok(o, plan)))
        .then(|| {
            ld.operands
                .iter()
                .map(|v| plan.chain.get(v).copied())
                .collect()
        })
    }

    fn const_float(&self, v: IrValue) -> Option<f64> {
        match self.f.defining_op(v).map(|o| &self.f.op(o).kind) {
            Some(OpKind::Const(Const::Float(x))) => Some(*x),
            _ => None,
        }
    }

    /// The vector loop of `plan` in front of the scalar loop of trip count `max` whose carried
    /// sums start at `carried`: runs `max & !3` iterations when every divisor is nonzero, none
    /// otherwise; returns the index the scalar loop starts from and the sums it starts with.
    pub(super) fn emit_spmd_loop(
        &mut self,
        op: Op,
        plan: &SpmdPlan,
        max: ir::Value,
        carried: &[ir::Value],
    ) -> Res<(ir::Value, Vec<ir::Value>)> {
        let mut ok = self.b.ins().iconst(types::I8, 1);
        for &v in &plan.divisors {
            let x = self.uniform(v)?;
            let z = self.b.ins().f64const(0.0);
            let nz = self.b.ins().fcmp(FloatCC::NotEqual, x, z);
            ok = self.b.ins().band(ok, nz);
        }
        let per_trip = LANES * PARTS as i64;
        let nv = self.b.ins().band_imm_s(max, -per_trip);
        let some = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, nv, 0);
        let go = self.b.ins().band(ok, some);
        let vbody = self.b.create_block();
        let vexit = self.b.create_block();
        let join = self.b.create_block();
        for blk in [vbody, vexit, join] {
            self.b.append_block_param(blk, types::I64);
            let (ty, n) = if blk == join {
                (types::I64, 1)
            } else {
                (types::I64X2, PARTS)
            };
            for _ in 0..carried.len() * n {
                self.b.append_block_param(blk, ty);
            }
        }
        let zero = self.b.ins().iconst(types::I64, 0);
        // A running sum's lanes start as (its value, 0, 0, 0).
        let zeros = self.b.ins().splat(types::I64X2, zero);
        let mut sums0 = Vec::with_capacity(carried.len() * PARTS);
        for &c in carried {
            sums0.push(self.b.ins().insertlane(zeros, c, 0));
            sums0.extend(std::iter::repeat_n(zeros, PARTS - 1));
        }
        let args = |i: ir::Value, vs: &[ir::Value]| {
            std::iter::once(i)
                .chain(vs.iter().copied())
                .map(BlockArg::Value)
                .collect::<Vec<_>>()
        };

        // The values defined before the loop that the body reads, splat once here (where they
        // dominate every block of the vector loop).
        let body = self.f.op(op).regions[0];
        let mut lanes: LaneMap = HashMap::new();
        let mut outside = Vec::new();
        self.outside_operands(body, plan, &mut outside);
        for v in outside {
            if lane_type(self.ty(v)).is_some() {
                self.lanes_of(v, &mut lanes)?;
            }
        }
        self.b
            .ins()
            .brif(go, vbody, &args(zero, &sums0), join, &args(zero, carried));

        self.b.switch_to_block(vbody);
        let ps = self.b.block_params(vbody).to_vec();
        let j = ps[0];
        let params = self.f.region_params(body).to_vec();
        let counter = params[0];
        for (&p, vs) in params[1..].iter().zip(ps[1..].chunks(PARTS)) {
            lanes.insert(p, vs.to_vec());
        }
        // Iterations j, j + 1 in part 0, j + 2, j + 3 in part 1.
        let splat = self.b.ins().splat(types::I64X2, j);
        let mut jv = Vec::with_capacity(PARTS);
        for part in 0..PARTS as i64 {
            let first = self.b.ins().iconst(types::I64, LANES * part);
            let second = self.b.ins().iconst(types::I64, LANES * part + 1);
            let iota = self.b.ins().splat(types::I64X2, first);
            let iota = self.b.ins().insertlane(iota, second, 1);
            jv.push(self.b.ins().iadd(splat, iota));
        }
        lanes.insert(counter, jv);
        let ops = self.f.region_ops(body).to_vec();
        for &o in &ops {
            match self.f.op(o).kind {
                OpKind::TensorStore | OpKind::Yield => {}
                _ => self.spmd_lower(o, &mut lanes, None)?,
            }
        }
        // The stores: iteration j's in program order, then j + 1's, ...
        for it in 0..per_trip {
            let (part, lane) = ((it / LANES) as usize, (it % LANES) as u8);
            for &s in &plan.stores {
                let k = ops.iter().position(|&o| o == s).unwrap_or(0) as u32;
                let operands = self.f.op(s).operands.clone();
                let mut saved = Vec::new();
                for &v in &operands[1..] {
                    let Some(vs) = lanes.get(&v) else { continue };
                    let vec = vs[part];
                    let x = if v == counter {
                        self.b.ins().iadd_imm_s(j, it)
                    } else {
                        let x = self.b.ins().extractlane(vec, lane);
                        if *self.ty(v) == Type::Bool {
                            self.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0)
                        } else {
                            x
                        }
                    };
                    saved.push((v, self.vals.insert(v, vec![x])));
                }
                self.frames.push(Vec::new());
                let outer = self.b.srcloc();
                self.b.set_srcloc(ir::SourceLoc::new(s.as_u32()));
                let outer_op = self.cur_op.replace(s);
                let r = self.lower_access(s, k);
                self.cur_op = outer_op;
                self.b.set_srcloc(outer);
                self.frames.pop();
                for (v, old) in saved.into_iter().rev() {
                    match old {
                        Some(o) => self.vals.insert(v, o),
                        None => self.vals.remove(&v),
                    };
                }
                r?;
            }
        }
        let ys = self.yielded(body);
        let mut sums = Vec::with_capacity(carried.len() * PARTS);
        for &v in &ys[1..] {
            sums.extend(self.lanes_of(v, &mut lanes)?);
        }
        let next = self.b.ins().iadd_imm_s(j, per_trip);
        let more = self.b.ins().icmp(IntCC::SignedLessThan, next, nv);
        self.b
            .ins()
            .brif(more, vbody, &args(next, &sums), vexit, &args(next, &sums));
        // The lanes' partial sums added up.
        self.b.switch_to_block(vexit);
        let ps = self.b.block_params(vexit).to_vec();
        let mut total = Vec::with_capacity(carried.len());
        for vs in ps[1..].chunks(PARTS) {
            let mut t = None;
            for &v in vs {
                for l in 0..LANES as u8 {
                    let x = self.b.ins().extractlane(v, l);
                    t = Some(match t {
                        None => x,
                        Some(t) => self.b.ins().iadd(t, x),
                    });
                }
            }
            total.push(t.ok_or_else(|| CodegenError::Internal("no lanes".into()))?);
        }
        self.b.ins().jump(join, &args(ps[0], &total));
        self.b.switch_to_block(join);
        let ps = self.b.block_params(join).to_vec();
        Ok((ps[0], ps[1..].to_vec()))
    }

    /// The operands of region `r`'s ops (and their regions') defined before the loop, in order
    /// of first use, each once.
    fn outside_operands(&self, r: Region, plan: &SpmdPlan, out: &mut Vec<IrValue>) {
        for &o in self.f.region_ops(r) {
            let d = self.f.op(o);
            for &v in &d.operands {
                if !plan.defined.contains(&v) && !out.contains(&v) {
                    out.push(v);
                }
            }
            for &inner in &d.regions {
                self.outside_operands(inner, plan, out);
            }
        }
    }

    /// A value defined before the loop, as its scalar (a `float` as `f64`).
    fn uniform(&mut self, v: IrValue) -> Res<ir::Value> {
        let x = self.one(v)?;
        Ok(if self.b.func.dfg.value_type(x) == types::F32 {
            self.b.ins().fpromote(types::F64, x)
        } else {
            x
        })
    }

    /// The vectors of `v` (one per part): its own, or a splat of a value defined before the
    /// loop.
    fn lanes_of(&mut self, v: IrValue, lanes: &mut LaneMap) -> Res<Vec<ir::Value>> {
        if let Some(x) = lanes.get(&v) {
            return Ok(x.clone());
        }
        let ty = lane_type(self.ty(v))
            .ok_or_else(|| CodegenError::Internal("vector lanes of a non-scalar".into()))?;
        let x = self.uniform(v)?;
        let x = if *self.ty(v) == Type::Bool {
            self.mask_of(x)
        } else {
            self.b.ins().splat(ty, x)
        };
        let s = vec![x; PARTS];
        lanes.insert(v, s.clone());
        Ok(s)
    }

    /// `x` of type `to` with the bits of `x`.
    fn reinterpret(&mut self, to: types::Type, x: ir::Value) -> ir::Value {
        if self.b.func.dfg.value_type(x) == to {
            x
        } else {
            // Same lane count and width: no lane order to state.
            self.b.ins().bitcast(to, MemFlagsData::new(), x)
        }
    }

    /// `then` where the mask `m` is set, `other` elsewhere.
    fn lane_select(&mut self, m: ir::Value, then: ir::Value, other: ir::Value) -> ir::Value {
        let ty = self.b.func.dfg.value_type(then);
        let m = self.reinterpret(ty, m);
        self.b.ins().bitselect(m, then, other)
    }

    /// One vector of a one-result op without regions, from the operands' vectors `a` of one
    /// part.
    fn spmd_simple(&mut self, o: Op, a: &[ir::Value]) -> Res<ir::Value> {
        let d = self.f.op(o);
        let (span, kind, operands) = (d.span, d.kind.clone(), d.operands.clone());
        let bad = || CodegenError::Internal("an op the outer-loop vectorizer does not take".into());
        Ok(match &kind {
            OpKind::IntBin(IntBinOp::FloorDiv) => {
                let d = self.const_int(operands[1]).ok_or_else(bad)?;
                self.b.ins().sshr_imm_u(a[0], i64::from(d.trailing_zeros()))
            }
            OpKind::IntBin(IntBinOp::Mod) => {
                let d = self.const_int(operands[1]).ok_or_else(bad)?;
                let m = self.b.ins().iconst(types::I64, d - 1);
                let m = self.b.ins().splat(types::I64X2, m);
                self.b.ins().band(a[0], m)
            }
            OpKind::IntBin(IntBinOp::Mul)
                if let Some(c) = [0, 1]
                    .into_iter()
                    .find_map(|i| {
                        self.const_int(operands[i])
                            .filter(|c| matches!(c, 3 | 5 | 9))
                    })
                    .map(|c| {
                        (
                            c,
                            if self.const_int(operands[0]) == Some(c) {
                                1
                            } else {
                                0
                            },
                        )
                    }) =>
            {
                // `3 * x` as `x + (x << 1)` (5, 9 likewise), as the scalar code computes it.
                let x = a[c.1];
                let sh = self
                    .b
                    .ins()
                    .ishl_imm_u(x, (c.0 - 1).trailing_zeros() as i64);
                self.b.ins().iadd(x, sh)
            }
            // The scalar code's instructions, on vectors (no division here: see above).
            OpKind::IntBin(b) => self.int_bin(*b, a[0], a[1], None, span)?,
            OpKind::IntUn(u) => match u {
                IntUnOp::Neg => self.b.ins().ineg(a[0]),
                IntUnOp::Invert => self.b.ins().bnot(a[0]),
                _ => return Err(bad()),
            },
            OpKind::IntCmp(c) => self.b.ins().icmp(int_cc(*c, true), a[0], a[1]),
            OpKind::BoolCmp(CmpOp::Eq) => self.b.ins().icmp(IntCC::Equal, a[0], a[1]),
            OpKind::BoolCmp(CmpOp::Ne) => self.b.ins().icmp(IntCC::NotEqual, a[0], a[1]),
            OpKind::FloatCmp(c) => {
                let m = self.b.ins().fcmp(float_cc(*c), a[0], a[1]);
                self.reinterpret(types::I64X2, m)
            }
            OpKind::BoolBin(b) => match b {
                BoolBinOp::And => self.b.ins().band(a[0], a[1]),
                BoolBinOp::Or => self.b.ins().bor(a[0], a[1]),
                BoolBinOp::Xor => self.b.ins().bxor(a[0], a[1]),
            },
            OpKind::Not => self.b.ins().bnot(a[0]),
            // Division without the scalar code's zero test: the divisor was tested in front.
            OpKind::FloatBin(FloatBinOp::Div) => self.b.ins().fdiv(a[0], a[1]),
            OpKind::FloatBin(b) => self.float_bin(*b, a[0], a[1], span)?,
            OpKind::FloatUn(u) => match u {
                FloatUnOp::Neg => self.b.ins().fneg(a[0]),
                FloatUnOp::Abs => self.b.ins().fabs(a[0]),
            },
            OpKind::Cast(CastOp::IntToFloat) => {
                // Lane by lane (SSE has no 64-bit integer conversion), each as the scalar code.
                let mut v = None;
                for l in 0..LANES as u8 {
                    let i = self.b.ins().extractlane(a[0], l);
                    let x = self.b.ins().fcvt_from_sint(types::F64, i);
                    v = Some(match v {
                        None => self.b.ins().splat(types::F64X2, x),
                        Some(v) => self.b.ins().insertlane(v, x, l),
                    });
                }
                v.ok_or_else(bad)?
            }
            OpKind::Cast(CastOp::BoolToInt) => {
                let one = self.b.ins().iconst(types::I64, 1);
                let one = self.b.ins().splat(types::I64X2, one);
                self.b.ins().band(a[0], one)
            }
            OpKind::Select => self.lane_select(a[0], a[1], a[2]),
            _ => return Err(bad()),
        })
    }

    /// Lowers op `o` of the vector body on every part. `mask` (per part; `None`: every lane)
    /// holds the lanes whose scalar program runs `o`: an inner loop runs only those (another
    /// lane's values there may be anything, and a loop on them need not end).
    fn spmd_lower(&mut self, o: Op, lanes: &mut LaneMap, mask: Option<&[ir::Value]>) -> Res<()> {
        let d = self.f.op(o);
        let kind = d.kind.clone();
        let operands = d.operands.clone();
        let results = d.results.clone();
        let regions = d.regions.clone();
        let out: Vec<Vec<ir::Value>> = match &kind {
            OpKind::Const(c) => {
                let (ty, x) = match c {
                    Const::Int(i) => (types::I64X2, self.b.ins().iconst(types::I64, *i)),
                    Const::Bool(x) => (types::I64X2, self.b.ins().iconst(types::I64, -(*x as i64))),
                    Const::Float(x) => (types::F64X2, self.b.ins().f64const(*x)),
                    _ => {
                        return Err(CodegenError::Internal(
                            "a constant the outer-loop vectorizer does not take".into(),
                        ));
                    }
                };
                vec![vec![self.b.ins().splat(ty, x); PARTS]]
            }
            OpKind::If => {
                let c = self.lanes_of(operands[0], lanes)?;
                // The lanes that take each side, where a side holds a loop.
                let (mut tm, mut em) = (None, None);
                if regions.iter().any(|&r| self.has_loop(r)) {
                    let (mut t, mut e) = (Vec::new(), Vec::new());
                    for p in 0..PARTS {
                        let not = self.b.ins().bnot(c[p]);
                        let (a, b) = match mask {
                            Some(m) => {
                                (self.b.ins().band(m[p], c[p]), self.b.ins().band(m[p], not))
                            }
                            None => (c[p], not),
                        };
                        t.push(a);
                        e.push(b);
                    }
                    (tm, em) = (Some(t), Some(e));
                }
                let t = self.spmd_region(regions[0], &[], lanes, tm.as_deref())?;
                let e = self.spmd_region(regions[1], &[], lanes, em.as_deref())?;
                let (ty, ey) = (self.yielded(regions[0]), self.yielded(regions[1]));
                let mut out = Vec::with_capacity(t.len());
                for (k, (a, b)) in t.iter().zip(&e).enumerate() {
                    // `c and b` / `c or b` (a short-circuit `and`/`or`): one logic op.
                    let (ct, ce) = (
                        ty.get(k).and_then(|&v| self.const_bool(v)),
                        ey.get(k).and_then(|&v| self.const_bool(v)),
                    );
                    let mut r = Vec::with_capacity(PARTS);
                    for p in 0..PARTS {
                        r.push(match (ct, ce) {
                            (_, Some(false)) => self.b.ins().band(c[p], a[p]),
                            (Some(true), _) => self.b.ins().bor(c[p], b[p]),
                            _ => self.lane_select(c[p], a[p], b[p]),
                        });
                    }
                    out.push(r);
                }
                out
            }
            OpKind::Loop => self.spmd_inner_loop(o, lanes, mask)?,
            _ => {
                let mut args = Vec::with_capacity(operands.len());
                for &v in &operands {
                    args.push(self.lanes_of(v, lanes)?);
                }
                let mut r = Vec::with_capacity(PARTS);
                for p in 0..PARTS {
                    let a: Vec<ir::Value> = args.iter().map(|vs| vs[p]).collect();
                    r.push(self.spmd_simple(o, &a)?);
                }
                vec![r]
            }
        };
        for (r, x) in results.into_iter().zip(out) {
            lanes.insert(r, x);
        }
        Ok(())
    }

    /// Whether region `r` holds a `loop` (at any depth).
    pub(super) fn has_loop(&self, r: Region) -> bool {
        self.f.region_ops(r).iter().any(|&o| {
            let d = self.f.op(o);
            d.kind == OpKind::Loop || d.regions.iter().any(|&r| self.has_loop(r))
        })
    }

    /// The operands of region `r`'s final `yield`.
    pub(super) fn yielded(&self, r: Region) -> Vec<IrValue> {
        let ops = self.f.region_ops(r);
        ops.last()
            .map(|&o| self.f.op(o).operands.clone())
            .unwrap_or_default()
    }

    /// Lowers region `r` on every part with its parameters bound to `params`; returns the
    /// vectors of its `yield`'s operands.
    fn spmd_region(
        &mut self,
        r: Region,
        params: &[Vec<ir::Value>],
        lanes: &mut LaneMap,
        mask: Option<&[ir::Value]>,
    ) -> Res<Vec<Vec<ir::Value>>> {
        for (&p, x) in self.f.region_params(r).iter().zip(params) {
            lanes.insert(p, x.clone());
        }
        let ops = self.f.region_ops(r).to_vec();
        let (&last, rest) = ops
            .split_last()
            .ok_or_else(|| CodegenError::Internal("empty region".into()))?;
        for &o in rest {
            self.spmd_lower(o, lanes, mask)?;
        }
        let ys = self.f.op(last).operands.clone();
        ys.iter().map(|&v| self.lanes_of(v, lanes)).collect()
    }

    /// Whether any lane of the masks `m` (one per part) is set.
    fn any_lane(&mut self, m: &[ir::Value]) -> ir::Value {
        let mut any = m[0];
        for &a in &m[1..] {
            any = self.b.ins().bor(any, a);
        }
        self.b.ins().vany_true(any)
    }

    /// The lane mask (all ones or zero in every lane) of a scalar `bool` `c` (an `i8` 0 or 1).
    fn mask_of(&mut self, c: ir::Value) -> ir::Value {
        let w = self.b.ins().uextend(types::I64, c);
        let m = self.b.ins().ineg(w);
        self.b.ins().splat(types::I64X2, m)
    }

    /// An inner `loop` on every lane: it runs while any lane's condition holds; a lane whose
    /// condition turned false keeps its carried values.
    fn spmd_inner_loop(
        &mut self,
        o: Op,
        lanes: &mut LaneMap,
        mask: Option<&[ir::Value]>,
    ) -> Res<Vec<Vec<ir::Value>>> {
        let d = self.f.op(o);
        let operands = d.operands.clone();
        let results = d.results.clone();
        let body = d.regions[0];
        let unbounded = self.const_int(operands[0]) == Some(i64::MAX);
        let max = self.uniform(operands[0])?;
        let mut active = self.lanes_of(operands[1], lanes)?;
        if let Some(m) = mask {
            for (a, &m) in active.iter_mut().zip(m) {
                *a = self.b.ins().band(*a, m);
            }
        }
        let zero = self.b.ins().iconst(types::I64, 0);
        if !unbounded {
            let runs = self.b.ins().icmp(IntCC::SignedLessThan, zero, max);
            let runs = self.mask_of(runs);
            for a in &mut active {
                *a = self.b.ins().band(*a, runs);
            }
        }
        let mut carried = Vec::new();
        for &v in &operands[2..] {
            carried.push(self.lanes_of(v, lanes)?);
        }
        let lbody = self.b.create_block();
        let lexit = self.b.create_block();
        self.b.append_block_param(lbody, types::I64);
        for _ in 0..PARTS {
            self.b.append_block_param(lbody, types::I64X2);
        }
        for c in &carried {
            for &v in c {
                let ty = self.b.func.dfg.value_type(v);
                self.b.append_block_param(lbody, ty);
                self.b.append_block_param(lexit, ty);
            }
        }
        let flat = |vs: &[Vec<ir::Value>]| vs.iter().flatten().copied().collect::<Vec<_>>();
        let args = |vs: &[ir::Value]| vs.iter().copied().map(BlockArg::Value).collect::<Vec<_>>();
        let any = self.any_lane(&active);
        let mut entry = vec![zero];
        entry.extend(&active);
        entry.extend(flat(&carried));
        self.b
            .ins()
            .brif(any, lbody, &args(&entry), lexit, &args(&flat(&carried)));

        self.b.switch_to_block(lbody);
        let ps = self.b.block_params(lbody).to_vec();
        let i = ps[0];
        let active = ps[1..1 + PARTS].to_vec();
        let old: Vec<Vec<ir::Value>> = ps[1 + PARTS..].chunks(PARTS).map(<[_]>::to_vec).collect();
        let mut bind = vec![vec![self.b.ins().splat(types::I64X2, i); PARTS]];
        bind.extend(old.iter().cloned());
        let ys = self.spmd_region(body, &bind, lanes, Some(&active))?;
        let (cond, new) = ys
            .split_first()
            .ok_or_else(|| CodegenError::Internal("loop yield without a condition".into()))?;
        // A lane that left the loop keeps the values it left with; a carried value whose result
        // is never read after the loop needs no keeping (the lane's later values of it only
        // feed other values of the same lane, themselves kept or unread, and no operation here
        // can trap).
        let mut kept = Vec::with_capacity(new.len());
        for ((n, o), r) in new.iter().zip(&old).zip(&results) {
            if self.last_use.contains_key(r) {
                let mut k = Vec::with_capacity(PARTS);
                for p in 0..PARTS {
                    k.push(self.lane_select(active[p], n[p], o[p]));
                }
                kept.push(k);
            } else {
                kept.push(n.clone());
            }
        }
        let i1 = self.b.ins().iadd_imm_s(i, 1);
        let more = if unbounded {
            None
        } else {
            let more = self.b.ins().icmp(IntCC::SignedLessThan, i1, max);
            Some(self.mask_of(more))
        };
        let mut next = Vec::with_capacity(PARTS);
        for p in 0..PARTS {
            let mut a = self.b.ins().band(active[p], cond[p]);
            if let Some(m) = more {
                a = self.b.ins().band(a, m);
            }
            next.push(a);
        }
        let any = self.any_lane(&next);
        let mut again = vec![i1];
        again.extend(&next);
        again.extend(flat(&kept));
        self.b
            .ins()
            .brif(any, lbody, &args(&again), lexit, &args(&flat(&kept)));
        self.b.switch_to_block(lexit);
        let out = self.b.block_params(lexit).to_vec();
        Ok(out.chunks(PARTS).map(<[_]>::to_vec).collect())
    }
}
