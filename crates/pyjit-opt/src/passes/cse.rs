//! Common-subexpression elimination with structured scopes.
//!
//! An op is replaced by an earlier op with the same kind, the same operands and the same result
//! types when the earlier one *dominates* it: it comes before it in the same region or in an
//! enclosing one (a table per region, popped when the region ends).
//!
//! Which ops take part (effects and aliasing):
//! - never ops with side effects (`print`, in-place tensor ops such as `index_put_`,
//!   `list.set`/`list.append`, `check`, `guard`, calls), `if`/`loop`, `undef`, `list.new`
//!   (each one is a distinct list object);
//! - ops that read mutable memory (tensor ops, `list.get`, `list.len`, `str.of` of a tensor or
//!   list) and ops that return a fresh tensor only in functions without any memory write (no
//!   in-place op, list write or call): otherwise a write between the two, or through an alias of
//!   the merged result, could tell them apart;
//! - ops that may raise are fine: the earlier one raised first if it was going to.

use super::util::{self, is_attached};
use super::{Pass, PassCtx};
use pyjit_ir::{Function, Module, Op, OpKind, Region, Type, Value};
use std::collections::HashMap;

pub struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }
    fn description(&self) -> &'static str {
        "common-subexpression elimination respecting effects and aliasing"
    }
    fn run(&self, m: &mut Module, ctx: &mut PassCtx) {
        for f in m.funcs.values_mut() {
            run_function(f, ctx);
        }
    }
}

type Key = (OpKind, Vec<Value>, Vec<Type>);

pub fn run_function(f: &mut Function, ctx: &mut PassCtx) {
    let immutable = !util::function_writes_memory(f);
    let mut scopes: Vec<HashMap<Key, Value>> = Vec::new();
    let mut subst: HashMap<Value, Value> = HashMap::new();
    let body = f.body;
    visit(f, body, immutable, &mut scopes, &mut subst, ctx);
    util::apply_substitution(f, &subst);
}

fn eligible(f: &Function, op: Op, immutable: bool) -> bool {
    let data = f.op(op);
    if data.results.is_empty() || !data.regions.is_empty() {
        return false;
    }
    match &data.kind {
        OpKind::Undef | OpKind::ListNew | OpKind::Call(_) => return false,
        k if k.has_side_effects() => return false,
        _ => {}
    }
    if util::reads_memory(f, op) || data.kind.returns_fresh_object() {
        return immutable;
    }
    true
}

fn visit(
    f: &mut Function,
    r: Region,
    immutable: bool,
    scopes: &mut Vec<HashMap<Key, Value>>,
    subst: &mut HashMap<Value, Value>,
    ctx: &mut PassCtx,
) {
    scopes.push(HashMap::new());
    for op in f.region_ops(r).to_vec() {
        if !is_attached(f, op) {
            continue;
        }
        // Operands as rewritten so far (replacements are applied at the end).
        let operands: Vec<Value> = f
            .op(op)
            .operands
            .iter()
            .map(|&v| util::resolve(subst, v))
            .collect();
        f.op_mut(op).operands = operands.clone();
        for inner in f.op(op).regions.clone() {
            visit(f, inner, immutable, scopes, subst, ctx);
        }
        if !eligible(f, op, immutable) {
            continue;
        }
        let data = f.op(op);
        let types: Vec<Type> = data
            .results
            .iter()
            .map(|&v| f.value_type(v).clone())
            .collect();
        let key = (data.kind.clone(), operands, types);
        let found = scopes.iter().rev().find_map(|s| s.get(&key)).copied();
        match found {
            Some(prev) => {
                let results = f.results(op).to_vec();
                let prev_op = f.defining_op(prev);
                let prev_results = prev_op.map(|p| f.results(p).to_vec()).unwrap_or_default();
                if prev_results.len() != results.len()
                    || results
                        .iter()
                        .zip(&prev_results)
                        .any(|(&a, &b)| !super::constfold::can_replace(f, a, b))
                    || !ctx.allow()
                {
                    continue;
                }
                for (&a, &b) in results.iter().zip(&prev_results) {
                    subst.insert(a, b);
                }
                f.remove_op(op);
                ctx.stats.removed += 1;
            }
            None => {
                let first = f.results(op)[0];
                if let Some(s) = scopes.last_mut() {
                    s.insert(key, first);
                }
            }
        }
    }
    scopes.pop();
}
