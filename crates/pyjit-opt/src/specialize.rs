//! Signature specialization: refine a generic function's tensor types for one call signature.
//!
//! Scripted IR types every tensor as plain `Tensor`. Given the types of the arguments of one call
//! (for tensors: dtype and rank, the code-cache key; optionally known dims), this pass propagates
//! facts forward through every op:
//!
//! - tensor ops: the runtime schema's [`infer`] rules (type promotion, reductions' rank, matmul
//!   forms …), given each operand as a typed tensor, a compile-time constant (a `const` op, or a
//!   `list.new`/`tuple.new` of constants) or a scalar of known kind — and only when every operand
//!   is described so (one tensor of unknown rank leaves the result generic);
//! - `if`: each result is the *join* (the facts both branches agree on) of the two yields; a
//!   branch that ends in `raise` contributes nothing;
//! - `loop`: carried values are iterated to a fixpoint (join of the initial values and what the
//!   body yields), which terminates because each tensor fact can only be lost, never regained;
//! - tuples keep element types; `opt.wrap`/`opt.unwrap` wrap and unwrap;
//! - lists keep their declared element type: a list can be appended to after it is built, so
//!   facts about its elements at construction do not hold for later reads;
//! - calls keep the callee's declared return type (specialization is per function).
//!
//! The pass never fails on a program that may raise at run time: when the schema's inference
//! rejects an op (say, a shape mismatch it can already see), the result stays generic and the
//! error is left to run time. It fails only when the signature does not fit the parameters.

use pyjit_ir::{
    EntityRef, FuncId, Function, Module, Op, OpKind, Region, TensorType, Type, Value as IrValue,
};
use pyjit_runtime::schema::{ArgInfo, TensorInfo, TypeInfo, infer};
use pyjit_runtime::value::Value as RtValue;
use std::collections::HashSet;

/// Why a function cannot be specialized for a signature.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct SpecializeError(pub String);

/// The facts both types hold (the least upper bound): what is known about a value that may be
/// either. `None` when the types are not two versions of one static type.
pub fn join(a: &Type, b: &Type) -> Option<Type> {
    Some(match (a, b) {
        (Type::Tensor(x), Type::Tensor(y)) => Type::Tensor(join_tensor(x, y)),
        (Type::Tuple(xs), Type::Tuple(ys)) if xs.len() == ys.len() => Type::Tuple(
            xs.iter()
                .zip(ys)
                .map(|(x, y)| join(x, y))
                .collect::<Option<Vec<_>>>()?,
        ),
        (Type::Optional(x), Type::Optional(y)) => Type::optional(join(x, y)?),
        (Type::List(x), Type::List(y)) => Type::list(join(x, y)?),
        (Type::Dict(kx, x), Type::Dict(ky, y)) if kx == ky => {
            Type::dict((**kx).clone(), join(x, y)?)
        }
        (x, y) if x == y => x.clone(),
        _ => return None,
    })
}

fn join_tensor(x: &TensorType, y: &TensorType) -> TensorType {
    let dtype = if x.dtype == y.dtype { x.dtype } else { None };
    let rank = if x.rank == y.rank { x.rank } else { None };
    let dims = match (&x.dims, &y.dims) {
        (Some(a), Some(b)) if a.len() == b.len() => Some(
            a.iter()
                .zip(b)
                .map(|(p, q)| if p == q { *p } else { None })
                .collect(),
        ),
        _ => None,
    };
    TensorType { dtype, rank, dims }
}

/// `declared` with the facts of `fact` added where they are compatible; `declared` itself
/// otherwise. Used to keep every refined type assignable to what the frontend declared.
fn refine(declared: &Type, fact: &Type) -> Type {
    match (declared, fact) {
        (Type::Tensor(d), Type::Tensor(f)) => Type::Tensor(d.meet(f).unwrap_or_else(|| d.clone())),
        (Type::Tuple(ds), Type::Tuple(fs)) if ds.len() == fs.len() => {
            Type::Tuple(ds.iter().zip(fs).map(|(d, f)| refine(d, f)).collect())
        }
        (Type::Optional(d), Type::Optional(f)) => Type::optional(refine(d, f)),
        (Type::Optional(d), f) if !matches!(f, Type::None) => Type::optional(refine(d, f)),
        _ => declared.clone(),
    }
}

/// Specializes function `func` of `module` for arguments of types `args` (one per parameter;
/// each must be a refinement of the declared parameter type). Returns the refined copy; the
/// module is unchanged.
pub fn specialize(
    module: &Module,
    func: FuncId,
    args: &[Type],
) -> Result<Function, SpecializeError> {
    let generic = module
        .funcs
        .get(func)
        .ok_or_else(|| SpecializeError(format!("no function {func}")))?;
    let mut f = generic.compacted();
    let params = f.params().to_vec();
    if params.len() != args.len() {
        return Err(SpecializeError(format!(
            "{}() takes {} argument(s) but the signature has {}",
            f.name,
            params.len(),
            args.len()
        )));
    }
    let names = f.param_names.clone();
    for ((&p, a), name) in params.iter().zip(args).zip(&names) {
        let declared = f.value_type(p).clone();
        if !a.is_assignable_to(&declared) {
            return Err(SpecializeError(format!(
                "parameter `{name}` is declared {declared}; the signature gives {a}"
            )));
        }
        f.set_value_type(p, refine(&declared, a));
    }
    let declared: Vec<Type> = f.values.values().map(|v| v.ty.clone()).collect();
    let mut s = Specializer {
        bottom: HashSet::new(),
        escaping: escaping_values(&f),
        declared,
        returns: Vec::new(),
    };
    let body = f.body;
    s.region(&mut f, body);
    if let Some(first) = s.returns.first().cloned() {
        let joined = s
            .returns
            .iter()
            .skip(1)
            .try_fold(first, |acc, t| join(&acc, t));
        if let Some(t) = joined {
            f.ret = refine(&f.ret, &t);
        }
    }
    Ok(f)
}

struct Specializer {
    /// Loop parameters currently known to carry only placeholders (see [`Fact`]).
    bottom: HashSet<IrValue>,
    /// See [`escaping_values`].
    escaping: HashSet<IrValue>,
    /// The type every value had before specialization (refinements never go below these).
    declared: Vec<Type>,
    /// Types of the `return` operands seen.
    returns: Vec<Type>,
}

/// What is known about a value: `None` is "nothing can flow here" (bottom): an `undef()`
/// placeholder, which is never read, or a loop-carried value that so far has only been one.
/// Joining bottom with a type gives that type, so placeholders do not erase facts.
type Fact = Option<Type>;

/// The yielded facts of a region, or `None` when it cannot finish normally (ends in `raise`).
type Yielded = Option<Vec<Fact>>;

fn join_facts(a: &Fact, b: &Fact) -> Fact {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        // Two versions of one declared type always join; keep the first if they somehow do not.
        (Some(x), Some(y)) => Some(join(x, y).unwrap_or_else(|| x.clone())),
    }
}

impl Specializer {
    fn set(&self, f: &mut Function, v: IrValue, fact: &Type) {
        let declared = &self.declared[v.index()];
        f.set_value_type(v, refine(declared, fact));
    }

    fn fact(&self, f: &Function, v: IrValue) -> Fact {
        let undef = f
            .defining_op(v)
            .is_some_and(|op| f.op(op).kind == OpKind::Undef);
        if undef || self.bottom.contains(&v) {
            None
        } else {
            Some(f.value_type(v).clone())
        }
    }

    fn region(&mut self, f: &mut Function, r: Region) -> Yielded {
        pyjit_syntax::grow(|| self.region_unbounded(f, r))
    }

    fn region_unbounded(&mut self, f: &mut Function, r: Region) -> Yielded {
        let ops = f.region_ops(r).to_vec();
        for op in ops {
            let kind = f.op(op).kind.clone();
            match kind {
                OpKind::Yield => {
                    let facts = f.op(op).operands.iter().map(|&v| self.fact(f, v)).collect();
                    return Some(facts);
                }
                OpKind::Return => {
                    if let Some(&v) = f.op(op).operands.first() {
                        self.returns.push(f.value_type(v).clone());
                    }
                    return None;
                }
                OpKind::Raise(_) => return None,
                _ => self.op(f, op, &kind),
            }
        }
        None
    }

    fn op(&mut self, f: &mut Function, op: Op, kind: &OpKind) {
        let data = f.op(op).clone();
        // Start from the declared types: inside a loop this op is visited once per fixpoint
        // round, and a fact from an earlier round may no longer hold.
        for &r in &data.results {
            let d = self.declared[r.index()].clone();
            f.set_value_type(r, d);
        }
        let operand =
            |f: &Function, i: usize| data.operands.get(i).map(|&v| f.value_type(v).clone());
        match kind {
            OpKind::Tensor(id) => {
                let infos: Vec<ArgInfo> = data
                    .operands
                    .iter()
                    .map(|&v| arg_info(f, &self.escaping, v))
                    .collect();
                // The schema's rules assume every operand is described; given an unknown one
                // (a tensor of unknown rank, a list of unknown length) they may still answer,
                // for the operands they do see. Such an answer is not a fact.
                if let Some(t) = subscript_type(f, &self.escaping, *id, &data.operands) {
                    self.set(f, data.results[0], &t);
                } else if infos.iter().all(is_described)
                    && let Ok(out) = infer(*id, &infos)
                {
                    let dims = result_dims(f, *id, &data.operands);
                    for (&r, t) in data.results.iter().zip(out) {
                        if let Some(t) = type_of_info(&t) {
                            self.set(f, r, &with_dims(t, dims.as_ref()));
                        }
                    }
                }
            }
            OpKind::Select => {
                if let (Some(a), Some(b)) = (operand(f, 1), operand(f, 2))
                    && let Some(t) = join(&a, &b)
                {
                    self.set(f, data.results[0], &t);
                }
            }
            OpKind::TupleNew => {
                let t = Type::Tuple(
                    data.operands
                        .iter()
                        .map(|&v| f.value_type(v).clone())
                        .collect(),
                );
                self.set(f, data.results[0], &t);
            }
            OpKind::TupleGet(i) => {
                if let Some(Type::Tuple(ts)) = operand(f, 0)
                    && let Some(t) = ts.get(*i as usize)
                {
                    self.set(f, data.results[0], t);
                }
            }
            OpKind::OptWrap => {
                if let Some(t) = operand(f, 0) {
                    self.set(f, data.results[0], &Type::optional(t));
                }
            }
            OpKind::OptUnwrap => {
                if let Some(Type::Optional(t)) = operand(f, 0) {
                    self.set(f, data.results[0], &t);
                }
            }
            OpKind::If => {
                let a = self.region(f, data.regions[0]);
                let b = self.region(f, data.regions[1]);
                let joined: Option<Vec<Fact>> = match (a, b) {
                    (Some(a), Some(b)) => {
                        Some(a.iter().zip(&b).map(|(x, y)| join_facts(x, y)).collect())
                    }
                    (Some(t), None) | (None, Some(t)) => Some(t),
                    (None, None) => None,
                };
                for (&r, t) in data.results.iter().zip(joined.iter().flatten()) {
                    if let Some(t) = t {
                        self.set(f, r, t);
                    }
                }
            }
            OpKind::Loop => self.loop_op(f, &data),
            _ => {}
        }
    }

    fn loop_op(&mut self, f: &mut Function, data: &pyjit_ir::OpData) {
        let body = data.regions[0];
        let params = f.region_params(body).to_vec();
        let mut carried: Vec<Fact> = data.operands[2..]
            .iter()
            .map(|&v| self.fact(f, v))
            .collect();
        // Each round can only lose facts (bottom → a type → fewer facts), and a type has
        // finitely many; the bound is a guard against a bug, after which everything falls back
        // to the declared types.
        for _ in 0..64 {
            for (&p, t) in params[1..].iter().zip(&carried) {
                match t {
                    Some(t) => {
                        self.bottom.remove(&p);
                        self.set(f, p, t);
                    }
                    None => {
                        self.bottom.insert(p);
                        let d = self.declared[p.index()].clone();
                        f.set_value_type(p, d);
                    }
                }
            }
            let yielded = self.region(f, body);
            let next: Vec<Fact> = match &yielded {
                Some(ys) if ys.len() == params.len() => carried
                    .iter()
                    .zip(&ys[1..])
                    .map(|(c, y)| join_facts(c, y))
                    .collect(),
                _ => carried.clone(),
            };
            if next == carried {
                for (&r, t) in data.results.iter().zip(&carried) {
                    if let Some(t) = t {
                        self.set(f, r, t);
                    }
                }
                return;
            }
            carried = next;
        }
        for &p in &params[1..] {
            self.bottom.remove(&p);
            let d = self.declared[p.index()].clone();
            f.set_value_type(p, d);
        }
    }
}

/// Whether an operand is described well enough for the schema's inference rules.
fn is_described(a: &ArgInfo) -> bool {
    !matches!(
        a,
        ArgInfo::Unknown | ArgInfo::IntList(None) | ArgInfo::TensorList(None)
    )
}

/// The type of `t[i, j:k, None]` (`tensor.index` of a `list.new` of `index.int`/`index.slice`/
/// `index.none` components, read only): the kinds of the components give the rank whatever
/// their values (an int takes a dim away, `None` adds one); the dtype is `t`'s. `None` for other
/// subscripts (tensor indices, `...`), for a tensor of unknown rank, or for too many indices
/// (left to the run-time error).
fn subscript_type(
    f: &Function,
    esc: &HashSet<IrValue>,
    id: pyjit_ir::OpId,
    operands: &[IrValue],
) -> Option<Type> {
    if pyjit_ir::schema::op_name(id) != "index" {
        return None;
    }
    let [t, l] = operands[..] else {
        return None;
    };
    let tt = f.value_type(t).as_tensor()?;
    let rank = tt.rank? as usize;
    let def = f.op(f.defining_op(l)?);
    if def.kind != OpKind::ListNew || !list_is_read_only(esc, l) {
        return None;
    }
    let (mut ints, mut slices, mut nones) = (0usize, 0usize, 0usize);
    for &c in &def.operands {
        match f.op(f.defining_op(c)?).kind {
            OpKind::Index(pyjit_ir::IndexKind::Int) => ints += 1,
            OpKind::Index(pyjit_ir::IndexKind::Slice) => slices += 1,
            OpKind::Index(pyjit_ir::IndexKind::None) => nones += 1,
            _ => return None,
        }
    }
    if ints + slices > rank {
        return None;
    }
    Some(Type::Tensor(TensorType::ranked(
        tt.dtype,
        (rank - ints + nones) as u32,
    )))
}

/// What the schema's inference needs to know about an operand.
fn arg_info(f: &Function, esc: &HashSet<IrValue>, v: IrValue) -> ArgInfo {
    if let Some(c) = constant(f, esc, v) {
        return ArgInfo::Known(c);
    }
    match f.value_type(v) {
        Type::Tensor(TensorType {
            dtype: Some(dtype),
            rank: Some(rank),
            ..
        }) => ArgInfo::Tensor(TensorInfo {
            dtype: *dtype,
            rank: *rank as usize,
        }),
        Type::Int => ArgInfo::Int,
        Type::Float => ArgInfo::Float,
        Type::Bool => ArgInfo::Bool,
        Type::List(e) if **e == Type::Int => ArgInfo::IntList(list_len(f, esc, v)),
        Type::Tuple(ts) if ts.iter().all(|t| *t == Type::Int) => ArgInfo::IntList(Some(ts.len())),
        Type::List(e) if e.is_tensor() => ArgInfo::TensorList(tensor_elems(f, esc, v)),
        Type::Tuple(ts) if !ts.is_empty() && ts.iter().all(Type::is_tensor) => {
            ArgInfo::TensorList(tensor_elems(f, esc, v))
        }
        _ => ArgInfo::Unknown,
    }
}

/// The value of `v` when it is a compile-time constant: a `const`, or a `list.new`/`tuple.new`
/// of int constants.
fn constant(f: &Function, esc: &HashSet<IrValue>, v: IrValue) -> Option<RtValue> {
    let op = f.op(f.defining_op(v)?);
    match &op.kind {
        OpKind::Const(c) => Some(c.to_runtime()),
        OpKind::ListNew | OpKind::TupleNew => {
            let ints = op
                .operands
                .iter()
                .map(|&e| match constant(f, esc, e)? {
                    RtValue::Int(i) => Some(i),
                    _ => None,
                })
                .collect::<Option<Vec<i64>>>()?;
            // A list literal can be appended to later; only its length at construction is a
            // fact, and only tuples are immutable. Lists are still passed as constants when
            // nothing but tensor ops read them, which the frontend guarantees for size literals.
            if op.kind == OpKind::ListNew && !list_is_read_only(esc, v) {
                return None;
            }
            Some(RtValue::IntList(ints))
        }
        _ => None,
    }
}

/// The values used by some op other than a tensor op, `list.len` or `list.get`: for a list,
/// the ones that may be mutated or aliased after construction. Computed once per function.
fn escaping_values(f: &Function) -> HashSet<IrValue> {
    let mut out = HashSet::new();
    for op in f.all_ops() {
        let d = f.op(op);
        if !matches!(
            d.kind,
            OpKind::Tensor(_) | OpKind::ListLen | OpKind::ListGet
        ) {
            out.extend(d.operands.iter().copied());
        }
    }
    out
}

/// Whether list `v` is only ever read (by tensor ops, `len`, indexing).
fn list_is_read_only(escaping: &HashSet<IrValue>, v: IrValue) -> bool {
    !escaping.contains(&v)
}

fn list_len(f: &Function, esc: &HashSet<IrValue>, v: IrValue) -> Option<usize> {
    let op = f.op(f.defining_op(v)?);
    (op.kind == OpKind::ListNew && list_is_read_only(esc, v)).then_some(op.operands.len())
}

fn tensor_elems(f: &Function, esc: &HashSet<IrValue>, v: IrValue) -> Option<Vec<TensorInfo>> {
    let op = f.op(f.defining_op(v)?);
    let immutable =
        op.kind == OpKind::TupleNew || (op.kind == OpKind::ListNew && list_is_read_only(esc, v));
    if !immutable {
        return None;
    }
    op.operands
        .iter()
        .map(|&e| match f.value_type(e) {
            Type::Tensor(TensorType {
                dtype: Some(dtype),
                rank: Some(rank),
                ..
            }) => Some(TensorInfo {
                dtype: *dtype,
                rank: *rank as usize,
            }),
            _ => None,
        })
        .collect()
}

/// The dims of a tensor op's (single) result when they follow from the operands' known dims:
/// broadcasting for elementwise ops and comparisons, the input's dims for scans and dtype
/// conversions, `self`'s dims for in-place ops. Other ops (reductions, shape ops, matmul …)
/// are left to the rank the schema infers; a 0-d result's dims are known anyway.
fn result_dims(
    f: &Function,
    id: pyjit_runtime::OpId,
    operands: &[IrValue],
) -> Option<Vec<Option<u64>>> {
    use pyjit_runtime::schema::OpKind as K;
    let schema = pyjit_runtime::schema::schema(id);
    let tensor_dims = |v: &IrValue| match f.value_type(*v) {
        Type::Tensor(t) => Some(t.dims.clone()),
        _ => None,
    };
    let first = || operands.first().and_then(tensor_dims).flatten();
    if schema.inplace {
        return first();
    }
    match schema.kind {
        K::Scan | K::Conversion if schema.returns.len() == 1 => first(),
        K::Elementwise | K::Comparison => {
            // Every tensor operand (scalars broadcast freely) must have known dims.
            let all: Option<Vec<Vec<Option<u64>>>> =
                operands.iter().filter_map(tensor_dims).collect();
            broadcast(&all?)
        }
        _ => None,
    }
}

/// NumPy/PyTorch broadcasting of known shapes (`None` for an unknown dim where it matters); `None`
/// when the shapes cannot broadcast (the op will raise at run time).
fn broadcast(shapes: &[Vec<Option<u64>>]) -> Option<Vec<Option<u64>>> {
    let rank = shapes.iter().map(Vec::len).max()?;
    let mut out = vec![Some(1u64); rank];
    for shape in shapes {
        let offset = rank - shape.len();
        for (i, &d) in shape.iter().enumerate() {
            let slot = &mut out[offset + i];
            *slot = match (*slot, d) {
                (Some(1), d) | (d, Some(1)) => d,
                (Some(a), Some(b)) if a == b => Some(a),
                (Some(_), Some(_)) => return None,
                // One side unknown: the result is the known side unless that side is 1 (handled
                // above); an unknown dim could still be 1, so the result may only be the other.
                (Some(a), None) | (None, Some(a)) => Some(a),
                (None, None) => None,
            };
        }
    }
    Some(out)
}

/// `t` with `dims`, when they agree with its rank; a rank-0 tensor's dims are `[]`.
fn with_dims(t: Type, dims: Option<&Vec<Option<u64>>>) -> Type {
    match t {
        Type::Tensor(tt) if tt.rank == Some(0) => {
            Type::Tensor(TensorType::shaped(tt.dtype, vec![]))
        }
        Type::Tensor(tt) => match dims {
            Some(d) if tt.rank == Some(d.len() as u32) => {
                Type::Tensor(TensorType::shaped(tt.dtype, d.clone()))
            }
            _ => Type::Tensor(tt),
        },
        other => other,
    }
}

fn type_of_info(t: &TypeInfo) -> Option<Type> {
    match t {
        TypeInfo::Tensor(i) => Some(Type::Tensor(TensorType::ranked(
            Some(i.dtype),
            i.rank as u32,
        ))),
        TypeInfo::Int => Some(Type::Int),
        TypeInfo::Float => Some(Type::Float),
        TypeInfo::Bool => Some(Type::Bool),
        // Lists stay as declared (see the module docs).
        TypeInfo::IntList | TypeInfo::TensorList(..) => None,
    }
}
