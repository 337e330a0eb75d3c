//! Float constants that loops read from registers.
//!
//! Cranelift rematerializes an `f64const`/`f32const` in every block that uses it. A constant
//! that x86-64 cannot take as a memory operand — both operands of `ucomisd` (mandelbrot's
//! `zr * zr + zi * zi <= 4.0` puts `4.0` on the register side), the left of a subtraction or a
//! division — then costs a `mov r, imm` and a `movq xmm, r` on every trip of a loop. This
//! pass gives each such operand inside a loop the bit cast of an integer constant instead:
//! the cast is a pure instruction Cranelift does not rematerialize, so its LICM computes it
//! once in front of the loop nest and the loop reads a register.
//!
//! Only inside loop nests that make no call: SysV keeps no XMM register across a call, so a
//! constant held over a loop with host calls would be spilled around each call and reloaded
//! inside the loop, which costs more than rematerializing it. The original constant is left
//! for its other uses (a body constant is also stored to a stack word, `Lowering::float_const`,
//! before the function's first call; the cast must not be tied to that definition).

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::dominator_tree::DominatorTree;
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::{self, InstBuilder, InstructionData, MemFlagsData, Opcode, types};
use cranelift_codegen::loop_analysis::{Loop, LoopAnalysis};
use std::collections::HashSet;

/// Rewrites the register-side float-constant operands of `func`'s call-free loop nests (see
/// the module docs).
pub(crate) fn keep_in_registers(func: &mut ir::Function) {
    // Most functions have no float constant: skip the loop analysis for them.
    let has_float_const = func.layout.blocks().any(|b| {
        func.layout.block_insts(b).any(|i| {
            matches!(
                func.dfg.insts[i].opcode(),
                Opcode::F64const | Opcode::F32const
            )
        })
    });
    if !has_float_const {
        return;
    }
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    let mut loops = LoopAnalysis::new();
    loops.compute(func, &cfg, &domtree);
    if loops.loops().next().is_none() {
        return;
    }
    let outermost = |mut lp: Loop| {
        while let Some(p) = loops.loop_parent(lp) {
            lp = p;
        }
        lp
    };
    // The outermost loops with a call anywhere inside.
    let mut calling = HashSet::new();
    for block in func.layout.blocks() {
        if let Some(lp) = loops.innermost_loop(block)
            && func
                .layout
                .block_insts(block)
                .any(|i| func.dfg.insts[i].opcode().is_call())
        {
            calling.insert(outermost(lp));
        }
    }
    // (instruction, operand index, the constant's bits and type) to rewrite.
    let mut uses = Vec::new();
    for block in func.layout.blocks() {
        let free = loops
            .innermost_loop(block)
            .is_some_and(|lp| !calling.contains(&outermost(lp)));
        if !free {
            continue;
        }
        for inst in func.layout.block_insts(block) {
            let n_reg = match func.dfg.insts[inst].opcode() {
                Opcode::Fcmp => 2,
                Opcode::Fsub | Opcode::Fdiv => 1,
                _ => 0,
            };
            for (k, &arg) in func.dfg.inst_args(inst).iter().take(n_reg).enumerate() {
                let ir::ValueDef::Result(def, 0) = func.dfg.value_def(arg) else {
                    continue;
                };
                let c = match func.dfg.insts[def] {
                    InstructionData::UnaryIeee64 {
                        opcode: Opcode::F64const,
                        imm,
                    } => (types::I64, imm.bits() as i64, types::F64),
                    InstructionData::UnaryIeee32 {
                        opcode: Opcode::F32const,
                        imm,
                    } => (types::I32, i64::from(imm.bits()), types::F32),
                    _ => continue,
                };
                uses.push((inst, k, c));
            }
        }
    }
    let mut cur = FuncCursor::new(func);
    for (inst, k, (int_ty, bits, float_ty)) in uses {
        cur.goto_inst(inst);
        let int = cur.ins().iconst(int_ty, bits);
        let x = cur.ins().bitcast(float_ty, MemFlagsData::new(), int);
        cur.func.dfg.inst_args_mut(inst)[k] = x;
    }
}
