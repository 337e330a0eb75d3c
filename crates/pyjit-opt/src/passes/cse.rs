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
//! - element loads (`tensor.load`) also in functions that write memory, when no write can come
//!   between the two: the key carries a *memory generation*, bumped after every op that writes
//!   memory (or whose regions do) and on entering a loop body that writes (a later iteration
//!   runs after the writes of an earlier one), so a load only meets the loads of its generation;
//! - ops that may raise are fine: the earlier one raised first if it was going to.

use super::PassCtx;
use super::util;
use pyjit_ir::{Function, Op, OpKind, Region, Type, Value};
use rustc_hash::FxHashMap;
use std::collections::{HashMap, HashSet};

function_pass!(
    Cse,
    "cse",
    "common-subexpression elimination respecting effects and aliasing",
    run_function
);

/// An expression: kind, operands, result types, and the memory generation it read (0 for what
/// reads no memory that may change).
type Key = (OpKind, Vec<Value>, Vec<Type>, u64);

pub fn run_function(f: &mut Function, ctx: &mut PassCtx) {
    let immutable = !util::function_writes_memory(f);
    let mut scopes = Scopes {
        writing: writing_regions(f),
        ..Scopes::default()
    };
    let mut subst: HashMap<Value, Value> = HashMap::new();
    let body = f.body;
    visit(f, body, immutable, &mut scopes, &mut subst, ctx);
    f.flush_detached();
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

/// The regions containing an op that writes memory (at any depth): one walk up from each
/// writing op, stopping at a region already marked, so linear in the function's size.
fn writing_regions(f: &Function) -> HashSet<Region> {
    let mut out = HashSet::new();
    for op in f.all_ops() {
        if !f.op(op).kind.writes_memory() {
            continue;
        }
        let mut r = f.op(op).parent;
        while let Some(reg) = r {
            if !out.insert(reg) {
                break;
            }
            r = f.regions[reg].parent.and_then(|o| f.op(o).parent);
        }
    }
    out
}

/// The available expressions of the enclosing regions: one table (an expression is entered only
/// where no enclosing region has it, so nothing is shadowed) and, per open region, the keys it
/// entered, removed when it closes. A lookup costs O(1) whatever the nesting depth. `memory`
/// is the current memory generation, `writing` the regions that write memory.
#[derive(Default)]
struct Scopes {
    table: FxHashMap<Key, Value>,
    entered: Vec<Vec<Key>>,
    memory: u64,
    writing: HashSet<Region>,
}

fn visit(
    f: &mut Function,
    r: Region,
    immutable: bool,
    scopes: &mut Scopes,
    subst: &mut HashMap<Value, Value>,
    ctx: &mut PassCtx,
) {
    // Region nesting follows the program's (an `elif` chain nests once per branch).
    pyjit_syntax::grow(|| {
        scopes.entered.push(Vec::new());
        for op in f.region_ops(r).to_vec() {
            // The walk comes down from the body, so `r` is attached: an op is iff it is still in
            // `r` (O(1), unlike walking up its ancestors).
            if f.op(op).parent != Some(r) {
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
            let regions = f.op(op).regions.clone();
            let writes =
                f.op(op).kind.writes_memory() || regions.iter().any(|r| scopes.writing.contains(r));
            for inner in regions {
                if f.op(op).kind == OpKind::Loop && scopes.writing.contains(&inner) {
                    scopes.memory += 1;
                }
                visit(f, inner, immutable, scopes, subst, ctx);
            }
            if writes {
                scopes.memory += 1;
            }
            let load = f.op(op).kind == OpKind::TensorLoad;
            if !(load || eligible(f, op, immutable)) {
                continue;
            }
            let data = f.op(op);
            let types: Vec<Type> = data
                .results
                .iter()
                .map(|&v| f.value_type(v).clone())
                .collect();
            let generation = if load && !immutable { scopes.memory } else { 0 };
            let key = (data.kind.clone(), operands, types, generation);
            let found = scopes.table.get(&key).copied();
            match found {
                Some(prev) => {
                    let results = f.results(op).to_vec();
                    let prev_op = f.defining_op(prev);
                    let prev_results = prev_op.map(|p| f.results(p).to_vec()).unwrap_or_default();
                    if prev_results.len() != results.len() || !ctx.allow() {
                        continue;
                    }
                    for (&a, &b) in results.iter().zip(&prev_results) {
                        subst.insert(a, b);
                    }
                    f.detach_op(op);
                    ctx.stats.removed += 1;
                }
                None => {
                    let first = f.results(op)[0];
                    if let Some(s) = scopes.entered.last_mut() {
                        s.push(key.clone());
                        scopes.table.insert(key, first);
                    }
                }
            }
        }
        for k in scopes.entered.pop().unwrap_or_default() {
            scopes.table.remove(&k);
        }
    })
}
