//! `scalarize`: computations on 0-d float tensors become `elem` ops on unboxed floats.
//!
//! NumPy-style kernels (`xi = x[i]`, `np.exp(-xi)`, `s += e`, `out[i] = v`) and TorchScript code
//! that subscripts single elements compute on 0-d tensors: each op allocates a tensor and calls a
//! kernel for one element. This pass finds the 0-d `float32`/`float64` tensors (and the 0-d bool
//! tensors of their comparisons) whose whole life is such element arithmetic and gives them the
//! type `float` (`bool`): the ops become `elem.F.P` (`pyjit_runtime::ops::elem`: the tensor
//! kernel's own function of one element, so results are the tensor program's bits), comparisons
//! `float.*` comparisons, `x[i, j]` a `tensor.load`, `out[i, j] = v` a `tensor.store`, and
//! `bool(t)`/`float(t)`/`t.item()` the value itself. Loop-carried values and `if` results change
//! type with them. This is the one pass that changes value types; what the program computes,
//! prints and raises does not change.
//!
//! A 0-d value is scalarized only when every definition and every use is one of:
//! - definitions: `x[i, …]` of a float tensor of known dtype and rank with one int per dim;
//!   `scalar_tensor(c, dtype)` (`np.float32(c)`); `add`/`sub`/`rsub` (alpha 1)/`mul`/`div`/`rdiv` (no
//!   rounding mode)/`neg`/`abs` and the vector-math functions (`exp`, `tanh`, `sigmoid` …) whose
//!   tensor operands are scalarized and whose number operands are floats or int constants (a
//!   variable int would round twice on its way to `float32`); their in-place forms (`s += e`)
//!   when the value written is used by nothing else and comes from no tensor a subscript made
//!   (so no other name sees the write); comparisons; `if`/`loop` results and loop-carried values
//!   all of whose incoming values are scalarized (a carried value and its loop result are one
//!   slot: both or neither);
//! - uses: the operations above; `bool`/`float`/`.item()`; `out[i, …] = v` into a float tensor
//!   with one int per dim; `yield` into a scalarized result or carried value; and, for a float
//!   value that is fresh storage (no subscript's view), uses that only read it — `return s`, a
//!   tuple only returned, an element-wise op of a tensor (`e / s`) — which get a fresh 0-d tensor
//!   of the value (`scalar_tensor`) made right before them.
//!
//! `x[i]` is a view in PyTorch: reading its element later sees writes made in between. The
//! element is read where the subscript was, so a subscript is scalarized only when nothing can
//! write the tensor in between: either the function writes only tensors it allocated itself
//! (never the subscripted one, which is a parameter or another fresh tensor), or every use of the
//! subscript directly follows it in its region with no memory write in between. NumPy's element
//! subscript, `np_element(x[i, …])` (a NumPy-style module's `x[i]`), is a copy taken at
//! `np_element`: its element is loaded there whatever writes follow (copy semantics), provided
//! only ops without effects that cannot raise lie between the subscript and `np_element`; the
//! subscript is removed with it when nothing else uses it.

use super::PassCtx;
use super::access::{int_subscript, reads_as_subscript};
use super::util::{const_int, region_writes_memory};
use pyjit_ir::{
    CmpOp, Const, DType, ElemFn, Function, Op, OpKind, Prec, Type, Uses, Value, ValueDef,
};
use std::collections::{HashMap, HashSet};

function_pass!(
    Scalarize,
    "scalarize",
    "0-d float tensors whose whole life is element arithmetic to unboxed floats (elem ops)",
    run_function
);

/// Where a value is defined, with `usize` positions.
enum Def {
    Param(pyjit_ir::Region, usize),
    Result(Op, usize),
}

fn def(f: &Function, v: Value) -> Def {
    match f.value_def(v) {
        ValueDef::Param(r, i) => Def::Param(r, i as usize),
        ValueDef::Result(o, i) => Def::Result(o, i as usize),
    }
}

/// What a 0-d value becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Float(Prec),
    Bool,
}

fn kind_of(t: &Type) -> Option<Kind> {
    let tt = t.as_tensor()?;
    if tt.rank != Some(0) {
        return None;
    }
    match tt.dtype? {
        DType::Bool => Some(Kind::Bool),
        d => Prec::of(d).map(Kind::Float),
    }
}

/// How a tensor op's result is computed from one element of each operand.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Form {
    /// `elem.F.P(a[, b])`; `swap` for `rsub` (`b - a`); `inplace` for `add_` …
    Elem {
        f: ElemFn,
        swap: bool,
        inplace: bool,
    },
    /// A comparison of the two operands.
    Cmp(CmpOp),
    /// `scalar_tensor(s, dtype)`.
    Make,
    /// `x[i, …]`.
    Subscript,
    /// `np_element(x[i, …])`: NumPy's element subscript, a copy of the element taken there.
    NpElement,
}

fn form(f: &Function, op: Op) -> Option<Form> {
    let OpKind::Tensor(id) = f.op(op).kind else {
        return None;
    };
    let q = pyjit_ir::schema::op_name(id);
    let (name, overload) = q.split_once('.').unwrap_or((q.as_str(), ""));
    let cmp = |c| Some(Form::Cmp(c));
    match (name, overload) {
        ("scalar_tensor", "") => Some(Form::Make),
        ("index", "") => Some(Form::Subscript),
        ("np_element", "") => Some(Form::NpElement),
        ("eq", "Tensor" | "Scalar") => cmp(CmpOp::Eq),
        ("ne", "Tensor" | "Scalar") => cmp(CmpOp::Ne),
        ("lt", "Tensor" | "Scalar") => cmp(CmpOp::Lt),
        ("le", "Tensor" | "Scalar") => cmp(CmpOp::Le),
        ("gt", "Tensor" | "Scalar") => cmp(CmpOp::Gt),
        ("ge", "Tensor" | "Scalar") => cmp(CmpOp::Ge),
        ("rsub", "Tensor" | "Scalar") => Some(Form::Elem {
            f: ElemFn::Sub,
            swap: true,
            inplace: false,
        }),
        // `c / t`: the runtime's `rdiv` is the division with the operands swapped.
        ("rdiv", "Scalar") => Some(Form::Elem {
            f: ElemFn::Div,
            swap: true,
            inplace: false,
        }),
        (n, "Tensor" | "Scalar" | "") => {
            let (base, inplace) = match n.strip_suffix('_') {
                Some(b) => (b, true),
                None => (n, false),
            };
            let f = ElemFn::of_tensor_op(base)?;
            // The binary ones have overloads, the unary ones none.
            if (f.arity() == 2) == overload.is_empty() {
                return None;
            }
            Some(Form::Elem {
                f,
                swap: false,
                inplace,
            })
        }
        _ => None,
    }
}

/// Whether tensor op `op` always returns storage of its own (never a view of or the same object
/// as an operand): the creation ops that allocate, and element arithmetic. (`np.asarray`,
/// `torch.as_tensor`, `x.to(x.dtype)`, `positive` and views may return their operand.)
fn allocates(f: &Function, op: Op) -> bool {
    let OpKind::Tensor(id) = f.op(op).kind else {
        return false;
    };
    let allocating = matches!(
        pyjit_ir::schema::op_name(id).as_str(),
        "zeros"
            | "ones"
            | "empty"
            | "full"
            | "arange"
            | "linspace"
            | "eye"
            | "zeros_like"
            | "ones_like"
            | "empty_like"
            | "full_like"
            | "scalar_tensor"
    );
    allocating
        || matches!(
            form(f, op),
            Some(Form::Elem { inplace: false, .. } | Form::Cmp(_) | Form::Make)
        )
}

/// Where a tensor's storage comes from, for the write analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Origin {
    /// A tensor op that returns fresh storage.
    Fresh(Op),
    /// A function parameter (parameters may alias each other).
    Param,
    /// Anything else (a view, a list element, a call's result …).
    Unknown,
}

struct Analysis<'a> {
    f: &'a Function,
    /// Every use of every value: (user op, operand index). Read-only: the analysis runs
    /// before the rewrite changes anything.
    uses: Uses,
    /// The storages the function writes; `None` when some write's target is unknown.
    written: Option<HashSet<Origin>>,
}

impl<'a> Analysis<'a> {
    fn new(f: &'a Function) -> Analysis<'a> {
        let uses = Uses::build(f);
        let mut a = Analysis {
            f,
            uses,
            written: None,
        };
        let mut written = HashSet::new();
        let mut known = true;
        for op in f.all_ops() {
            let d = f.op(op);
            match &d.kind {
                OpKind::ListSet | OpKind::ListAppend | OpKind::DictSet => {}
                OpKind::TensorStore | OpKind::Tensor(_) if d.kind.writes_memory() => {
                    let mut seen = HashSet::new();
                    for o in a.origins(d.operands[0], &mut seen) {
                        known &= o != Origin::Unknown;
                        written.insert(o);
                    }
                }
                k if k.writes_memory() => known = false,
                _ => {}
            }
        }
        a.written = known.then_some(written);
        a
    }

    fn users(&self, v: Value) -> &[(Op, u32)] {
        self.uses.users(v)
    }

    /// The storages tensor `v` may be (through loop-carried values, `if` results and in-place
    /// results).
    fn origins(&self, v: Value, seen: &mut HashSet<Value>) -> HashSet<Origin> {
        let f = self.f;
        let mut out = HashSet::new();
        if !seen.insert(v) {
            return out;
        }
        match def(f, v) {
            Def::Param(r, _) if r == f.body => {
                out.insert(Origin::Param);
            }
            Def::Param(r, i) => {
                // A loop's carried value: its initial value and what the body yields.
                let owner = f.regions[r].parent;
                match owner.map(|o| (o, &f.op(o).kind)) {
                    Some((o, OpKind::Loop)) if i >= 1 => {
                        let init = f.op(o).operands[i + 1];
                        out.extend(self.origins(init, seen));
                        if let Some(y) = f.terminator(r) {
                            out.extend(self.origins(f.op(y).operands[i], seen));
                        }
                    }
                    _ => {
                        out.insert(Origin::Unknown);
                    }
                }
            }
            Def::Result(op, i) => {
                let d = f.op(op);
                match &d.kind {
                    OpKind::If | OpKind::Loop => {
                        let skip = usize::from(d.kind == OpKind::Loop);
                        for &r in &d.regions {
                            if let Some(y) = f.terminator(r)
                                && f.op(y).kind == OpKind::Yield
                            {
                                out.extend(self.origins(f.op(y).operands[i + skip], seen));
                            }
                        }
                    }
                    OpKind::Tensor(id) if pyjit_ir::schema::is_inplace(*id) => {
                        out.extend(self.origins(d.operands[0], seen));
                    }
                    // NumPy's element subscript: a copy when 0-d, its operand otherwise.
                    OpKind::Tensor(_) if form(f, op) == Some(Form::NpElement) => {
                        if f.value_type(d.results[0]).as_tensor().and_then(|t| t.rank) == Some(0) {
                            out.insert(Origin::Fresh(op));
                        } else {
                            out.extend(self.origins(d.operands[0], seen));
                        }
                    }
                    _ if allocates(f, op) => {
                        out.insert(Origin::Fresh(op));
                    }
                    _ => {
                        out.insert(Origin::Unknown);
                    }
                }
            }
        }
        out
    }

    /// Whether the function never writes the storage of tensor `t`.
    fn never_written(&self, t: Value) -> bool {
        let Some(w) = &self.written else {
            return false;
        };
        let o = self.origins(t, &mut HashSet::new());
        !o.contains(&Origin::Unknown)
            && o.iter().all(|x| !w.contains(x))
            && !(o.contains(&Origin::Param) && w.contains(&Origin::Param))
    }

    /// Whether each use of `v` directly follows its definition `def` in one region with no
    /// memory write in between, and none is a `yield` or a loop's initial value (an `if`
    /// result or a carried value made of the view lives on, past later writes).
    fn used_right_away(&self, v: Value, def: Op) -> bool {
        let f = self.f;
        let Some(r) = f.op(def).parent else {
            return false;
        };
        let Some(a) = f.position(def) else {
            return false;
        };
        self.users(v).iter().all(|&(u, _)| {
            !matches!(f.op(u).kind, OpKind::Yield | OpKind::Loop)
                && f.op(u).parent == Some(r)
                && f.position(u).is_some_and(|b| {
                    b > a
                        && f.region_ops(r)[a + 1..b].iter().all(|&o| {
                            !f.op(o).kind.writes_memory()
                                && f.op(o)
                                    .regions
                                    .iter()
                                    .all(|&rr| !region_writes_memory(f, rr))
                        })
                })
        })
    }
}

/// The `tensor.index` op NumPy element subscript `op` (`np_element`) wraps, when it comes
/// before `op` in its region with only ops between that neither have effects nor may raise (the
/// frontend puts them next to each other): a load at `op` then reads what the copy holds and
/// raises what the subscript would have.
fn wrapped_subscript(f: &Function, op: Op) -> Option<Op> {
    let ix = f.defining_op(*f.op(op).operands.first()?)?;
    if form(f, ix) != Some(Form::Subscript) {
        return None;
    }
    let r = f.op(op).parent?;
    let (a, b) = (f.position(ix)?, f.position(op)?);
    let quiet = f.op(ix).parent == Some(r)
        && a < b
        && f.region_ops(r)[a + 1..b]
            .iter()
            .all(|&o| !f.op(o).kind.has_side_effects() && !f.op(o).kind.may_raise());
    quiet.then_some(ix)
}

/// The int indices of subscript list `l` when it addresses one element of `t` (known float
/// dtype and rank ≥ 1, one `index.int` per dim, the list used only by subscripts).
fn element_indices(a: &Analysis, t: Value, l: Value) -> Option<Vec<Value>> {
    let f = a.f;
    Prec::of(f.value_type(t).as_tensor()?.dtype?)?;
    let idx = int_subscript(f, t, l)?;
    let read_only = a
        .users(l)
        .iter()
        .all(|&(u, i)| reads_as_subscript(f, u, i as usize));
    (!idx.is_empty() && read_only).then_some(idx)
}

/// A number operand of an element op at precision `p`: a float (rounded by the op), or an int
/// constant (its value as a float constant, rounded as the kernel converts it).
#[derive(Clone, Copy)]
enum Num {
    /// A `float` value, used as it is.
    Float,
    Const(f64),
}

fn number(f: &Function, v: Value, p: Prec) -> Option<Num> {
    match f.value_type(v) {
        Type::Float => Some(Num::Float),
        Type::Int => {
            let i = const_int(f, v)?;
            Some(Num::Const(match p {
                Prec::F32 => f64::from(i as f32),
                Prec::F64 => i as f64,
            }))
        }
        _ => None,
    }
}

/// Whether op `op` (defining the 0-d value `r` of kind `k`) can become element ops, given the
/// current candidate set.
fn def_ok(a: &Analysis, cand: &HashMap<Value, Kind>, op: Op, k: Kind) -> bool {
    let f = a.f;
    let d = f.op(op);
    let Some(form) = form(f, op) else {
        return false;
    };
    let float_of = |v: Value| match cand.get(&v) {
        Some(Kind::Float(p)) => Some(*p),
        _ => None,
    };
    match (form, k) {
        (Form::Subscript, Kind::Float(p)) => {
            let [t, l] = d.operands[..] else {
                return false;
            };
            let dtype_ok = f
                .value_type(t)
                .as_tensor()
                .and_then(|tt| tt.dtype)
                .and_then(Prec::of)
                == Some(p);
            dtype_ok
                && element_indices(a, t, l).is_some()
                && (a.never_written(t) || a.used_right_away(d.results[0], op))
        }
        // A copy taken right here: the element can be loaded here whatever writes follow.
        (Form::NpElement, Kind::Float(p)) => {
            let Some(ix) = wrapped_subscript(f, op) else {
                return false;
            };
            let [t, l] = f.op(ix).operands[..] else {
                return false;
            };
            f.value_type(t)
                .as_tensor()
                .and_then(|tt| tt.dtype)
                .and_then(Prec::of)
                == Some(p)
                && element_indices(a, t, l).is_some()
        }
        (Form::Make, Kind::Float(p)) => {
            let [s, dt] = d.operands[..] else {
                return false;
            };
            matches!(super::util::const_of(f, dt), Some(Const::DType(x)) if Prec::of(*x) == Some(p))
                && number(f, s, p).is_some()
        }
        (Form::Elem { f: ef, inplace, .. }, Kind::Float(p)) => {
            let n = ef.arity();
            if d.operands.len() < n {
                return false;
            }
            // alpha (add/sub/rsub) must be the constant 1.
            if d.operands.len() > n
                && (d.operands.len() != n + 1 || const_int(f, d.operands[n]) != Some(1))
            {
                return false;
            }
            let ok = d.operands[..n].iter().all(|&v| match float_of(v) {
                // A tensor operand never wider than the result (so rounding it is exact).
                Some(q) => q == p || q == Prec::F32,
                None => !f.value_type(v).is_tensor() && number(f, v, p).is_some(),
            });
            ok && float_of(d.operands[0]).is_some() && (!inplace || inplace_ok(a, cand, op))
        }
        (Form::Cmp(_), Kind::Bool) => {
            let [x, y] = d.operands[..] else {
                return false;
            };
            let p = cmp_prec(cand, x, y);
            float_of(x).is_some()
                && (float_of(y).is_some()
                    || (!f.value_type(y).is_tensor()
                        && p.is_some_and(|p| number(f, y, p).is_some())))
        }
        _ => false,
    }
}

/// The precision a comparison computes in: the wider of its tensor operands.
fn cmp_prec(cand: &HashMap<Value, Kind>, x: Value, y: Value) -> Option<Prec> {
    let p = |v: Value| match cand.get(&v) {
        Some(Kind::Float(p)) => Some(*p),
        _ => None,
    };
    match (p(x), p(y)) {
        (Some(Prec::F64), _) | (_, Some(Prec::F64)) => Some(Prec::F64),
        (Some(a), _) => Some(a),
        (None, b) => b,
    }
}

/// An in-place op on a 0-d value can be computed as its functional form when nothing else sees
/// the storage it writes: the value written is used only here, and each value it may be (its
/// loop's initial and yielded values, recursively) is used only once and is no subscript.
fn inplace_ok(a: &Analysis, cand: &HashMap<Value, Kind>, op: Op) -> bool {
    let f = a.f;
    let v = f.op(op).operands[0];
    let mut stack = vec![v];
    let mut seen = HashSet::new();
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        if a.users(x).len() != 1 || !cand.contains_key(&x) {
            return false;
        }
        match def(f, x) {
            Def::Param(r, i) => {
                let Some(o) = f.regions[r].parent else {
                    return false;
                };
                if f.op(o).kind != OpKind::Loop || i == 0 {
                    return false;
                }
                stack.push(f.op(o).operands[i + 1]);
                if let Some(y) = f.terminator(r) {
                    stack.push(f.op(y).operands[i]);
                }
            }
            Def::Result(d, i) => match form(f, d) {
                Some(Form::Elem { inplace: true, .. }) => {}
                Some(Form::Subscript) | None
                    if matches!(f.op(d).kind, OpKind::If | OpKind::Loop) =>
                {
                    let skip = usize::from(f.op(d).kind == OpKind::Loop);
                    for &r in &f.op(d).regions {
                        if let Some(y) = f.terminator(r)
                            && f.op(y).kind == OpKind::Yield
                        {
                            stack.push(f.op(y).operands[i + skip]);
                        }
                    }
                }
                Some(Form::Subscript) | None => return false,
                Some(_) => {}
            },
        }
    }
    true
}

/// Whether every use of candidate `v` is one the rewrite handles.
fn uses_ok(a: &Analysis, cand: &HashMap<Value, Kind>, v: Value, k: Kind) -> bool {
    a.users(v)
        .iter()
        .all(|&(u, i)| use_of(a, cand, v, k, u, i as usize).is_some())
}

/// How the rewrite handles use `(u, i)` of candidate `v`: `Some(false)` as a scalar,
/// `Some(true)` as an escape (the use gets a fresh 0-d tensor of the value, see [`escapes`]),
/// `None` not at all.
fn use_of(
    a: &Analysis,
    cand: &HashMap<Value, Kind>,
    v: Value,
    k: Kind,
    u: Op,
    i: usize,
) -> Option<bool> {
    let f = a.f;
    let d = f.op(u);
    let handled = match &d.kind {
        OpKind::Yield => yield_target(f, u, i).is_some_and(|t| cand.get(&t) == Some(&k)),
        OpKind::Loop => {
            // An initial carried value (operands: trip count, condition, carried …).
            i >= 2 && {
                let p = f.region_params(d.regions[0])[i - 1];
                cand.get(&p) == Some(&k)
            }
        }
        OpKind::Tensor(id) => {
            let name = pyjit_ir::schema::op_name(*id);
            match name.as_str() {
                "Bool.Tensor" => k == Kind::Bool,
                "Float.Tensor" => matches!(k, Kind::Float(_)),
                "item" => {
                    let want = match k {
                        Kind::Bool => Type::Bool,
                        Kind::Float(_) => Type::Float,
                    };
                    *f.value_type(d.results[0]) == want
                }
                "index_put_" => {
                    let [t, l, val] = d.operands[..] else {
                        return None;
                    };
                    val == v
                        && i == 2
                        && matches!(k, Kind::Float(_))
                        && element_indices(a, t, l).is_some()
                        && a.users(d.results[0]).is_empty()
                }
                _ => d.results.first().is_some_and(|r| cand.contains_key(r)),
            }
        }
        _ => false,
    };
    if handled {
        return Some(false);
    }
    escape_ok(a, v, k, u).then_some(true)
}

/// Whether candidate `v` may be given to `u` as a fresh 0-d tensor of its value: `u` returns it,
/// puts it in a tuple that is only returned, or is an element-wise op that only reads it (`e /
/// s`, a tensor `e` and an accumulator `s`); and `v` is fresh storage (computed, never a view of
/// a subscripted tensor: a view returned would share storage the copy does not).
fn escape_ok(a: &Analysis, v: Value, k: Kind, u: Op) -> bool {
    let f = a.f;
    if !matches!(k, Kind::Float(_)) {
        return false;
    }
    let reads_only = match &f.op(u).kind {
        OpKind::Return => true,
        OpKind::TupleNew => {
            let r = f.op(u).results[0];
            a.users(r)
                .iter()
                .all(|&(w, _)| f.op(w).kind == OpKind::Return)
        }
        // Of a tensor, not 0-d element arithmetic the pass refused (making a tensor for it
        // again would only add an op).
        OpKind::Tensor(_) => {
            matches!(
                form(f, u),
                Some(Form::Elem { inplace: false, .. } | Form::Cmp(_))
            ) && f
                .op(u)
                .results
                .iter()
                .all(|&r| kind_of(f.value_type(r)).is_none())
        }
        _ => false,
    };
    reads_only
        && a.origins(v, &mut HashSet::new())
            .iter()
            .all(|o| matches!(o, Origin::Fresh(_)))
}

/// Whether candidate `v` is `scalar_tensor(c)` used only where a tensor of it would be made
/// again: nothing to gain (and the pass would rewrite its own output forever).
fn only_remade(a: &Analysis, cand: &HashMap<Value, Kind>, v: Value, k: Kind) -> bool {
    let f = a.f;
    matches!(def(f, v), Def::Result(op, 0) if form(f, op) == Some(Form::Make))
        && a.users(v)
            .iter()
            .all(|&(u, i)| use_of(a, cand, v, k, u, i as usize) == Some(true))
}

/// The escaping uses of the candidates (see [`use_of`]): (value, user, operand index).
fn escapes(a: &Analysis, cand: &HashMap<Value, Kind>) -> Vec<(Value, Op, usize)> {
    let mut out = Vec::new();
    for (&v, &k) in cand {
        for &(u, i) in a.users(v) {
            if use_of(a, cand, v, k, u, i as usize) == Some(true) {
                out.push((v, u, i as usize));
            }
        }
    }
    out.sort_by_key(|&(v, u, i)| (u, i, v));
    out
}

/// The value a `yield`'s operand `i` becomes: an `if` result or a loop's carried value.
fn yield_target(f: &Function, y: Op, i: usize) -> Option<Value> {
    let r = f.op(y).parent?;
    let owner = f.regions[r].parent?;
    match f.op(owner).kind {
        OpKind::If => f.op(owner).results.get(i).copied(),
        // Loop yields: the continuation condition, then the carried values.
        OpKind::Loop if i >= 1 => f.region_params(r).get(i).copied(),
        _ => None,
    }
}

/// Whether the incoming values of a structured value (an `if` result, a loop's carried value
/// or result) are all candidates of kind `k`.
fn structured_ok(f: &Function, cand: &HashMap<Value, Kind>, v: Value, k: Kind) -> Option<bool> {
    let is = |x: Value| cand.get(&x) == Some(&k);
    let yields = |o: Op, idx: usize| {
        f.op(o).regions.iter().all(|&r| match f.terminator(r) {
            Some(y) if f.op(y).kind == OpKind::Yield => is(f.op(y).operands[idx]),
            // A branch ending in `raise`/`return` gives nothing.
            _ => true,
        })
    };
    // A loop's carried value and its result are one slot, of one type: each is scalarized only
    // with the other (a result used where a tensor is needed keeps the carried value a tensor).
    match def(f, v) {
        Def::Param(r, i) => {
            let o = f.regions[r].parent?;
            (f.op(o).kind == OpKind::Loop && i >= 1).then(|| {
                is(f.op(o).operands[i + 1])
                    && yields(o, i)
                    && f.op(o).results.get(i - 1).is_some_and(|&res| is(res))
            })
        }
        Def::Result(o, i) => match f.op(o).kind {
            OpKind::If => Some(yields(o, i)),
            OpKind::Loop => Some(
                is(f.op(o).operands[i + 2])
                    && yields(o, i + 1)
                    && f.op(o)
                        .regions
                        .first()
                        .and_then(|&b| f.region_params(b).get(i + 1))
                        .is_some_and(|&p| is(p)),
            ),
            _ => None,
        },
    }
}

pub fn run_function(f: &mut Function, ctx: &mut PassCtx) {
    let (cand, escaping, wrapped) = {
        let a = Analysis::new(f);
        let mut cand: HashMap<Value, Kind> = HashMap::new();
        for (v, data) in f.values.iter() {
            // Not the results of ops an earlier rewrite removed (values stay in the table).
            let removed = f.defining_op(v).is_some_and(|o| f.op(o).parent.is_none());
            if removed {
                continue;
            }
            if let Some(k) = kind_of(&data.ty)
                && !only_wrapped(&a, v)
            {
                cand.insert(v, k);
            }
        }
        // Drop the candidates whose definition or uses do not fit until nothing changes.
        loop {
            let drop: Vec<Value> = cand
                .iter()
                .filter(|&(&v, &k)| {
                    let def = match structured_ok(f, &cand, v, k) {
                        Some(ok) => ok,
                        None => match def(f, v) {
                            Def::Result(op, 0) => def_ok(&a, &cand, op, k),
                            _ => false,
                        },
                    };
                    !def || !uses_ok(&a, &cand, v, k) || only_remade(&a, &cand, v, k)
                })
                .map(|(&v, _)| v)
                .collect();
            if drop.is_empty() {
                break;
            }
            for v in drop {
                cand.remove(&v);
            }
        }
        let escaping = escapes(&a, &cand);
        // The subscripts whose every use is a scalarized `np_element`: their loads replace them.
        let mut wrapped = Vec::new();
        for &v in cand.keys() {
            if let Def::Result(op, 0) = def(f, v)
                && form(f, op) == Some(Form::NpElement)
                && let Some(ix) = wrapped_subscript(f, op)
            {
                let e = f.op(ix).results[0];
                let all = a.users(e).iter().all(|&(u, _)| {
                    form(f, u) == Some(Form::NpElement)
                        && f.op(u)
                            .results
                            .first()
                            .is_some_and(|r| cand.contains_key(r))
                });
                if all && !cand.contains_key(&e) && !wrapped.contains(&ix) {
                    wrapped.push(ix);
                }
            }
        }
        (cand, escaping, wrapped)
    };
    if cand.is_empty() || !ctx.allow() {
        return;
    }
    rewrite(f, &cand, &escaping, &wrapped);
    ctx.stats.simplified += cand.len() as u64;
}

/// Whether `v` is a subscript used only by `np_element`s (NumPy element subscripts), which are
/// scalarized on their own (see [`Form::NpElement`]) and take the subscript away with them.
fn only_wrapped(a: &Analysis, v: Value) -> bool {
    let f = a.f;
    matches!(def(f, v), Def::Result(op, 0) if form(f, op) == Some(Form::Subscript))
        && !a.users(v).is_empty()
        && a.users(v)
            .iter()
            .all(|&(u, _)| form(f, u) == Some(Form::NpElement))
}

/// Rewrites the candidates; `escaping` are the uses that get a fresh 0-d tensor ([`escapes`]),
/// `wrapped` the subscripts of scalarized `np_element`s that nothing else uses, removed with
/// them.
fn rewrite(
    f: &mut Function,
    cand: &HashMap<Value, Kind>,
    escaping: &[(Value, Op, usize)],
    wrapped: &[Op],
) {
    let scalar = |k: Kind| match k {
        Kind::Bool => Type::Bool,
        Kind::Float(_) => Type::Float,
    };
    // The tensor types the escaping values had (structured ones change type below).
    let tensor_ty: HashMap<Value, Type> = escaping
        .iter()
        .map(|&(v, _, _)| (v, f.value_type(v).clone()))
        .collect();
    // Structured values keep their identity and change type.
    for (&v, &k) in cand {
        let structured = match def(f, v) {
            Def::Param(..) => true,
            Def::Result(o, _) => matches!(f.op(o).kind, OpKind::If | OpKind::Loop),
        };
        if structured {
            f.set_value_type(v, scalar(k));
        }
    }
    let mut map: HashMap<Value, Value> = HashMap::new();
    let mut dead: Vec<Op> = Vec::new();
    for op in f.all_ops() {
        let d = f.op(op).clone();
        let Some(&r) = d.results.first() else {
            // index_put_ with no result: not produced by the frontend.
            continue;
        };
        let get = |map: &HashMap<Value, Value>, v: Value| map.get(&v).copied().unwrap_or(v);
        if let Some(&k) = cand.get(&r) {
            if matches!(d.kind, OpKind::If | OpKind::Loop) {
                continue;
            }
            let new = build(f, op, &d, k, cand, &|v| get(&map, v));
            map.insert(r, new);
            dead.push(op);
            continue;
        }
        // Sinks.
        let OpKind::Tensor(id) = d.kind else { continue };
        let name = pyjit_ir::schema::op_name(id);
        match name.as_str() {
            "Bool.Tensor" | "Float.Tensor" | "item" if cand.contains_key(&d.operands[0]) => {
                map.insert(r, get(&map, d.operands[0]));
                dead.push(op);
            }
            "index_put_" if cand.contains_key(&d.operands[2]) => {
                let [t, l, val] = d.operands[..] else {
                    continue;
                };
                let Some(idx) = int_subscript(f, t, l) else {
                    continue;
                };
                let mut operands = vec![t];
                operands.extend(idx);
                operands.push(get(&map, val));
                let st = f.create_op(OpKind::TensorStore, &operands, &[], &[], d.span);
                f.insert_op_before(op, st);
                dead.push(op);
            }
            _ => {}
        }
    }
    // Escapes: a fresh 0-d tensor of the value, made right before the use (one per user op).
    let make = pyjit_ir::schema::lookup("scalar_tensor").expect("scalar_tensor is in the schema");
    let mut made: HashMap<(Value, Op), Value> = HashMap::new();
    for &(v, u, i) in escaping {
        let t = match made.get(&(v, u)) {
            Some(&t) => t,
            None => {
                let Some(Kind::Float(p)) = cand.get(&v).copied() else {
                    continue;
                };
                let span = f.op(u).span;
                let x = map.get(&v).copied().unwrap_or(v);
                let dt = f.create_op(
                    OpKind::Const(Const::DType(p.dtype())),
                    &[],
                    &[Type::DType],
                    &[],
                    span,
                );
                f.insert_op_before(u, dt);
                let dtv = f.result(dt);
                let o = f.create_op(
                    OpKind::Tensor(make),
                    &[x, dtv],
                    &[tensor_ty[&v].clone()],
                    &[],
                    span,
                );
                f.insert_op_before(u, o);
                let t = f.result(o);
                made.insert((v, u), t);
                t
            }
        };
        f.op_mut(u).operands[i] = t;
    }
    // One walk for every substitution (not one per value). Applying `map` once is the same as
    // one replacement per entry: a target is a new value or a value kept by the rewrite, never
    // a key (the walk maps each definition before its uses are read).
    debug_assert!(map.values().all(|to| !map.contains_key(to)));
    f.replace_uses_with(&map);
    dead.extend_from_slice(wrapped);
    for op in dead.into_iter().rev() {
        f.remove_op(op);
    }
    f.flush_detached();
}

/// The scalar ops computing candidate result `r` of `op`, inserted before `op`; returns the
/// new value.
fn build(
    f: &mut Function,
    op: Op,
    d: &pyjit_ir::OpData,
    k: Kind,
    cand: &HashMap<Value, Kind>,
    get: &dyn Fn(Value) -> Value,
) -> Value {
    let span = d.span;
    let insert = |f: &mut Function, kind: OpKind, operands: &[Value], ty: Type| -> Value {
        let o = f.create_op(kind, operands, &[ty], &[], span);
        f.insert_op_before(op, o);
        f.result(o)
    };
    let num = |f: &mut Function, v: Value, p: Prec| -> Value {
        if cand.contains_key(&v) {
            return get(v);
        }
        match number(f, v, p) {
            Some(Num::Const(x)) => insert(f, OpKind::Const(Const::Float(x)), &[], Type::Float),
            _ => v,
        }
    };
    let form = form(f, op).expect("checked by def_ok");
    match (form, k) {
        (Form::Subscript, _) => {
            let (t, l) = (d.operands[0], d.operands[1]);
            let mut operands = vec![t];
            operands.extend(int_subscript(f, t, l).expect("checked by def_ok"));
            insert(f, OpKind::TensorLoad, &operands, Type::Float)
        }
        (Form::NpElement, _) => {
            let ix = f.defining_op(d.operands[0]).expect("checked by def_ok");
            let [t, l] = f.op(ix).operands[..] else {
                unreachable!("checked by def_ok")
            };
            let mut operands = vec![t];
            operands.extend(int_subscript(f, t, l).expect("checked by def_ok"));
            insert(f, OpKind::TensorLoad, &operands, Type::Float)
        }
        (Form::Make, Kind::Float(p)) => {
            let s = num(f, d.operands[0], p);
            insert(f, OpKind::Elem(ElemFn::Cast, p), &[s], Type::Float)
        }
        (Form::Elem { f: ef, swap, .. }, Kind::Float(p)) => {
            let mut args: Vec<Value> = d.operands[..ef.arity()]
                .iter()
                .map(|&v| num(f, v, p))
                .collect();
            if swap {
                args.swap(0, 1);
            }
            insert(f, OpKind::Elem(ef, p), &args, Type::Float)
        }
        (Form::Cmp(c), Kind::Bool) => {
            let (x, y) = (d.operands[0], d.operands[1]);
            let p = cmp_prec(cand, x, y).unwrap_or(Prec::F64);
            let side = |f: &mut Function, v: Value| {
                let s = num(f, v, p);
                if cand.contains_key(&v) {
                    s
                } else {
                    insert(f, OpKind::Elem(ElemFn::Cast, p), &[s], Type::Float)
                }
            };
            let (a, b) = (side(f, x), side(f, y));
            insert(f, OpKind::FloatCmp(c), &[a, b], Type::Bool)
        }
        _ => unreachable!("def_ok pairs forms with kinds"),
    }
}
