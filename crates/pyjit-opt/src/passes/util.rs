//! Facts and surgery shared by the passes: effects of ops and regions, constants, scopes, moving
//! and cloning ops inside one function, and removing `if`/`loop` result slots.

use super::PassCtx;
use pyjit_ir::{
    CastOp, Const, FloatBinOp, Function, IndexKind, IntBinOp, Op, OpKind, Region, Type, Uses,
    Value, ValueDef,
};
use std::collections::HashMap;

/// The constant a value is defined by, if its definition is a `const` op.
pub fn const_of(f: &Function, v: Value) -> Option<&Const> {
    let op = f.defining_op(v)?;
    match &f.op(op).kind {
        OpKind::Const(c) => Some(c),
        _ => None,
    }
}

/// `pub fn NAME(f, v) -> Option<T>`: the value of the constant `v` is defined by, when it is a
/// `Const::VARIANT`.
macro_rules! const_getter {
    ($($name:ident: $variant:ident -> $t:ty;)*) => {$(
        pub fn $name(f: &Function, v: Value) -> Option<$t> {
            match const_of(f, v)? {
                Const::$variant(x) => Some(*x),
                _ => None,
            }
        }
    )*};
}

const_getter! {
    const_int: Int -> i64;
    const_bool: Bool -> bool;
    const_float: Float -> f64;
}

/// The region a value is defined in (the region of its defining op, or the region it is a
/// parameter of). `None` for the result of a detached op.
pub fn def_region(f: &Function, v: Value) -> Option<Region> {
    match f.value_def(v) {
        ValueDef::Result(op, _) => f.op(op).parent,
        ValueDef::Param(r, _) => Some(r),
    }
}

/// Whether `v` is defined inside `region` (or a region nested in it).
pub(crate) fn defined_within(f: &Function, v: Value, region: Region) -> bool {
    def_region(f, v).is_some_and(|r| f.region_is_within(r, region))
}

/// [`is_attached`] for a pass that checks every op of a walk: regions found attached are
/// remembered until an op is next detached ([`Function::detach_epoch`]), so between removals
/// each region's ancestors are walked once, not once per op (an `elif` chain nests its ops
/// thousands of regions deep).
pub(crate) struct AttachCheck {
    epoch: u64,
    known: pyjit_ir::SecondaryMap<Region, bool>,
    path: Vec<Region>,
}

impl AttachCheck {
    pub fn new(f: &Function) -> AttachCheck {
        AttachCheck {
            epoch: f.detach_epoch(),
            known: pyjit_ir::SecondaryMap::with_capacity(f.regions.len()),
            path: Vec::new(),
        }
    }

    /// Keeps what is known across the removals made since the last [`AttachCheck::check`],
    /// when they removed only the op just checked, in a pre-order walk: none of its regions has
    /// been checked yet, so every region known to be attached still is.
    pub fn removed_current(&mut self, f: &Function) {
        self.epoch = f.detach_epoch();
    }

    pub fn check(&mut self, f: &Function, op: Op) -> bool {
        if self.epoch != f.detach_epoch() {
            self.epoch = f.detach_epoch();
            self.known.clear();
        }
        self.path.clear();
        let mut op = op;
        let attached = loop {
            let Some(r) = f.op(op).parent else {
                break false;
            };
            if r == f.body || self.known[r] {
                break true;
            }
            self.path.push(r);
            match f.regions[r].parent {
                Some(owner) => op = owner,
                None => break false,
            }
        };
        if attached {
            for &r in &self.path {
                self.known[r] = true;
            }
        }
        attached
    }
}

/// Whether an op is still attached to the function body (directly or through its ancestors).
pub(crate) fn is_attached(f: &Function, mut op: Op) -> bool {
    loop {
        let Some(r) = f.op(op).parent else {
            return false;
        };
        if r == f.body {
            return true;
        }
        match f.regions[r].parent {
            Some(owner) => op = owner,
            None => return false,
        }
    }
}

/// Whether a value of this type can be (or contain) a mutable object: a tensor, a list or a
/// dict.
pub(crate) fn is_mutable_type(t: &Type) -> bool {
    match t {
        Type::Tensor(_) | Type::List(_) | Type::Dict(..) => true,
        Type::Tuple(ts) => ts.iter().any(is_mutable_type),
        Type::Optional(t) => is_mutable_type(t),
        _ => false,
    }
}

/// Whether the op's result depends on the current contents of a mutable operand (a tensor's
/// elements or shape, a list's items), so that a write between two evaluations can change it.
pub(crate) fn reads_memory(f: &Function, op: Op) -> bool {
    let data = f.op(op);
    match &data.kind {
        OpKind::ListGet
        | OpKind::ListLen
        | OpKind::DictGet
        | OpKind::DictContains
        | OpKind::DictLen
        | OpKind::DictKeys
        | OpKind::DictValues
        | OpKind::DictItems
        | OpKind::Tensor(_)
        | OpKind::TensorLoad
        | OpKind::Call(_) => true,
        OpKind::StrOf(_) | OpKind::StrNumPy | OpKind::Print => data
            .operands
            .iter()
            .any(|&v| is_mutable_type(f.value_type(v))),
        _ => false,
    }
}

/// Whether any op in region `r` (recursively) writes memory.
pub(crate) fn region_writes_memory(f: &Function, r: Region) -> bool {
    let mut writes = false;
    f.walk_region(r, &mut |op| writes |= f.op(op).kind.writes_memory());
    writes
}

/// Whether the whole function is free of memory writes: then tensors and lists never change
/// after they are built, and fresh objects may be shared.
pub(crate) fn function_writes_memory(f: &Function) -> bool {
    region_writes_memory(f, f.body)
}

/// Tensor ops that cannot fail on these operands, judged from the types the specializer
/// refined (dtype, rank, dims) and constant arguments. Everything else may raise.
fn tensor_op_cannot_raise(f: &Function, op: Op, id: pyjit_ir::OpId) -> bool {
    use pyjit_ir::DType;
    use pyjit_ir::schema::MayRaise;
    let name = pyjit_ir::schema::op_name(id);
    let data = f.op(op);
    let tt = data
        .operands
        .first()
        .and_then(|&x| f.value_type(x).as_tensor());
    let dtype = tt.and_then(|t| t.dtype);
    let rank = tt.and_then(|t| t.rank).map(i64::from);
    let is_float = matches!(dtype, Some(DType::Float32 | DType::Float64));
    let is_num = is_float || matches!(dtype, Some(DType::Int64 | DType::Int32));
    let dim_ok = |v: Value| match (rank, const_int(f, v)) {
        (Some(r), Some(d)) if r >= 1 => (-r..r).contains(&d),
        _ => false,
    };
    let number = |v: Value| matches!(f.value_type(v), Type::Int | Type::Float);
    // What the op's record says, refined with what the IR knows (constant dims and shapes).
    match pyjit_ir::schema::facts(id).may_raise {
        MayRaise::Never => return true,
        MayRaise::NeverOnFloat => return is_float,
        MayRaise::NeverOnNumbers => {
            let s = pyjit_ir::schema::schema(id);
            return is_num
                && data.operands.iter().enumerate().skip(1).all(|(i, &v)| {
                    let is_f = f.value_type(v) == &Type::Float;
                    number(v) && pyjit_ir::schema::number_operand_ok(s, i, is_float, is_f)
                });
        }
        MayRaise::Maybe => {}
    }
    match name.as_str() {
        "size.int" => dim_ok(data.operands[1]),
        "transpose.int" => dim_ok(data.operands[1]) && dim_ok(data.operands[2]),
        "t" => rank.is_some_and(|r| r <= 2),
        "reshape" => {
            let numel = tt.and_then(|t| t.dims.as_ref()).and_then(|d| {
                d.iter()
                    .try_fold(1i64, |acc, x| x.and_then(|x| acc.checked_mul(x as i64)))
            });
            let shape = f.defining_op(data.operands[1]).and_then(|d| {
                (f.op(d).kind == OpKind::ListNew)
                    .then(|| {
                        f.op(d)
                            .operands
                            .iter()
                            .map(|&x| const_int(f, x))
                            .collect::<Option<Vec<i64>>>()
                    })
                    .flatten()
            });
            match (numel, shape) {
                (Some(n), Some(s)) => valid_reshape(&s, n),
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether `shape` (with at most one −1) is a valid `reshape` target for `numel` elements.
pub(crate) fn valid_reshape(shape: &[i64], numel: i64) -> bool {
    let infer = shape.iter().filter(|&&d| d == -1).count();
    if infer > 1 || shape.iter().any(|&d| d < -1) {
        return false;
    }
    let known: i64 = shape.iter().filter(|&&d| d != -1).product();
    if infer == 1 {
        known != 0 && numel % known == 0
    } else {
        known == numel
    }
}

/// Whether this op itself (not counting ops nested in its regions) may raise, refined with
/// constant operands: `a // 3` cannot raise, `a // b` can.
pub(crate) fn op_may_raise(f: &Function, op: Op) -> bool {
    let data = f.op(op);
    let c = |i: usize| data.operands.get(i).and_then(|&v| const_of(f, v));
    match &data.kind {
        OpKind::If | OpKind::Loop => false,
        OpKind::IntBin(IntBinOp::FloorDiv | IntBinOp::Mod) => {
            !matches!(c(1), Some(Const::Int(d)) if *d != 0)
        }
        OpKind::IntBin(IntBinOp::Pow | IntBinOp::Shl | IntBinOp::Shr) => {
            !matches!(c(1), Some(Const::Int(d)) if *d >= 0)
        }
        OpKind::IntTrueDiv => !matches!(c(1), Some(Const::Int(d)) if *d != 0),
        OpKind::FloatBin(FloatBinOp::Div | FloatBinOp::FloorDiv | FloatBinOp::Mod) => {
            !matches!(c(1), Some(Const::Float(d)) if *d != 0.0)
        }
        OpKind::Cast(CastOp::FloatToInt) => {
            !matches!(c(0), Some(Const::Float(x)) if pyjit_value::scalar::float_to_int(*x).is_ok())
        }
        OpKind::Index(IndexKind::Slice) => !matches!(c(2), Some(Const::Int(d)) if *d != 0),
        OpKind::StrOf(spec) => !spec.is_empty(),
        OpKind::Tensor(id) => !tensor_op_cannot_raise(f, op, *id),
        k => k.may_raise(),
    }
}

/// Whether this op itself has side effects (regions not counted; `yield` counts).
pub(crate) fn op_has_side_effects(f: &Function, op: Op) -> bool {
    match &f.op(op).kind {
        OpKind::If | OpKind::Loop => false,
        k => k.has_side_effects(),
    }
}

/// The largest trip count of a loop we accept as "terminates" when deleting it.
const BOUNDED_TRIP: i64 = 1 << 32;

/// Whether running the op (and everything in its regions) has no observable effect besides its
/// results: no side effects, no possible error, and it terminates. Such an op may be deleted
/// when its results are unused, or run speculatively.
pub(crate) fn is_effect_free(f: &Function, op: Op) -> bool {
    let mut free = true;
    f.walk_region_from_op(op, &mut |o| {
        let data = f.op(o);
        match data.kind {
            OpKind::Yield => {}
            OpKind::Loop => {
                let bounded = const_int(f, data.operands[0]).is_some_and(|n| n <= BOUNDED_TRIP)
                    || const_bool(f, data.operands[1]) == Some(false);
                free &= bounded;
            }
            _ => free &= !op_has_side_effects(f, o) && !op_may_raise(f, o),
        }
    });
    free
}

/// Extension: walking from one op.
pub(crate) trait WalkExt {
    /// Calls `g` on `op` and every op nested in its regions.
    fn walk_region_from_op(&self, op: Op, g: &mut dyn FnMut(Op));
    /// Number of ops in a region, nested ones included.
    fn region_size(&self, r: Region) -> usize;
    /// Number of ops of an op, itself and nested ones included.
    fn op_size(&self, op: Op) -> usize;
}

impl WalkExt for Function {
    fn walk_region_from_op(&self, op: Op, g: &mut dyn FnMut(Op)) {
        g(op);
        for &r in &self.op(op).regions {
            self.walk_region(r, &mut |o| g(o));
        }
    }

    fn region_size(&self, r: Region) -> usize {
        let mut n = 0;
        self.walk_region(r, &mut |_| n += 1);
        n
    }

    fn op_size(&self, op: Op) -> usize {
        let mut n = 0;
        self.walk_region_from_op(op, &mut |_| n += 1);
        n
    }
}

/// Number of attached ops of a module.
pub fn module_op_count(m: &pyjit_ir::Module) -> usize {
    m.funcs.values().map(|f| f.region_size(f.body)).sum()
}

/// The `loop` ops of `f`, every inner loop before the loop containing it (reversed pre-order).
pub fn loops_innermost_first(f: &Function) -> Vec<Op> {
    let mut loops: Vec<Op> = f
        .all_ops()
        .into_iter()
        .filter(|&op| f.op(op).kind == OpKind::Loop)
        .collect();
    loops.reverse();
    loops
}

/// Moves every op of `region` but its terminator just before `anchor` (same order) and returns
/// the terminator's operands. The region is left holding only its terminator.
pub(crate) fn splice_region_before(f: &mut Function, region: Region, anchor: Op) -> Vec<Value> {
    let ops = f.regions[region].ops.clone();
    let Some((&term, body)) = ops.split_last() else {
        return Vec::new();
    };
    for &op in body {
        f.remove_op(op);
        f.insert_op_before(anchor, op);
    }
    f.op(term).operands.clone()
}

/// Removes result `index` of `op` (it must be unused), renumbering the later results.
pub(crate) fn remove_result(f: &mut Function, op: Op, index: usize) {
    f.op_mut(op).results.remove(index);
    for (i, v) in f.op(op).results.clone().into_iter().enumerate().skip(index) {
        f.values[v].def = ValueDef::Result(op, i as u32);
    }
}

/// Removes parameter `index` of region `r` (it must be unused), renumbering the later ones.
pub(crate) fn remove_region_param(f: &mut Function, r: Region, index: usize) {
    f.regions[r].params.remove(index);
    for (i, v) in f.regions[r]
        .params
        .clone()
        .into_iter()
        .enumerate()
        .skip(index)
    {
        f.values[v].def = ValueDef::Param(r, i as u32);
    }
}

/// Applies a value substitution (followed transitively) to every attached op's operands.
pub(crate) fn apply_substitution(f: &mut Function, subst: &HashMap<Value, Value>) {
    if subst.is_empty() {
        return;
    }
    for op in f.all_ops() {
        for v in &mut f.ops[op].operands {
            *v = resolve(subst, *v);
        }
    }
}

/// Follows a substitution chain to its end.
pub fn resolve(subst: &HashMap<Value, Value>, mut v: Value) -> Value {
    let mut steps = 0;
    while let Some(&n) = subst.get(&v) {
        if n == v || steps > subst.len() {
            break;
        }
        v = n;
        steps += 1;
    }
    v
}

/// Where a pass's rewrites of single results go: at once, through the exact [`Uses`] index of the
/// function (which stays exact), or deferred, through [`Edits`].
pub(crate) trait Rewriter {
    /// Every use of `from` becomes a use of `to`.
    fn replace_value(&mut self, f: &mut Function, from: Value, to: Value);
    /// Deletes the attached `op`, whose results have no uses left.
    fn drop_op(&mut self, f: &mut Function, op: Op);
    /// Inserts a `const` before `anchor` with `anchor`'s span and returns its value.
    fn insert_const(&mut self, f: &mut Function, anchor: Op, c: Const) -> Value;
}

impl Rewriter for Uses {
    fn replace_value(&mut self, f: &mut Function, from: Value, to: Value) {
        self.replace_uses(f, from, to);
    }

    fn drop_op(&mut self, f: &mut Function, op: Op) {
        self.remove_op(f, op);
    }

    fn insert_const(&mut self, f: &mut Function, anchor: Op, c: Const) -> Value {
        // A `const` has no operands: inserting it changes no use list.
        insert_const_before(f, anchor, c)
    }
}

impl Rewriter for Edits {
    fn replace_value(&mut self, _: &mut Function, from: Value, to: Value) {
        self.replace_uses(from, to);
    }

    /// Detaches `op` in O(1).
    fn drop_op(&mut self, f: &mut Function, op: Op) {
        f.detach_op(op);
    }

    fn insert_const(&mut self, f: &mut Function, anchor: Op, c: Const) -> Value {
        let k = const_op(f, anchor, c);
        self.insert_before(f, anchor, k);
        f.result(k)
    }
}

/// Replaces the single result of `op` by `to` and deletes `op`, if the budget allows (counted
/// in `removed`); false, changing nothing, when `op` has not exactly one result or the budget ran
/// out.
pub(crate) fn forward_result(
    f: &mut Function,
    rw: &mut impl Rewriter,
    op: Op,
    to: Value,
    ctx: &mut PassCtx,
) -> bool {
    let Some(r) = replaceable_result(f, op, None, ctx) else {
        return false;
    };
    rw.replace_value(f, r, to);
    rw.drop_op(f, op);
    ctx.stats.removed += 1;
    true
}

/// [`forward_result`] to the constant `c` (inserted before `op`); false, changing nothing, when
/// `c` does not have the result's type.
pub(crate) fn replace_with_const(
    f: &mut Function,
    rw: &mut impl Rewriter,
    op: Op,
    c: Const,
    ctx: &mut PassCtx,
) -> bool {
    let Some(r) = replaceable_result(f, op, Some(&c.ty()), ctx) else {
        return false;
    };
    let v = rw.insert_const(f, op, c);
    rw.replace_value(f, r, v);
    rw.drop_op(f, op);
    ctx.stats.removed += 1;
    true
}

/// The single result of `op` when it may be replaced (by a value of type `ty`, when given) and
/// the budget allows it (checked last, so only a replacement that happens counts).
fn replaceable_result(f: &Function, op: Op, ty: Option<&Type>, ctx: &mut PassCtx) -> Option<Value> {
    let &[r] = f.results(op) else {
        return None;
    };
    if ty.is_some_and(|t| t != f.value_type(r)) || !ctx.allow() {
        return None;
    }
    Some(r)
}

/// Inserts a `const` before `anchor` with `anchor`'s span and returns its value.
pub(crate) fn insert_const_before(f: &mut Function, anchor: Op, c: Const) -> Value {
    let op = const_op(f, anchor, c);
    f.insert_op_before(anchor, op);
    f.result(op)
}

/// A detached `const` op with `anchor`'s span.
fn const_op(f: &mut Function, anchor: Op, c: Const) -> Op {
    let ty = c.ty();
    let span = f.op(anchor).span;
    f.create_op(OpKind::Const(c), &[], &[ty], &[], span)
}

/// Rewrites a pass makes during one pre-order walk, applied in bulk: each eager
/// [`Function::replace_uses`] walks the whole function and each [`Function::insert_op_before`] /
/// [`Function::remove_op`] costs the length of the region, so a pass doing them per op is
/// quadratic in a long function.
///
/// The walk calls [`Edits::resolve_operands`] on each op before looking at it: a value is used
/// only after its definition (pre-order), so every op the walk reaches sees the substitutions
/// made before it, exactly as if they had been applied eagerly. Operands of ops the walk has not
/// reached yet (say, the yields of an `if`'s branches, read while visiting the `if`) must be
/// read through [`Edits::resolve`]. [`Edits::finish`] applies everything before anything else
/// walks the function.
#[derive(Default)]
pub(crate) struct Edits {
    subst: HashMap<Value, Value>,
    /// Per anchor op: its region and the new ops to insert just before it, in order.
    inserts: HashMap<Op, (Region, Vec<Op>)>,
    regions: Vec<Region>,
}

impl Edits {
    /// `v` after the substitutions made so far.
    pub fn resolve(&self, v: Value) -> Value {
        resolve(&self.subst, v)
    }

    /// Applies the substitutions made so far to `op`'s operands.
    pub fn resolve_operands(&self, f: &mut Function, op: Op) {
        if self.subst.is_empty() {
            return;
        }
        for v in &mut f.ops[op].operands {
            *v = resolve(&self.subst, *v);
        }
    }

    /// Every later use of `from` becomes a use of `to` ([`Function::replace_uses`], deferred).
    pub fn replace_uses(&mut self, from: Value, to: Value) {
        let to = self.resolve(to);
        if to != from {
            self.subst.insert(from, to);
        }
    }

    /// Inserts the detached `op` just before the attached `anchor`. It counts as attached at
    /// once (its `parent` is set); it joins its region's op list in [`Edits::finish`].
    pub fn insert_before(&mut self, f: &mut Function, anchor: Op, op: Op) {
        let Some(r) = f.ops[anchor].parent else {
            return;
        };
        f.ops[op].parent = Some(r);
        self.inserts
            .entry(anchor)
            .or_insert_with(|| (r, Vec::new()))
            .1
            .push(op);
        self.regions.push(r);
    }

    /// Applies the insertions, removals and substitutions: one pass over each region concerned
    /// and one over the function.
    pub fn finish(mut self, f: &mut Function) {
        self.regions.sort_unstable();
        self.regions.dedup();
        for r in std::mem::take(&mut self.regions) {
            let old = std::mem::take(&mut f.regions[r].ops);
            let mut new = Vec::with_capacity(old.len());
            for op in old {
                if let Some((_, ins)) = self.inserts.remove(&op) {
                    new.extend(ins);
                }
                new.push(op);
            }
            f.regions[r].ops = new;
        }
        f.flush_detached();
        apply_substitution(f, &self.subst);
    }
}
