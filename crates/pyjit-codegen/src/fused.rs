//! `fused` groups in native code: the group's body becomes a runtime tile program
//! (`pyjit_runtime::ops::fused::Program`) at compile time; one host call runs it over memory
//! in one pass (docs/fusion.md).

use crate::CodegenError;
use pyjit_ir::{Function, Op, OpKind, ValueDef};
use pyjit_runtime::ops::fused::{Operand, Program, Step};
use pyjit_runtime::schema::ArgType;
use std::collections::HashMap;

/// What the host needs to run one `fused` op.
#[derive(Debug)]
pub(crate) struct FusedSite {
    pub program: Program,
    /// The program's inputs: (operand index of the `fused` op, the parameter type it is
    /// converted to, as the unfused tensor op's operand would be).
    pub uses: Vec<(usize, ArgType)>,
    /// The first slot of each operand of the `fused` op among the host call's operand slots.
    pub slot_pos: Vec<usize>,
    /// The error site of each step (the span and inlined frames of the body op it came from).
    pub step_sites: Vec<u64>,
    /// For a loop whose body is this group alone, run as one host call (`lower/repeat.rs`).
    pub repeat: Option<RepeatSite>,
}

/// A group run `count` times, its carried value fed back (`ops::fused::run_repeat`).
#[derive(Debug)]
pub(crate) struct RepeatSite {
    /// The program's inputs that read the carried value.
    pub carried: Vec<usize>,
    /// The host call's slot holding the count.
    pub count_slot: usize,
}

/// A compiled group: the tile program, its inputs (see [`FusedSite::uses`]) and the body op
/// of each step.
pub(crate) type Compiled = (Program, Vec<(usize, ArgType)>, Vec<Op>);

/// The tile program of `fused` op `op`, and the body op of each step.
pub(crate) fn compile(f: &Function, op: Op) -> Result<Compiled, CodegenError> {
    let bad = |m: &str| CodegenError::Internal(format!("malformed `fused` op: {m}"));
    let body = *f.op(op).regions.first().ok_or_else(|| bad("no body"))?;
    let params = f.region_params(body);
    let mut consts = HashMap::new();
    let mut step_of = HashMap::new();
    let mut steps = Vec::new();
    let mut step_ops = Vec::new();
    let mut uses = Vec::new();
    let mut yielded = None;
    for &o in f.region_ops(body) {
        let d = f.op(o);
        match &d.kind {
            OpKind::Const(c) => {
                consts.insert(d.results[0], pyjit_value::ops::const_value(c));
            }
            OpKind::Tensor(id) => {
                let schema = pyjit_runtime::schema::schema(*id);
                let mut args = Vec::with_capacity(d.operands.len());
                for (j, &v) in d.operands.iter().enumerate() {
                    let ty = schema
                        .params
                        .get(j)
                        .map(|p| p.ty.clone())
                        .ok_or_else(|| bad("too many operands"))?;
                    args.push(if let Some(&s) = step_of.get(&v) {
                        Operand::Step(s)
                    } else if let Some(c) = consts.get(&v) {
                        Operand::Const(pyjit_value::to_runtime(c, &ty))
                    } else if let ValueDef::Param(r, i) = f.values[v].def
                        && r == body
                        && (i as usize) < params.len()
                    {
                        uses.push((i as usize, ty));
                        Operand::Input(uses.len() - 1)
                    } else {
                        return Err(bad("an operand is defined outside the body"));
                    });
                }
                step_of.insert(d.results[0], steps.len());
                steps.push(Step { op: *id, args });
                step_ops.push(o);
            }
            OpKind::Yield => yielded = d.operands.first().copied(),
            k => return Err(bad(&format!("`{}` in the body", k.name()))),
        }
    }
    match yielded.and_then(|v| step_of.get(&v)) {
        Some(&s) if s + 1 == steps.len() => {}
        _ => return Err(bad("the body does not yield its last op")),
    }
    Ok((
        Program {
            inputs: uses.len(),
            steps,
        },
        uses,
        step_ops,
    ))
}
