//! A counted loop whose body is one fused group fed its own result,
//!
//! ```text
//! %r = loop(%n, true, %x) body(%i, %t) { %y = fused(%t, %a, ...) {...}; yield true, %y }
//! ```
//!
//! (`for i in range(n): x = x * 0.9 + 0.1 * torch.tanh(x)`, `%i` unread, every other operand
//! of the group defined before the loop), runs its `n` rounds in one host call,
//! `ops::fused::run_repeat`: when the group keeps the carried tensor's shape and dtype, each
//! tile of it runs every round while it is in L1, in one parallel section, instead of one
//! section and one tensor per round. The runtime gives the bits and errors of the rounds one
//! after the other (it makes them so itself when the tiles cannot: docs/fusion.md). Loops of
//! fewer than two rounds, and groups too small to run fused, take the loop as written.

use super::{Lowering, Res};
use crate::layout::slots_of;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{self, BlockArg, InstBuilder, types};
use pyjit_ir::{Op, OpKind, Type, Value as IrValue, ValueDef};

/// A loop [`Lowering::emit_repeat`] takes: its `fused` op, that op's index in the body, the
/// body's carried parameter and the group's operands.
pub(super) struct RepeatPlan {
    fused: Op,
    at: u32,
    param: IrValue,
    operands: Vec<IrValue>,
}

impl Lowering<'_, '_> {
    /// The plan for loop `op` when its body is one fused group fed its own result (see the
    /// module doc).
    pub(super) fn repeat_plan(&self, op: Op) -> Option<RepeatPlan> {
        let f = self.f;
        let data = f.op(op);
        let [count, cond, init] = data.operands.as_slice() else {
            return None;
        };
        if self.const_bool(*cond) != Some(true)
            || self.const_int(*count) == Some(i64::MAX)
            || !matches!(self.ty(*init), Type::Tensor(_))
        {
            return None;
        }
        let body = *data.regions.first()?;
        let [index, param] = f.region_params(body) else {
            return None;
        };
        if self.last_use.contains_key(index) {
            return None;
        }
        let ops = f.region_ops(body);
        let (yield_op, rest) = ops.split_last()?;
        let y = f.op(*yield_op);
        let mut fused = None;
        for (k, &o) in rest.iter().enumerate() {
            match f.op(o).kind {
                OpKind::Const(_) => {}
                OpKind::Fused if fused.is_none() => fused = Some((o, k as u32)),
                _ => return None,
            }
        }
        let (fused, at) = fused?;
        let g = f.op(fused);
        let [result] = g.results.as_slice() else {
            return None;
        };
        if y.kind != OpKind::Yield
            || y.operands.len() != 2
            || self.const_bool(y.operands[0]) != Some(true)
            || y.operands[1] != *result
            || self.ty(*result) != self.ty(*param)
        {
            return None;
        }
        // The carried value feeds the group once; the group's other operands come from before
        // the loop (the rounds read them unchanged), none optional or a list built in place.
        let defined_in_body = |v: IrValue| match f.values[v].def {
            ValueDef::Param(r, _) => r == body,
            ValueDef::Result(o, _) => f.op(o).parent == Some(body),
        };
        if g.operands.iter().filter(|&&v| v == *param).count() != 1
            || f.region_params(*g.regions.first()?).len() != g.operands.len()
        {
            return None;
        }
        for &v in &g.operands {
            if (v != *param && defined_in_body(v))
                || matches!(self.ty(v), Type::Optional(_))
                || self.inline_list(v).is_some()
            {
                return None;
            }
        }
        Some(RepeatPlan {
            fused,
            at,
            param: *param,
            operands: g.operands.clone(),
        })
    }

    /// The loop of `plan` with `count` rounds from the carried tensor `carried` (owned): one
    /// host call runs them when there are at least two and the group is not small; the
    /// returned counter is then `count` (the loop as written runs no more), else 0.
    pub(super) fn emit_repeat(
        &mut self,
        plan: &RepeatPlan,
        count: ir::Value,
        carried: &[ir::Value],
    ) -> Res<(ir::Value, Vec<ir::Value>)> {
        let [x] = carried else {
            return Err(crate::CodegenError::Internal(
                "a repeated group carries one tensor".into(),
            ));
        };
        let x = *x;
        let mut site = self.fused_site(plan.fused)?;
        let param_at = plan
            .operands
            .iter()
            .position(|&v| v == plan.param)
            .unwrap_or(usize::MAX);
        site.repeat = Some(crate::fused::RepeatSite {
            carried: site
                .uses
                .iter()
                .enumerate()
                .filter(|(_, (i, _))| *i == param_at)
                .map(|(j, _)| j)
                .collect(),
            count_slot: plan
                .operands
                .iter()
                .map(|&v| slots_of(self.ty(v)).len())
                .sum(),
        });
        // The body's parameter stands for the carried tensor from here to the host call.
        self.vals.insert(plan.param, vec![x]);
        let test_b = self.b.create_block();
        let run_b = self.b.create_block();
        let done = self.b.create_block();
        let start = self.b.append_block_param(done, types::I64);
        let out = self.b.append_block_param(done, types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        let skip = [BlockArg::Value(zero), BlockArg::Value(x)];
        let many = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, count, 2);
        self.b.ins().brif(many, test_b, &[], done, &skip);
        self.b.switch_to_block(test_b);
        let small = self.group_is_small(&plan.operands)?;
        self.b.ins().brif(small, done, &skip, run_b, &[]);
        // The host call takes the carried tensor over (its last use in the body), as the
        // body's group would.
        self.b.switch_to_block(run_b);
        self.frames.push(vec![plan.param]);
        let outer = self.cur_op.replace(plan.fused);
        let res =
            self.emit_host_call_extra(plan.fused, Some(Box::new(site)), Some(plan.at), &[count])?;
        self.check_failed(None)?;
        self.cur_op = outer;
        self.frames.pop();
        let r = *res.first().ok_or_else(|| {
            crate::CodegenError::Internal("a repeated group has no result".into())
        })?;
        self.b
            .ins()
            .jump(done, &[BlockArg::Value(count), BlockArg::Value(r)]);
        self.b.switch_to_block(done);
        Ok((start, vec![out]))
    }
}
