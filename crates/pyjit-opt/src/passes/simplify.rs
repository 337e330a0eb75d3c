//! Algebraic simplification (peephole rewrites).
//!
//! Scalars (each rewrite is exact for every input, signed zeros and NaNs included):
//! - `int`: `x+0`, `0+x`, `x-0`, `x*1`, `1*x`, `x//1`, `x**1`, `x|0`, `x^0`, `x&-1`, `x<<0`,
//!   `x>>0` → `x`; `x-x`, `x^x`, `x*0`, `0*x`, `x&0`, `x%1` → `0`; `x**0` → `1`; `x**2` → `x*x`
//!   (both wrap identically); `--x`, `~~x` → `x`; `x&x`, `x|x` → `x`.
//! - `float`: `x*1.0`, `1.0*x`, `x/1.0`, `x-0.0`, `x+(-0.0)` → `x`; `--x` → `x`. Not rewritten:
//!   `x+0.0` (−0.0 + 0.0 is +0.0), `x*0.0` (NaN, ±inf, −0.0), `x-x` (NaN, inf), `x**2` (Python
//!   raises `OverflowError` where `x*x` gives inf).
//! - `bool`: `not not b`, `b and true`, `b or false`, `b == true`, `b != false`, `b xor false`
//!   → `b`; `b and false` → `false`, `b or true` → `true`; `int.to_bool(bool.to_int b)` → `b`.
//! - comparisons of a value with itself: `int`/`bool` `==`, `<=`, `>=` → true, `!=`, `<`, `>`
//!   → false (not for floats: NaN).
//! - `if` results that both branches yield as the same outer value → that value.
//!
//! Tensors (only in functions without memory writes, since replacing a fresh tensor by its
//! input makes them aliases; and only where the specializer's types prove the dtype, so no
//! rewrite changes a dtype or a shape): `x*1`, `x/1` (float dtypes), `x-0`, `x+0` (int dtypes
//! only: `-0.0 + 0` is `+0.0`), `x**1` → `x`; `x**2` → `x*x` (float/int dtypes, as PyTorch's own
//! kernel does); `neg(neg x)` → `x` (non-bool dtypes); `transpose(transpose(x, a, b), a, b)`
//! and `t(t x)` → `x` when the rank is known and the dims are valid; `reshape(reshape(x, s1),
//! s2)` → `reshape(x, s2)` when `x`'s shape is fully known and `s1` is a valid constant shape
//! for it (so the inner op could not have failed). In every function: `np_element(x)` (NumPy's
//! int subscript) → `x` when `x`'s rank is known and not 0 (fewer ints than dims: the view
//! itself, which is what the op returns).

use super::PassCtx;
use super::util::{self, const_bool, const_float, const_int, const_of};
use pyjit_ir::{
    BoolBinOp, CastOp, CmpOp, Const, DType, FloatBinOp, FloatUnOp, Function, IntBinOp, IntUnOp, Op,
    OpKind, Value,
};

/// How many times each value is used ([`Function::use_counts`]).
type Uses = pyjit_ir::SecondaryMap<Value, u32>;

function_pass!(
    Simplify,
    "simplify",
    "algebraic simplification that never changes a dtype, a shape or a float",
    run_function
);

/// What an op simplifies to.
enum Rewrite {
    Value(Value),
    Const(Const),
    /// Replace the op's kind and operands (same result types).
    Op(OpKind, Vec<Value>),
    /// Replace several results (of an `if`, which stays for DCE to prune).
    Results(Vec<(Value, Value)>),
}

pub fn run_function(f: &mut Function, ctx: &mut PassCtx) {
    let immutable = !util::function_writes_memory(f);
    for _ in 0..8 {
        let mut changed = false;
        let mut attached = util::AttachCheck::new(f);
        // Counted once per round, not once per `if` (exact for each `if` when it is visited:
        // its results are used only after it, by ops not visited yet).
        let uses = f.use_counts();
        // Substitutions, removals and new constants are applied once per round (see Edits).
        let mut edits = util::Edits::default();
        // The attached ops with regions whose regions the walk is in, innermost last. An `if`
        // is rewritten when the walk leaves it (post-order), so that it sees what its branches'
        // nested `if`s were rewritten to: a chain of nested `if`s then takes one round, not one
        // per level. (Only leaf ops are ever removed, so an open op stays attached.)
        let mut open: Vec<Op> = Vec::new();
        for op in f.all_ops() {
            if !attached.check(f, op) {
                continue;
            }
            let owner = f.op(op).parent.and_then(|r| f.regions[r].parent);
            while let Some(&top) = open.last() {
                if Some(top) == owner {
                    break;
                }
                open.pop();
                changed |= rewrite_if(f, top, &uses, ctx, &mut edits);
            }
            edits.resolve_operands(f, op);
            if !f.op(op).regions.is_empty() {
                open.push(op);
            }
            if f.op(op).kind == OpKind::If {
                continue;
            }
            let Some(rw) = rewrite(f, op, immutable) else {
                continue;
            };
            changed |= apply(f, op, rw, ctx, &mut edits);
            // A rewrite removes at most the op itself.
            attached.removed_current(f);
        }
        while let Some(top) = open.pop() {
            changed |= rewrite_if(f, top, &uses, ctx, &mut edits);
        }
        edits.finish(f);
        if !changed {
            break;
        }
    }
}

/// The rewrite of an `if` (other ops with regions have none), once the walk has left it.
fn rewrite_if(
    f: &mut Function,
    op: Op,
    uses: &Uses,
    ctx: &mut PassCtx,
    edits: &mut util::Edits,
) -> bool {
    if f.op(op).kind != OpKind::If {
        return false;
    }
    match if_same_yields(f, op, uses, edits) {
        Some(rw) => apply(f, op, rw, ctx, edits),
        None => false,
    }
}

fn apply(
    f: &mut Function,
    op: Op,
    rw: Rewrite,
    ctx: &mut PassCtx,
    edits: &mut util::Edits,
) -> bool {
    match rw {
        Rewrite::Value(v) => {
            if !util::forward_result(f, edits, op, v, ctx) {
                return false;
            }
        }
        Rewrite::Results(pairs) => {
            let mut any = false;
            for (r, v) in pairs {
                if ctx.allow() {
                    edits.replace_uses(r, v);
                    ctx.stats.simplified += 1;
                    any = true;
                }
            }
            return any;
        }
        Rewrite::Const(c) => {
            if !util::replace_with_const(f, edits, op, c, ctx) {
                return false;
            }
        }
        Rewrite::Op(kind, operands) => {
            if !ctx.allow() {
                return false;
            }
            let data = f.op_mut(op);
            data.kind = kind;
            data.operands = operands;
        }
    }
    ctx.stats.simplified += 1;
    true
}

fn def_kind(f: &Function, v: Value) -> Option<(OpKind, Vec<Value>)> {
    let d = f.defining_op(v)?;
    Some((f.op(d).kind.clone(), f.op(d).operands.clone()))
}

fn rewrite(f: &Function, op: Op, immutable: bool) -> Option<Rewrite> {
    let data = f.op(op);
    let o = &data.operands;
    let ci = |i: usize| const_int(f, o[i]);
    let cf = |i: usize| const_float(f, o[i]);
    let cb = |i: usize| const_bool(f, o[i]);
    use Rewrite::*;
    Some(match &data.kind {
        OpKind::IntBin(b) => {
            let (x, y) = (o[0], o[1]);
            match b {
                IntBinOp::Add if ci(1) == Some(0) => Value(x),
                IntBinOp::Add if ci(0) == Some(0) => Value(y),
                IntBinOp::Sub if ci(1) == Some(0) => Value(x),
                IntBinOp::Sub if x == y => Const(pyjit_ir::Const::Int(0)),
                IntBinOp::Mul if ci(1) == Some(1) => Value(x),
                IntBinOp::Mul if ci(0) == Some(1) => Value(y),
                IntBinOp::Mul if ci(1) == Some(0) || ci(0) == Some(0) => {
                    Const(pyjit_ir::Const::Int(0))
                }
                IntBinOp::FloorDiv if ci(1) == Some(1) => Value(x),
                IntBinOp::Mod if ci(1) == Some(1) => Const(pyjit_ir::Const::Int(0)),
                IntBinOp::Pow if ci(1) == Some(1) => Value(x),
                IntBinOp::Pow if ci(1) == Some(0) => Const(pyjit_ir::Const::Int(1)),
                IntBinOp::Pow if ci(1) == Some(2) => Op(OpKind::IntBin(IntBinOp::Mul), vec![x, x]),
                IntBinOp::BitOr | IntBinOp::BitXor if ci(1) == Some(0) => Value(x),
                IntBinOp::BitAnd if ci(1) == Some(-1) => Value(x),
                IntBinOp::BitAnd if ci(1) == Some(0) => Const(pyjit_ir::Const::Int(0)),
                IntBinOp::BitAnd | IntBinOp::BitOr if x == y => Value(x),
                IntBinOp::BitXor if x == y => Const(pyjit_ir::Const::Int(0)),
                IntBinOp::Shl | IntBinOp::Shr if ci(1) == Some(0) => Value(x),
                _ => return None,
            }
        }
        OpKind::IntUn(u @ (IntUnOp::Neg | IntUnOp::Invert)) => match def_kind(f, o[0]) {
            Some((OpKind::IntUn(inner), a)) if inner == *u => Value(a[0]),
            _ => return None,
        },
        OpKind::FloatBin(b) => {
            let (x, y) = (o[0], o[1]);
            let bits = |v: Option<f64>, want: f64| v.is_some_and(|v| v.to_bits() == want.to_bits());
            match b {
                FloatBinOp::Mul if bits(cf(1), 1.0) => Value(x),
                FloatBinOp::Mul if bits(cf(0), 1.0) => Value(y),
                FloatBinOp::Div if bits(cf(1), 1.0) => Value(x),
                FloatBinOp::Sub if bits(cf(1), 0.0) => Value(x),
                FloatBinOp::Add if bits(cf(1), -0.0) => Value(x),
                FloatBinOp::Add if bits(cf(0), -0.0) => Value(y),
                _ => return None,
            }
        }
        OpKind::FloatUn(FloatUnOp::Neg) => match def_kind(f, o[0]) {
            Some((OpKind::FloatUn(FloatUnOp::Neg), a)) => Value(a[0]),
            _ => return None,
        },
        OpKind::Not => match def_kind(f, o[0]) {
            Some((OpKind::Not, a)) => Value(a[0]),
            _ => return None,
        },
        OpKind::BoolBin(b) => {
            let (x, y) = (o[0], o[1]);
            match (b, cb(0), cb(1)) {
                (BoolBinOp::And, _, Some(true)) | (BoolBinOp::Or, _, Some(false)) => Value(x),
                (BoolBinOp::And, Some(true), _) | (BoolBinOp::Or, Some(false), _) => Value(y),
                (BoolBinOp::And, _, Some(false)) | (BoolBinOp::And, Some(false), _) => {
                    Const(pyjit_ir::Const::Bool(false))
                }
                (BoolBinOp::Or, _, Some(true)) | (BoolBinOp::Or, Some(true), _) => {
                    Const(pyjit_ir::Const::Bool(true))
                }
                (BoolBinOp::Xor, _, Some(false)) => Value(x),
                (BoolBinOp::Xor, Some(false), _) => Value(y),
                (BoolBinOp::And | BoolBinOp::Or, _, _) if x == y => Value(x),
                (BoolBinOp::Xor, _, _) if x == y => Const(pyjit_ir::Const::Bool(false)),
                _ => return None,
            }
        }
        OpKind::BoolCmp(c) => match (c, cb(1)) {
            (CmpOp::Eq, Some(true)) | (CmpOp::Ne, Some(false)) => Value(o[0]),
            _ if o[0] == o[1] => Const(pyjit_ir::Const::Bool(self_cmp(*c))),
            _ => return None,
        },
        OpKind::IntCmp(c) if o[0] == o[1] => Const(pyjit_ir::Const::Bool(self_cmp(*c))),
        OpKind::Cast(CastOp::IntToBool) => match def_kind(f, o[0]) {
            Some((OpKind::Cast(CastOp::BoolToInt), a)) => Value(a[0]),
            _ => return None,
        },
        // Rewritten once the walk has left its branches ([`rewrite_if`]).
        OpKind::If => return None,
        OpKind::Tensor(id) if immutable || is_np_element(*id) => {
            return tensor_rewrite(f, op, *id);
        }
        _ => return None,
    })
}

fn self_cmp(c: CmpOp) -> bool {
    matches!(c, CmpOp::Eq | CmpOp::Le | CmpOp::Ge)
}

/// `if` results both branches yield as the same value defined outside the `if`.
fn if_same_yields(f: &Function, op: Op, uses: &Uses, edits: &util::Edits) -> Option<Rewrite> {
    let pairs: Vec<(Value, Value)> = f
        .results(op)
        .iter()
        .enumerate()
        .filter(|(_, r)| uses[**r] > 0)
        .filter_map(|(k, &r)| same_yield(f, op, k, edits).map(|v| (r, v)))
        .collect();
    (!pairs.is_empty()).then_some(Rewrite::Results(pairs))
}

/// (The yields are read through `edits`: the walk has not reached them yet.)
fn same_yield(f: &Function, op: Op, k: usize, edits: &util::Edits) -> Option<Value> {
    let data = f.op(op);
    let mut val = None;
    for &r in &data.regions {
        let t = f.terminator(r)?;
        if f.op(t).kind != OpKind::Yield {
            continue; // a raising branch yields nothing
        }
        let v = edits.resolve(*f.op(t).operands.get(k)?);
        if util::defined_within(f, v, r) {
            return None;
        }
        match val {
            None => val = Some(v),
            Some(w) if w == v => {}
            Some(_) => return None,
        }
    }
    val
}

fn tensor_dtype(f: &Function, v: Value) -> Option<DType> {
    f.value_type(v).as_tensor().and_then(|t| t.dtype)
}

fn is_float(d: DType) -> bool {
    matches!(d, DType::Float32 | DType::Float64)
}

fn is_int(d: DType) -> bool {
    matches!(d, DType::Int64 | DType::Int32)
}

/// `np_element` of a tensor of rank > 0 returns that very tensor (no fresh one), so replacing
/// it by its operand is exact even in functions that write memory.
fn is_np_element(id: pyjit_ir::OpId) -> bool {
    pyjit_ir::schema::op_name(id) == "np_element"
}

fn tensor_rewrite(f: &Function, op: Op, id: pyjit_ir::OpId) -> Option<Rewrite> {
    let data = f.op(op);
    let o = &data.operands;
    let name = pyjit_ir::schema::op_name(id);
    let r = data.results.first().copied()?;
    let x = *o.first()?;
    let xd = tensor_dtype(f, x);
    // The result must keep x's dtype and shape facts: require the result type to agree.
    let same_type = |v: Value| f.value_type(r).is_assignable_to(f.value_type(v));
    let scalar_is = |i: usize, want: f64| match const_of(f, o[i]) {
        Some(Const::Int(n)) => *n as f64 == want && xd.is_some_and(|d| is_int(d) || is_float(d)),
        Some(Const::Float(v)) => *v == want && xd.is_some_and(is_float),
        _ => false,
    };
    let alpha_one = |i: usize| matches!(const_of(f, o[i]), Some(Const::Int(1)));
    // The op that computed `x` when it is this same op (`neg(neg(y))`, `t(t(y))` …).
    let same_op_below = || {
        f.defining_op(x)
            .filter(|&d| f.op(d).kind == OpKind::Tensor(id))
    };
    let rewrite = match name.as_str() {
        "mul.Scalar" if scalar_is(1, 1.0) => Rewrite::Value(x),
        "div.Scalar" if xd.is_some_and(is_float) && scalar_is(1, 1.0) => Rewrite::Value(x),
        "sub.Scalar" if o.len() == 3 && scalar_is(1, 0.0) && alpha_one(2) => Rewrite::Value(x),
        "add.Scalar"
            if o.len() == 3
                && xd.is_some_and(is_int)
                && matches!(const_of(f, o[1]), Some(Const::Int(0)))
                && alpha_one(2) =>
        {
            Rewrite::Value(x)
        }
        "pow.Tensor_Scalar" if scalar_is(1, 1.0) => Rewrite::Value(x),
        // NumPy's int subscript of fewer ints than dims: a view, the subscript itself.
        "np_element" if f.value_type(x).as_tensor()?.rank? > 0 => Rewrite::Value(x),
        "pow.Tensor_Scalar"
            if xd.is_some_and(|d| is_float(d) || is_int(d)) && scalar_is(1, 2.0) =>
        {
            let mul = pyjit_ir::schema::lookup("mul.Tensor")?;
            if pyjit_ir::schema::schema(mul).params.len() != 2 {
                return None;
            }
            Rewrite::Op(OpKind::Tensor(mul), vec![x, x])
        }
        "neg" if xd.is_some_and(|d| d != DType::Bool) => {
            let d = same_op_below()?;
            Rewrite::Value(f.op(d).operands[0])
        }
        "transpose.int" => {
            let d = same_op_below()?;
            let inner = f.op(d).operands.clone();
            let base = inner[0];
            let rank = f.value_type(base).as_tensor()?.rank? as i64;
            let norm = |v: Value| {
                let k = const_int(f, v)?;
                let j = if k < 0 { k + rank } else { k };
                (0..rank.max(1)).contains(&j).then_some(j)
            };
            let (a, b) = (norm(inner[1])?, norm(inner[2])?);
            let (c, e) = (norm(o[1])?, norm(o[2])?);
            if !((a == c && b == e) || (a == e && b == c)) {
                return None;
            }
            Rewrite::Value(base)
        }
        "t" => {
            let d = same_op_below()?;
            let base = f.op(d).operands[0];
            let rank = f.value_type(base).as_tensor()?.rank?;
            if rank > 2 {
                return None;
            }
            Rewrite::Value(base)
        }
        "reshape" => {
            let d = same_op_below()?;
            let base = f.op(d).operands[0];
            let dims = f.value_type(base).as_tensor()?.dims.clone()?;
            let numel = dims
                .iter()
                .try_fold(1i64, |acc, x| x.map(|x| acc * x as i64))?;
            let shape = const_int_list(f, f.op(d).operands[1])?;
            if !util::valid_reshape(&shape, numel) {
                return None;
            }
            Rewrite::Op(OpKind::Tensor(id), vec![base, o[1]])
        }
        _ => return None,
    };
    if let Rewrite::Value(v) = &rewrite
        && !same_type(*v)
    {
        return None;
    }
    Some(rewrite)
}

fn const_int_list(f: &Function, v: Value) -> Option<Vec<i64>> {
    let d = f.defining_op(v)?;
    if f.op(d).kind != OpKind::ListNew {
        return None;
    }
    f.op(d).operands.iter().map(|&x| const_int(f, x)).collect()
}
