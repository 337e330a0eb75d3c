//! Interleaving with refill: a counted loop whose iterations are independent integer programs
//! around one `while` loop of a data-dependent trip count (Collatz's `scalar_loop`: for each
//! `i`, step `x` until it reaches 1, counting the steps) runs [`LANES`] iterations at once, each
//! in scalar registers of its own. One trip of the interleaved loop advances every lane by one
//! step of its `while` body; a lane whose `while` condition turns false finishes its iteration
//! and takes the next one the loop has not started, so no lane idles while another still has
//! steps to go (the outer-loop vectorizer's lanes wait for the slowest; see `spmd.rs`).
//!
//! The scalar code of such a loop is one chain of dependent 1-2-cycle operations per step
//! (Collatz: `x & 1`, `3 * x + 1`, a conditional move: three cycles a step); the lanes' chains
//! are independent, so the core overlaps them and a step costs what its instructions cost to
//! issue, not the chain's latency.
//!
//! **Which loops.** Those of [`Lowering::independent_iterations`] (every op a scalar op that
//! cannot raise, the carried values `int` running sums) with no float divisions to test and at
//! most one element store, `t[…, i + c, …] = v` with `i` the loop's variable (see
//! [`OneStore`]: tested before the loop to write an element of its own in each iteration and
//! never to raise; otherwise the scalar loop runs), whose body is: ops without loops, one
//! `while` loop (unbounded trip count) whose body does no `float` arithmetic (the outer-loop
//! vectorizer's case), ops without loops, the `yield` (at most [`MAX_OPS`] ops in all). With
//! no errors and no effect but stores to distinct elements that nothing reads during the loop,
//! the order in which iterations run cannot be observed; the running sums are wrapping
//! additions, which commute, and each lane keeps a partial sum of its own (lane 0 starting
//! from the sum's value before the loop, the others from 0), added up at the end. An iteration
//! that never ends keeps the loop from ending, as in the scalar code.
//!
//! **The lanes.** Each lane's state is the `while` loop's carried values and the values of the
//! iteration's first ops that the loop body and the last ops read. Between trips every lane is
//! inside its `while` loop with one more step to run (an iteration whose `while` loop runs no
//! step is finished at once when it is taken). When the iterations run out, the lanes still
//! inside theirs run to their end one after the other, each as the scalar loop would.

use super::{Exit, Lowering, Res};
use crate::CodegenError;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{self, BlockArg, InstBuilder, types};
use cranelift_frontend::Variable;
use pyjit_ir::{IntBinOp, Op, OpKind, Region, Type, Value as IrValue};
use std::collections::HashSet;

/// Iterations in flight.
const LANES: usize = 3;

/// The most ops (at every depth) a loop body may have: the lanes copy the `while` body twice
/// per lane and the ops around it three times, so a larger body grows the code more than a
/// few steps in flight repay.
const MAX_OPS: usize = 400;

/// A loop the interleaver takes: its `while` loop, where that sits among the body's ops, and
/// the values of the body's scope (its parameters and the results of the ops before the
/// `while` loop) read by the `while` loop's body, the ops after it or the `yield`.
pub(super) struct RefillPlan {
    inner: Op,
    at: usize,
    live: Vec<IrValue>,
    store: Option<OneStore>,
}

/// The body's one element store `t[…, c + j, …] = v` (`j` the loop's counter, `c` and the other
/// indices defined before the loop): each iteration writes an element of its own when the
/// indices `c .. c + n` are within the dim (none negative: no two wrap to one element) and the
/// others within theirs, which [`Lowering::emit_refill_loop`] tests before the loop.
struct OneStore {
    op: Op,
    /// The dim the counter indexes, and `c` as values defined before the loop, each added or
    /// (`true`) subtracted.
    dim: usize,
    offset: Vec<(IrValue, bool)>,
}

/// What a lane's step or refill leaves: whether the `while` loop runs (another) step, and the
/// lane's state.
struct LaneState {
    go: ir::Value,
    state: Vec<ir::Value>,
}

impl Lowering<'_, '_> {
    /// The plan for loop `op` when the interleaver takes it (see the module doc).
    pub(super) fn refill_plan(&self, op: Op) -> Option<RefillPlan> {
        let plan = self.independent_iterations(op)?;
        if plan.inner_float || plan.stores.len() > 1 || !plan.divisors.is_empty() {
            return None;
        }
        let f = self.f;
        let body = f.op(op).regions[0];
        let params = f.region_params(body);
        let store = match plan.stores.first() {
            None => None,
            Some(&s) => Some(self.one_store(s, params[0], &plan.defined)?),
        };
        if params.len() < 2 && store.is_none() {
            // No running sum and no store: the loop computes nothing.
            return None;
        }
        let ops = f.region_ops(body);
        let mut loops = ops
            .iter()
            .enumerate()
            .filter(|(_, o)| f.op(**o).kind == OpKind::Loop);
        let (at, &inner) = loops.next()?;
        // A `while` body that reads its index (none in the tests) is left to the scalar loop.
        let index = f.region_params(f.op(inner).regions[0])[0];
        if loops.next().is_some()
            || self.const_int(f.op(inner).operands[0]) != Some(i64::MAX)
            || self.last_use.contains_key(&index)
            || ops
                .iter()
                .any(|&o| o != inner && f.op(o).regions.iter().any(|&r| self.has_loop(r)))
        {
            return None;
        }
        if self.ops_in(body) > MAX_OPS {
            return None;
        }
        let mut scope: HashSet<IrValue> = params.iter().copied().collect();
        for &o in &ops[..at] {
            scope.extend(f.op(o).results.iter().copied());
        }
        let mut reads = Vec::new();
        self.reads_in(f.op(inner).regions[0], &mut reads);
        for &o in &ops[at + 1..] {
            reads.extend(f.op(o).operands.iter().copied());
            for &r in &f.op(o).regions {
                self.reads_in(r, &mut reads);
            }
        }
        let mut live = Vec::new();
        for v in reads {
            if scope.contains(&v) && !live.contains(&v) {
                live.push(v);
            }
        }
        // A lane's state is `int`s and `bool`s (so its registers' types are known before the
        // code that computes them is emitted).
        let int_or_bool = |v: &IrValue| matches!(self.ty(*v), Type::Int | Type::Bool);
        (f.op(inner).operands[2..].iter().all(int_or_bool) && live.iter().all(int_or_bool))
            .then_some(RefillPlan {
                inner,
                at,
                live,
                store,
            })
    }

    /// The store `s` as a [`OneStore`], when one of its indices is the loop's `counter` plus or
    /// minus values defined before the loop and the others are defined before it.
    fn one_store(&self, s: Op, counter: IrValue, defined: &HashSet<IrValue>) -> Option<OneStore> {
        let d = self.f.op(s);
        let indices = &d.operands[1..d.operands.len() - 1];
        let mut found = None;
        for (dim, &i) in indices.iter().enumerate() {
            if !defined.contains(&i) {
                continue;
            }
            let mut offset = Vec::new();
            if found.is_some() || !self.counter_plus(i, counter, defined, &mut offset, 0) {
                return None;
            }
            found = Some((dim, offset));
        }
        let (dim, offset) = found?;
        Some(OneStore { op: s, dim, offset })
    }

    /// Whether `v` is `counter` plus or minus values defined before the loop (`+ c`, `- c`,
    /// `c +`), pushing each such value with whether it is subtracted onto `offset`.
    fn counter_plus(
        &self,
        v: IrValue,
        counter: IrValue,
        defined: &HashSet<IrValue>,
        offset: &mut Vec<(IrValue, bool)>,
        depth: usize,
    ) -> bool {
        if v == counter {
            return true;
        }
        let Some(def) = self.f.defining_op(v) else {
            return false;
        };
        let d = self.f.op(def);
        let (a, c) = (d.operands.first().copied(), d.operands.get(1).copied());
        let (Some(a), Some(c)) = (a, c) else {
            return false;
        };
        if depth > 8 {
            return false;
        }
        match d.kind {
            OpKind::IntBin(IntBinOp::Add) if !defined.contains(&c) => {
                offset.push((c, false));
                self.counter_plus(a, counter, defined, offset, depth + 1)
            }
            OpKind::IntBin(IntBinOp::Add) if !defined.contains(&a) => {
                offset.push((a, false));
                self.counter_plus(c, counter, defined, offset, depth + 1)
            }
            OpKind::IntBin(IntBinOp::Sub) if !defined.contains(&c) => {
                offset.push((c, true));
                self.counter_plus(a, counter, defined, offset, depth + 1)
            }
            _ => false,
        }
    }

    /// How many ops region `r` holds, at every depth.
    fn ops_in(&self, r: Region) -> usize {
        self.f
            .region_ops(r)
            .iter()
            .map(|&o| {
                1 + self
                    .f
                    .op(o)
                    .regions
                    .iter()
                    .map(|&r| self.ops_in(r))
                    .sum::<usize>()
            })
            .sum()
    }

    /// The operands of region `r`'s ops and of their regions', in order.
    fn reads_in(&self, r: Region, out: &mut Vec<IrValue>) {
        for &o in self.f.region_ops(r) {
            let d = self.f.op(o);
            out.extend(d.operands.iter().copied());
            for &inner in &d.regions {
                self.reads_in(inner, out);
            }
        }
    }

    /// The interleaved loop of `plan` in front of the scalar loop of trip count `max` whose
    /// carried sums start at `carried`: when there are at least [`LANES`] iterations it runs
    /// all of them; returns the index the scalar loop starts from (`max` then, 0 otherwise) and
    /// the sums it starts with.
    pub(super) fn emit_refill_loop(
        &mut self,
        op: Op,
        plan: &RefillPlan,
        max: ir::Value,
        carried: &[ir::Value],
    ) -> Res<(ir::Value, Vec<ir::Value>)> {
        self.interleaving = true;
        let r = self.emit_refill_lanes(op, plan, max, carried);
        self.interleaving = false;
        r
    }

    fn emit_refill_lanes(
        &mut self,
        op: Op,
        plan: &RefillPlan,
        max: ir::Value,
        carried: &[ir::Value],
    ) -> Res<(ir::Value, Vec<ir::Value>)> {
        let mut enough =
            self.b
                .ins()
                .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, max, LANES as i64);
        if let Some(store) = &plan.store {
            let ok = self.store_apart(store, max)?;
            enough = self.b.ins().band(enough, ok);
        }
        let init = self.b.create_block();
        let join = self.b.create_block();
        self.b.append_block_param(join, types::I64);
        for &c in carried {
            let ty = self.b.func.dfg.value_type(c);
            self.b.append_block_param(join, ty);
        }
        let args = |vs: &[ir::Value]| vs.iter().copied().map(BlockArg::Value).collect::<Vec<_>>();
        let zero = self.b.ins().iconst(types::I64, 0);
        let mut bypass = vec![zero];
        bypass.extend(carried);
        self.b.ins().brif(enough, init, &[], join, &args(&bypass));

        // Variables: the next iteration to take, the finished lanes' sums, per lane its state
        // and the sums it feeds its next iteration (while filling), and for the drain the lane
        // that found no iteration left and how many lanes were filled. Every one is defined
        // here first, so that no path reaching a use goes back past this block.
        self.b.switch_to_block(init);
        let i64_var = |s: &mut Self, x: ir::Value| {
            let v = s.b.declare_var(types::I64);
            s.b.def_var(v, x);
            v
        };
        let t_var = i64_var(self, zero);
        let dead_var = i64_var(self, zero);
        let filled_var = i64_var(self, zero);
        let acc: Vec<Variable> = carried.iter().map(|_| i64_var(self, zero)).collect();
        let feeds: Vec<Vec<Variable>> = (0..LANES)
            .map(|k| {
                let from: &[ir::Value] = if k == 0 { carried } else { &[] };
                (0..carried.len())
                    .map(|j| i64_var(self, from.get(j).copied().unwrap_or(zero)))
                    .collect()
            })
            .collect();
        let mut state_types = Vec::new();
        let operands = self.f.op(plan.inner).operands.clone();
        for &v in operands[2..].iter().chain(&plan.live) {
            state_types.push(if *self.ty(v) == Type::Bool {
                types::I8
            } else {
                types::I64
            });
        }
        let mut lanes: Vec<Vec<Variable>> = Vec::with_capacity(LANES);
        for _ in 0..LANES {
            let mut vars = Vec::with_capacity(state_types.len());
            for &ty in &state_types {
                let v = self.b.declare_var(ty);
                let z = self.b.ins().iconst(ty, 0);
                self.b.def_var(v, z);
                vars.push(v);
            }
            lanes.push(vars);
        }
        let drain = self.b.create_block();
        let head = self.b.create_block();

        // Filling: lane k takes iterations until one whose `while` loop runs a step; an
        // iteration whose loop runs none is finished at once.
        let mut fill = self.b.create_block();
        self.b.ins().jump(fill, &[]);
        for k in 0..LANES {
            let ([take, skip, short], next) = self.lane_blocks(k, head);
            self.b.switch_to_block(fill);
            let t = self.b.use_var(t_var);
            let some = self.b.ins().icmp(IntCC::SignedLessThan, t, max);
            self.b.ins().brif(some, take, &[], short, &[]);

            self.b.switch_to_block(take);
            let sums: Vec<ir::Value> = feeds[k].iter().map(|&v| self.b.use_var(v)).collect();
            let LaneState { go, state } = self.refill_take(op, plan, t, &sums)?;
            self.set_vars(&lanes[k], &state)?;
            let t1 = self.b.ins().iadd_imm_s(t, 1);
            self.b.def_var(t_var, t1);
            self.b.ins().brif(go, next, &[], skip, &[]);

            self.b.switch_to_block(skip);
            let sums = self.lane_finish(op, plan, &lanes[k])?;
            for (&v, &s) in feeds[k].iter().zip(&sums) {
                self.b.def_var(v, s);
            }
            self.b.ins().jump(fill, &[]);

            // Fewer iterations than lanes: lanes 0..k run theirs to the end.
            self.b.switch_to_block(short);
            let fed = self.use_vars(&feeds[k]);
            self.add_to(&acc, &fed);
            self.enter_drain(drain, [(filled_var, k), (dead_var, LANES)]);
            fill = next;
        }

        // The interleaved loop: a step of every lane per trip.
        self.b.switch_to_block(head);
        let mut step = head;
        for (k, lane) in lanes.iter().enumerate() {
            let ([finish, take, dies], next) = self.lane_blocks(k, head);
            if step != head {
                self.b.switch_to_block(step);
            }
            self.lane_step(plan, lane, next, finish)?;

            // The lane's iteration is done: its last ops, then the next iteration.
            self.b.switch_to_block(finish);
            let sums = self.lane_finish(op, plan, lane)?;
            let t = self.b.use_var(t_var);
            let some = self.b.ins().icmp(IntCC::SignedLessThan, t, max);
            self.b.ins().brif(some, take, &[], dies, &[]);

            self.b.switch_to_block(take);
            let LaneState { go, state } = self.refill_take(op, plan, t, &sums)?;
            self.set_vars(lane, &state)?;
            let t1 = self.b.ins().iadd_imm_s(t, 1);
            self.b.def_var(t_var, t1);
            self.b.ins().brif(go, next, &[], finish, &[]);

            // No iteration left: the other lanes run theirs to the end.
            self.b.switch_to_block(dies);
            self.add_to(&acc, &sums);
            self.enter_drain(drain, [(filled_var, LANES), (dead_var, k)]);
            step = next;
        }

        // The drain: each lane still inside its iteration, in turn, as the scalar loop.
        self.b.switch_to_block(drain);
        let done = self.b.create_block();
        for (k, lane) in lanes.iter().enumerate() {
            let ([run, again, finish], next) = self.lane_blocks(k, done);
            let filled = self.b.use_var(filled_var);
            let dead = self.b.use_var(dead_var);
            let within = self
                .b
                .ins()
                .icmp_imm_s(IntCC::SignedGreaterThan, filled, k as i64);
            let other = self.b.ins().icmp_imm_s(IntCC::NotEqual, dead, k as i64);
            let live = self.b.ins().band(within, other);
            self.b.ins().brif(live, run, &[], next, &[]);
            self.b.switch_to_block(run);
            self.b.ins().jump(again, &[]);
            self.b.switch_to_block(again);
            self.lane_step(plan, lane, again, finish)?;
            self.b.switch_to_block(finish);
            let sums = self.lane_finish(op, plan, lane)?;
            self.add_to(&acc, &sums);
            self.b.ins().jump(next, &[]);
            self.b.switch_to_block(next);
        }
        let mut out = vec![max];
        out.extend(acc.iter().map(|&a| self.b.use_var(a)));
        self.b.ins().jump(join, &args(&out));
        self.b.switch_to_block(join);
        let ps = self.b.block_params(join).to_vec();
        Ok((ps[0], ps[1..].to_vec()))
    }

    /// Whether the iterations `0 .. max` of the loop store into elements of their own, none of
    /// which raises (see [`OneStore`]): the counter's indices within `0 .. size`, the others
    /// within `-size .. size`, and no dim of more than one element with stride 0 (an
    /// expanded view, whose elements share memory).
    fn store_apart(&mut self, store: &OneStore, max: ir::Value) -> Res<ir::Value> {
        let d = self.f.op(store.op);
        let t = d.operands[0];
        let indices = d.operands[1..d.operands.len() - 1].to_vec();
        let view = self
            .views
            .get(&t)
            .cloned()
            .ok_or_else(|| CodegenError::Internal("element store without a view".into()))?;
        if view.sizes.len() != indices.len() {
            return Ok(self.b.ins().iconst(types::I8, 0));
        }
        let mut ok = self.b.ins().iconst(types::I8, 1);
        for (k, &i) in indices.iter().enumerate() {
            let (size, stride) = (view.sizes[k], view.strides[k]);
            let within = if k == store.dim {
                // c with wrapping arithmetic, as the loop computes its indices; the sums are
                // tested without overflow: 0 <= c <= size - max (size >= 0, max >= 3).
                let mut c = self.b.ins().iconst(types::I64, 0);
                for &(v, minus) in &store.offset {
                    let x = self.one(v)?;
                    c = if minus {
                        self.b.ins().isub(c, x)
                    } else {
                        self.b.ins().iadd(c, x)
                    };
                }
                let nonneg = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, c, 0);
                let room = self.b.ins().isub(size, max);
                let fits = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, c, room);
                self.b.ins().band(nonneg, fits)
            } else {
                let u = self.one(i)?;
                let low = self.b.ins().ineg(size);
                let above = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, u, low);
                let below = self.b.ins().icmp(IntCC::SignedLessThan, u, size);
                self.b.ins().band(above, below)
            };
            let strided = self.b.ins().icmp_imm_s(IntCC::NotEqual, stride, 0);
            let single = self
                .b
                .ins()
                .icmp_imm_s(IntCC::SignedLessThanOrEqual, size, 1);
            let apart = self.b.ins().bor(strided, single);
            let good = self.b.ins().band(within, apart);
            ok = self.b.ins().band(ok, good);
        }
        Ok(ok)
    }

    /// One step of lane `lane`, then on to `more` if its `while` loop goes on, else to `done`.
    fn lane_step(
        &mut self,
        plan: &RefillPlan,
        lane: &[Variable],
        more: ir::Block,
        done: ir::Block,
    ) -> Res<()> {
        let state = self.use_vars(lane);
        let LaneState { go, state } = self.refill_step(plan, &state)?;
        self.set_vars(lane, &state)?;
        self.b.ins().brif(go, more, &[], done, &[]);
        Ok(())
    }

    /// The end of lane `lane`'s iteration ([`Lowering::refill_finish`]).
    fn lane_finish(&mut self, op: Op, plan: &RefillPlan, lane: &[Variable]) -> Res<Vec<ir::Value>> {
        let state = self.use_vars(lane);
        self.refill_finish(op, plan, &state)
    }

    /// Three blocks for lane `k`'s code, and the block after it: a new one, or `last` after
    /// the last lane.
    fn lane_blocks(&mut self, k: usize, last: ir::Block) -> ([ir::Block; 3], ir::Block) {
        let blocks = [(); 3].map(|_| self.b.create_block());
        let next = if k + 1 < LANES {
            self.b.create_block()
        } else {
            last
        };
        (blocks, next)
    }

    /// Adds `vals` to the sums in `acc`.
    fn add_to(&mut self, acc: &[Variable], vals: &[ir::Value]) {
        for (&a, &v) in acc.iter().zip(vals) {
            let x = self.b.use_var(a);
            let y = self.b.ins().iadd(x, v);
            self.b.def_var(a, y);
        }
    }

    /// Sets the drain's variables (how many lanes were filled, which lane found no iteration
    /// left) and jumps to it.
    fn enter_drain(&mut self, drain: ir::Block, vars: [(Variable, usize); 2]) {
        for (var, n) in vars {
            let x = self.b.ins().iconst(types::I64, n as i64);
            self.b.def_var(var, x);
        }
        self.b.ins().jump(drain, &[]);
    }

    /// Defines `vars` as `vals`.
    fn set_vars(&mut self, vars: &[Variable], vals: &[ir::Value]) -> Res<()> {
        if vars.len() != vals.len() {
            return Err(CodegenError::Internal("lane state of another shape".into()));
        }
        for (&var, &v) in vars.iter().zip(vals) {
            self.b
                .try_def_var(var, v)
                .map_err(|e| CodegenError::Internal(format!("lane state: {e}")))?;
        }
        Ok(())
    }

    fn use_vars(&mut self, vars: &[Variable]) -> Vec<ir::Value> {
        vars.iter().map(|&v| self.b.use_var(v)).collect()
    }

    /// Binds the values of a lane's `state`: the `while` loop's carried values as `targets` (its
    /// body's parameters but the index, or its results), then the live values.
    fn bind_lane(&mut self, plan: &RefillPlan, targets: &[IrValue], state: &[ir::Value]) {
        let mut it = state.iter().copied();
        for &p in targets {
            if let Some(x) = it.next() {
                self.vals.insert(p, vec![x]);
            }
        }
        for &v in &plan.live {
            if let Some(x) = it.next() {
                self.vals.insert(v, vec![x]);
            }
        }
    }

    /// Takes iteration `t` with running sums `sums`: the ops before the `while` loop; returns
    /// whether the loop runs a step and the lane's state.
    fn refill_take(
        &mut self,
        op: Op,
        plan: &RefillPlan,
        t: ir::Value,
        sums: &[ir::Value],
    ) -> Res<LaneState> {
        let body = self.f.op(op).regions[0];
        let params = self.f.region_params(body).to_vec();
        self.vals.insert(params[0], vec![t]);
        for (&p, &s) in params[1..].iter().zip(sums) {
            self.vals.insert(p, vec![s]);
        }
        let ops = self.f.region_ops(body).to_vec();
        self.frames.push(Vec::new());
        for (k, &o) in ops[..plan.at].iter().enumerate() {
            self.lower_op(o, k as u32, Exit::Body)?;
        }
        self.frames.pop();
        let operands = self.f.op(plan.inner).operands.clone();
        let go = self.one(operands[1])?;
        let mut state = Vec::new();
        for &v in &operands[2..] {
            state.push(self.one(v)?);
        }
        for &v in &plan.live {
            state.push(self.one(v)?);
        }
        Ok(LaneState { go, state })
    }

    /// One step of a lane's `while` loop: its body on the lane's state.
    fn refill_step(&mut self, plan: &RefillPlan, state: &[ir::Value]) -> Res<LaneState> {
        let body = self.f.op(plan.inner).regions[0];
        let params = self.f.region_params(body).to_vec();
        // The index is never read (see `refill_plan`): any value will do.
        let z = self.b.ins().iconst(types::I64, 0);
        self.vals.insert(params[0], vec![z]);
        let targets = params[1..].to_vec();
        self.bind_lane(plan, &targets, state);
        self.lower_region(body, Exit::Capture, false)?;
        let ys = std::mem::take(&mut self.captured);
        let (&go, carried) = ys
            .split_first()
            .ok_or_else(|| CodegenError::Internal("loop yield without a condition".into()))?;
        let mut next = Vec::with_capacity(state.len());
        next.extend(carried);
        next.extend(&state[targets.len()..]);
        Ok(LaneState { go, state: next })
    }

    /// The end of a lane's iteration: the ops after the `while` loop on the loop's results;
    /// returns the running sums the iteration yields.
    fn refill_finish(
        &mut self,
        op: Op,
        plan: &RefillPlan,
        state: &[ir::Value],
    ) -> Res<Vec<ir::Value>> {
        let results = self.f.op(plan.inner).results.clone();
        self.bind_lane(plan, &results, state);
        let body = self.f.op(op).regions[0];
        let ops = self.f.region_ops(body).to_vec();
        self.frames.push(Vec::new());
        let last = ops.len() - 1;
        for (k, &o) in ops.iter().enumerate().take(last).skip(plan.at + 1) {
            self.lower_op(o, k as u32, Exit::Body)?;
        }
        self.frames.pop();
        let ys = self.yielded(body);
        ys[1..].iter().map(|&v| self.one(v)).collect()
    }
}
