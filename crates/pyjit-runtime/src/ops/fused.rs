//! Fused elementwise groups: a small program of elementwise ops run tile by tile over the
//! output, so the intermediates of a chain (`tanh(x * 2 + y) * sigmoid(y) - 0.5 * x`) never
//! exist as whole tensors (docs/fusion.md).
//!
//! A [`Program`] is a list of [`Step`]s, each an op of the schema table whose arguments are the
//! group's inputs, earlier steps' results or constants. [`run`]:
//!
//! 1. **Checks before any work.** Every step is run once on one-element stand-ins of its
//!    tensor operands (same dtype and rank: a 0-d tensor stays 0-d, so type promotion sees
//!    exactly what the unfused op sees), which raises the unfused op's dtype error, if any, and
//!    gives the step's result dtype; then its shape is the broadcast of its tensor operands'
//!    shapes, with [`super::broadcast_all`]'s error. So a failing group raises the error of the
//!    first failing op, with its class and message, and does nothing else.
//! 2. **Tiles.** The output is cut into fixed tiles of [`TILE`] elements; for each tile every
//!    input of rank ≥ 1 is gathered (broadcast) into a 1-d tile, 0-d tensors and scalars are
//!    passed as they are, and the steps run through the same kernels ([`crate::dispatch::call`])
//!    as unfused ops, on tile-sized tensors that stay in the cache. Every element goes through
//!    the same kernel code with the same operand values as unfused, so results are
//!    bit-identical, and tiles are independent, so they do not depend on the thread count.
//!    Outputs of at least [`super::vmath::PAR_MIN`] elements spread their tiles over the pool.
//!
//! Groups below [`MIN_FUSED`] elements, and groups with an op whose errors depend on the
//! values (integer division and remainder check every divisor for zero first), run unfused:
//! each step on whole tensors, exactly as the unfused program would.

use super::vmath;
use crate::dispatch;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Result, RuntimeError};
use crate::schema::{self, ArgType, OpId};
use crate::tensor::{Tensor, check_alloc};
use crate::value::{Scalar, Value};
use ndarray::IxDyn;
use smallvec::SmallVec;
use std::marker::PhantomData;

/// Elements per tile: 16 Ki elements (64 KiB of float32 per live tile), so a chain's live tiles
/// stay in L2 while the per-tile dispatch cost stays well below the tile's work.
pub const TILE: usize = 1 << 14;

/// Outputs smaller than this run unfused (the per-group checks would cost more than the
/// memory traffic fusion saves).
pub const MIN_FUSED: usize = 1 << 15;

/// An argument of a step.
#[derive(Clone, Debug)]
pub enum Operand {
    /// The group's `i`-th input.
    Input(usize),
    /// The result of an earlier step.
    Step(usize),
    /// A constant (already converted to the parameter's type).
    Const(Value),
}

/// One op of a group: an elementwise schema op and its arguments in schema order.
#[derive(Clone, Debug)]
pub struct Step {
    pub op: OpId,
    pub args: Vec<Operand>,
}

/// A fused group: `inputs` values in, the last step's tensor out.
#[derive(Clone, Debug)]
pub struct Program {
    pub inputs: usize,
    pub steps: Vec<Step>,
}

/// Whether op `id` may be part of a fused group: a non-in-place elementwise or comparison op
/// of the schema table (or a dtype conversion to a given dtype) with one tensor result whose
/// shape is the broadcast of its tensor operands and whose every other parameter is a scalar,
/// string, dtype or optional of those. The one list of fusable ops: the fusion pass and the IR
/// verifier read it.
pub fn fusable(id: OpId) -> bool {
    let s = schema::schema(id);
    if s.inplace || s.returns.len() != 1 || s.returns[0].ty != ArgType::Tensor {
        return false;
    }
    let kind_ok = match s.kind {
        schema::OpKind::Elementwise | schema::OpKind::Comparison => true,
        schema::OpKind::Conversion => {
            matches!(
                s.name.as_str(),
                "to" | "float" | "double" | "long" | "int" | "bool"
            ) && s.overload != "other"
                && s.params.iter().filter(|p| p.ty == ArgType::Tensor).count() == 1
        }
        _ => false,
    };
    fn simple(t: &ArgType) -> bool {
        match t {
            ArgType::Tensor
            | ArgType::Scalar
            | ArgType::Int
            | ArgType::Float
            | ArgType::Bool
            | ArgType::Str
            | ArgType::ScalarType => true,
            ArgType::Optional(inner) => simple(inner),
            _ => false,
        }
    }
    (kind_ok
        && s.params.iter().any(|p| p.ty == ArgType::Tensor)
        && s.params.iter().all(|p| simple(&p.ty)))
        || row_reduction(id)
        || all_reduction(id)
}

/// The reductions a group may hold: `sum`, `mean`, `amax`, `amin` over a list of dims. A group
/// runs them row by row when they reduce the last dim (see [`run`]); otherwise it runs
/// unfused.
pub fn row_reduction(id: OpId) -> bool {
    let s = schema::schema(id);
    matches!(
        (s.name.as_str(), s.overload.as_str()),
        ("sum", "dim_IntList") | ("mean", "dim") | ("amax", "") | ("amin", "")
    )
}

/// The reductions of every element to one that a group may end in: `max(x)` and `min(x)`
/// (and `amax`/`amin` over no dims, which [`row_reduction`] lists). A group runs them tile by
/// tile in the pieces the unfused kernel reduces (see [`run`]).
pub fn all_reduction(id: OpId) -> bool {
    let s = schema::schema(id);
    matches!(
        (s.name.as_str(), s.overload.as_str()),
        ("max", "") | ("min", "")
    )
}

/// Whether step `s` of a group on `inputs` reduces every element to their max (`Some(true)`)
/// or min (`Some(false)`): `max(x)`, `min(x)`, or `amax`/`amin` over no dims, not kept.
fn extreme_all(s: &Step, inputs: &[Value]) -> Option<bool> {
    let sch = schema::schema(s.op);
    let max = match sch.name.as_str() {
        "max" | "amax" => true,
        "min" | "amin" => false,
        _ => return None,
    };
    fn value<'a>(a: &'a Operand, inputs: &'a [Value]) -> Option<&'a Value> {
        match a {
            Operand::Const(v) => Some(v),
            Operand::Input(i) => inputs.get(*i),
            Operand::Step(_) => None,
        }
    }
    match s.args.as_slice() {
        [_] if all_reduction(s.op) => Some(max),
        [_, d, k] if row_reduction(s.op) => match (value(d, inputs), value(k, inputs)) {
            (Some(Value::IntList(d)), Some(Value::Bool(false))) if d.is_empty() => Some(max),
            _ => None,
        },
        _ => None,
    }
}

/// The dim a row reduction's `dim` argument names, if it is one dim.
fn one_dim(v: &Value) -> Option<i64> {
    match v {
        Value::Int(d) => Some(*d),
        Value::IntList(l) if l.len() == 1 => Some(l[0]),
        _ => None,
    }
}

/// Ops whose kernels check the divisor's values for zero when they compute in an integer
/// dtype: a group containing one runs unfused, so that the error is raised before the op as
/// unfused.
fn checks_values(id: OpId) -> bool {
    matches!(
        schema::schema(id).name.as_str(),
        "div" | "floor_divide" | "rfloordiv" | "remainder" | "fmod"
    )
}

/// What the checks know about a value.
#[derive(Clone, Debug)]
enum Meta {
    Tensor { shape: Vec<usize>, dtype: DType },
    Other,
}

fn meta_of(v: &Value) -> Meta {
    match v {
        Value::Tensor(t) => Meta::Tensor {
            shape: t.shape().to_vec(),
            dtype: t.dtype(),
        },
        _ => Meta::Other,
    }
}

/// The result of a step as a tensor.
fn one_tensor(mut out: dispatch::Outputs, id: OpId) -> Result<Tensor> {
    match out.pop() {
        Some(Value::Tensor(t)) if out.is_empty() => Ok(t),
        _ => Err(RuntimeError::Value(format!(
            "fused group: {id} did not return one tensor"
        ))),
    }
}

/// A failed group: the error, and the index of the step that raised it (so that callers can
/// report it at that op's source location, as unfused code would).
#[derive(Clone, Debug, PartialEq)]
pub struct StepError {
    pub step: usize,
    pub error: RuntimeError,
}

type StepResult<T> = std::result::Result<T, StepError>;

fn at<T>(step: usize, r: Result<T>) -> StepResult<T> {
    r.map_err(|error| StepError { step, error })
}

/// The slot of an operand among the values a group's steps read: the inputs first, then the
/// steps' results. `None` for a constant.
fn slot(a: &Operand, inputs: usize) -> Option<usize> {
    match a {
        Operand::Input(i) => Some(*i),
        Operand::Step(i) => Some(inputs + i),
        Operand::Const(_) => None,
    }
}

/// Per slot (see [`slot`]) of a group, inline up to this many (inputs and steps).
const INLINE_SLOTS: usize = 8;

/// For each slot (see [`slot`]), the index of the last step reading it (`usize::MAX`: none).
fn last_uses(p: &Program, inputs: usize) -> SmallVec<[usize; INLINE_SLOTS]> {
    let mut last = smallvec::smallvec![usize::MAX; inputs + p.steps.len()];
    last_uses_into(p, inputs, &mut last);
    last
}

/// [`last_uses`] into `last` (one per slot, all `usize::MAX`).
fn last_uses_into(p: &Program, inputs: usize, last: &mut [usize]) {
    for (k, s) in p.steps.iter().enumerate() {
        for a in &s.args {
            if let Some(l) = slot(a, inputs).and_then(|i| last.get_mut(i)) {
                *l = k;
            }
        }
    }
}

/// How [`run_steps`] calls the kernels.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kernels {
    /// [`dispatch::call`], exactly as unfused code calls each op.
    Plain,
    /// [`dispatch::call_owned`] with a dead first operand given up, so that the kernel may
    /// write over a dead tile instead of allocating one (bit-identical to `call`).
    Owned,
    /// [`dispatch::call_owned`] when the first operand is a float tensor dying there (an
    /// earlier step's result, which only the group holds, or an input the caller gave up: the
    /// kernel writes over it when no one else holds its buffer), else [`dispatch::call`] (no
    /// argument list given up per step, and integer ops keep the plain kernels' fast paths).
    OwnedDeadFloat,
}

/// Runs the steps in order on `inputs`, which it owns: each input and each step's result is
/// given up at its last use (moved into the step's arguments, not cloned), so it is dropped
/// there as unfused code drops a dead intermediate. The last step's result.
fn run_steps(
    p: &Program,
    last: &[usize],
    inputs: Vec<Value>,
    kernels: Kernels,
) -> StepResult<Tensor> {
    let n_in = inputs.len();
    let total = n_in + p.steps.len();
    // (A plain array for the common small group: a `SmallVec` built by `collect` and checked
    // for spilling on every access cost 181 more instructions per call of a two-step group.)
    let mut inline: [Option<Value>; INLINE_SLOTS] = [const { None }; INLINE_SLOTS];
    let mut spilled: Vec<Option<Value>> = Vec::new();
    let vals: &mut [Option<Value>] = if total <= INLINE_SLOTS {
        &mut inline[..total]
    } else {
        spilled.resize(total, None);
        &mut spilled
    };
    for (v, x) in vals.iter_mut().zip(inputs) {
        *v = Some(x);
    }
    let undefined =
        || RuntimeError::Value("fused group: an operand is not defined before use".into());
    let mut args: SmallVec<[Value; 4]> = SmallVec::new();
    for (k, s) in p.steps.iter().enumerate() {
        let (mut first_dead, mut first_input) = (false, false);
        for (j, a) in s.args.iter().enumerate() {
            let v = match slot(a, n_in) {
                None => match a {
                    Operand::Const(v) => Some(v.clone()),
                    _ => None,
                },
                Some(i) => {
                    let dead = last.get(i) == Some(&k)
                        && !s.args[j + 1..].iter().any(|b| slot(b, n_in) == Some(i));
                    first_dead |= j == 0 && dead;
                    first_input |= j == 0 && i < n_in;
                    match vals.get_mut(i) {
                        Some(v) if dead => v.take(),
                        Some(v) => v.clone(),
                        None => None,
                    }
                }
            };
            args.push(at(k, v.ok_or_else(undefined))?);
        }
        // (An op without an in-place form gains nothing from giving up its arguments, and
        // would cost a fresh argument list.)
        let owned = dispatch::has_owned_kernel(s.op)
            && match kernels {
                Kernels::Plain => false,
                Kernels::Owned => true,
                Kernels::OwnedDeadFloat => {
                    // (A step's result only the group holds; an input only when nobody else
                    // does, else the plain kernel: the in-place form's fallback costs more.)
                    first_dead
                        && match args.first_mut() {
                            Some(Value::Tensor(t)) => {
                                t.dtype().is_float() && (!first_input || t.writable_in_place())
                            }
                            _ => false,
                        }
                }
            };
        let out = if owned {
            dispatch::call_owned_in(s.op, &mut args)
        } else {
            dispatch::call(s.op, &args)
        };
        args.clear();
        let t = at(k, out.and_then(|o| one_tensor(o, s.op)))?;
        if k + 1 == p.steps.len() {
            return Ok(t);
        }
        if let Some(v) = vals.get_mut(n_in + k) {
            *v = Some(Value::Tensor(t));
        }
    }
    at(
        0,
        Err(RuntimeError::Value("fused group has no steps".into())),
    )
}

/// Runs every step on whole tensors: the unfused program, op by op through the kernels
/// unfused code calls (each intermediate freed after its last use, as unfused code frees it).
pub fn run_unfused(p: &Program, inputs: &[Value]) -> StepResult<Tensor> {
    let last = last_uses(p, inputs.len());
    run_steps(p, &last, inputs.to_vec(), Kernels::Plain)
}

/// [`run_unfused`] on inputs given up by the caller (no copy of them), where a float step whose
/// first operand dies there (an earlier step's result, or an input native code handed over)
/// may write its result over it ([`dispatch::call_owned`]: the same bits and errors as
/// [`dispatch::call`]), so an elementwise float step of a small group allocates no tensor for
/// its result where the unfused op, handed the same dead operand, allocates none either.
fn run_unfused_owned(p: &Program, inputs: Vec<Value>) -> StepResult<Tensor> {
    let total = inputs.len() + p.steps.len();
    if total <= INLINE_SLOTS {
        // (The common small group: no allocation or spill checks for the last uses.)
        let mut last = [usize::MAX; INLINE_SLOTS];
        last_uses_into(p, inputs.len(), &mut last[..total]);
        return run_steps(p, &last[..total], inputs, Kernels::OwnedDeadFloat);
    }
    let last = last_uses(p, inputs.len());
    run_steps(p, &last, inputs, Kernels::OwnedDeadFloat)
}

/// The checks of step 1 (see the module doc): the result shape and dtype of every step, or the
/// error the unfused program would raise. `None` when the group must run unfused.
fn check(p: &Program, inputs: &[Value], group: &[usize]) -> StepResult<Option<Vec<Meta>>> {
    let input_meta: Vec<Meta> = inputs.iter().map(meta_of).collect();
    let mut metas: Vec<Meta> = Vec::with_capacity(p.steps.len());
    let mut unfused = false;
    for (k, s) in p.steps.iter().enumerate() {
        if extreme_all(s, inputs).is_some() {
            let self_meta = match s.args.first() {
                Some(Operand::Input(i)) => input_meta.get(*i),
                Some(Operand::Step(i)) => metas.get(*i),
                _ => None,
            };
            let Some(Meta::Tensor { shape, dtype }) = self_meta.cloned() else {
                return Ok(None);
            };
            // Only as the result, over a value of the group's shape, in a group without row
            // reductions; an empty operand raises the unfused error.
            if k + 1 != p.steps.len()
                || shape.as_slice() != group
                || shape.contains(&0)
                || p.steps
                    .iter()
                    .any(|t| row_reduction(t.op) && extreme_all(t, inputs).is_none())
            {
                return Ok(None);
            }
            let mut proxies = vec![Value::Tensor(at(
                k,
                Tensor::ones(&vec![1; shape.len()], dtype),
            )?)];
            for a in &s.args[1..] {
                match a {
                    Operand::Const(v) => proxies.push(v.clone()),
                    Operand::Input(i) if matches!(input_meta.get(*i), Some(Meta::Other)) => {
                        proxies.push(inputs[*i].clone())
                    }
                    _ => return Ok(None),
                }
            }
            let r = at(
                k,
                dispatch::call(s.op, &proxies).and_then(|o| one_tensor(o, s.op)),
            )?;
            metas.push(Meta::Tensor {
                shape: Vec::new(),
                dtype: r.dtype(),
            });
            continue;
        }
        if row_reduction(s.op) {
            let self_meta = match s.args.first() {
                Some(Operand::Input(i)) => input_meta.get(*i),
                Some(Operand::Step(i)) => metas.get(*i),
                _ => None,
            };
            let value = |j: usize| match s.args.get(j) {
                Some(Operand::Const(v)) => Some(v),
                Some(Operand::Input(i)) => inputs.get(*i),
                _ => None,
            };
            let Some(Meta::Tensor { shape, dtype }) = self_meta.cloned() else {
                return Ok(None);
            };
            let (Some(d), Some(&Value::Bool(keepdim))) = (value(1).and_then(one_dim), value(2))
            else {
                return Ok(None);
            };
            let rank = shape.len() as i64;
            // A group input expanded along the reduced dim: unfused code reduces the narrowed
            // view and accounts for the repetition (docs/kernels.md, Reductions), which a sum
            // over the tile's materialized row does not reproduce bit for bit.
            let expanded_lane = matches!(value(0), Some(Value::Tensor(t))
                if t.shape().last().is_some_and(|&n| n > 1) && t.strides().last() == Some(&0));
            // Row by row only over the last dim of a value that spans the group's rows, kept
            // (or the group's result); anything else runs unfused.
            if rank == 0
                || (d != -1 && d != rank - 1)
                || shape.last() != group.last()
                || (!keepdim && k + 1 != p.steps.len())
                || expanded_lane
            {
                unfused = true;
            }
            let mut proxies: Vec<Value> = Vec::with_capacity(s.args.len());
            proxies.push(Value::Tensor(at(
                k,
                Tensor::ones(&vec![1; shape.len()], dtype),
            )?));
            for j in 1..s.args.len() {
                match value(j) {
                    Some(v) => proxies.push(v.clone()),
                    None => return Ok(None),
                }
            }
            let r = at(
                k,
                dispatch::call(s.op, &proxies).and_then(|o| one_tensor(o, s.op)),
            )?;
            let mut out = shape.clone();
            if keepdim {
                if let Some(l) = out.last_mut() {
                    *l = 1;
                }
            } else {
                out.pop();
            }
            metas.push(Meta::Tensor {
                shape: out,
                dtype: r.dtype(),
            });
            continue;
        }
        let mut proxies = Vec::with_capacity(s.args.len());
        let mut shapes: Vec<Vec<usize>> = Vec::new();
        for a in &s.args {
            let m = match a {
                Operand::Input(i) => input_meta.get(*i),
                Operand::Step(i) => metas.get(*i),
                Operand::Const(_) => None,
            };
            match (m, a) {
                (Some(Meta::Tensor { shape, dtype }), _) => {
                    let one = at(k, Tensor::ones(&vec![1; shape.len()], *dtype))?;
                    proxies.push(Value::Tensor(one));
                    shapes.push(shape.clone());
                }
                (_, Operand::Const(v)) => proxies.push(v.clone()),
                (Some(Meta::Other), Operand::Input(i)) => proxies.push(inputs[*i].clone()),
                _ => {
                    return at(
                        k,
                        Err(RuntimeError::Value(
                            "fused group: an operand is not defined before use".into(),
                        )),
                    );
                }
            }
        }
        let r = at(
            k,
            dispatch::call(s.op, &proxies).and_then(|o| one_tensor(o, s.op)),
        )?;
        let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        let shape = at(k, super::broadcast_all(&refs))?;
        at(k, check_alloc(&shape, r.dtype()))?;
        if r.dim() != shape.len() || (checks_values(s.op) && !r.dtype().is_float()) {
            unfused = true;
        }
        metas.push(Meta::Tensor {
            shape,
            dtype: r.dtype(),
        });
    }
    Ok((!unfused).then_some(metas))
}

/// Runs a fused group (see the module doc) on its inputs, which it owns (a group below
/// [`MIN_FUSED`] elements moves each input into the step that reads it last instead of
/// copying it).
pub fn run(p: &Program, inputs: Vec<Value>) -> StepResult<Tensor> {
    run_owned(p, inputs, TILE, Some(TYPED_TILE))
}

/// Rounds of one group over the same tiles ([`run_repeat`]): `count` runs, the inputs
/// `carried` of each run (every input the carried value feeds) the tile the run before wrote.
#[derive(Clone, Copy)]
struct Rounds<'a> {
    carried: &'a [usize],
    count: u64,
}

/// What a counted loop whose body is this group alone computes: `n` runs of `p`, the inputs
/// `carried` of each run holding the result of the run before (the first run reads `inputs`
/// as they are), with the same bits and the same errors as those runs one after the other
/// (`for i in range(n): x = x * 0.9 + 0.1 * torch.tanh(x)`; `n <= 0` returns the carried
/// tensor itself, as the loop does).
///
/// When the group keeps the carried tensor's shape and dtype (the result has the shape of
/// the group, which is the carried input's, and its dtype) and runs on the typed path, each
/// tile runs all `n` rounds while it is in L1, in one parallel section: no tensor per round,
/// no section per round. Elementwise rounds are independent per element, so each element gets
/// the values the runs one after the other give it. Otherwise (a shape that the first round
/// would change, a dtype, an error, a group below [`MIN_FUSED`]) the runs are made one after
/// the other, each through [`run`].
pub fn run_repeat(
    p: &Program,
    mut inputs: Vec<Value>,
    carried: &[usize],
    n: i64,
) -> StepResult<Tensor> {
    let Some(&first) = carried.first() else {
        return at(
            0,
            Err(RuntimeError::Value(
                "repeated group carries no input".into(),
            )),
        );
    };
    if n <= 0 {
        return match inputs.swap_remove(first) {
            Value::Tensor(t) => Ok(t),
            _ => at(
                0,
                Err(RuntimeError::Value(
                    "repeated group's carried value is not a tensor".into(),
                )),
            ),
        };
    }
    if n >= 2
        && let Some(r) = repeat_typed(p, &inputs, carried, n as u64)
    {
        return r;
    }
    let mut x = std::mem::replace(&mut inputs[first], Value::None);
    for _ in 0..n {
        let mut round = inputs.clone();
        for &j in carried {
            round[j] = x.clone();
        }
        drop(x);
        x = Value::Tensor(run(p, round)?);
    }
    match x {
        Value::Tensor(t) => Ok(t),
        _ => unreachable!("a round's result is a tensor"),
    }
}

/// [`run_repeat`]'s rounds tile by tile, when they apply (see there).
fn repeat_typed(
    p: &Program,
    inputs: &[Value],
    carried: &[usize],
    count: u64,
) -> Option<StepResult<Tensor>> {
    let shapes = shapes_of(inputs);
    if small_group(|| shapes.iter().copied()) || p.steps.iter().any(|s| row_reduction(s.op)) {
        return None;
    }
    let group = super::broadcast_all(&shapes).ok()?;
    let Ok(Some(metas)) = check(p, inputs, &group) else {
        return None;
    };
    let Some(Meta::Tensor { shape, dtype }) = metas.last().cloned() else {
        return None;
    };
    let last = p.steps.last()?;
    if extreme_all(last, inputs).is_some() || shape != group {
        return None;
    }
    for &j in carried {
        match inputs.get(j) {
            Some(Value::Tensor(t))
                if t.shape() == group.as_slice() && t.dtype() == dtype && t.is_contiguous() => {}
            _ => return None,
        }
    }
    let layout = Layout {
        group,
        by_rows: false,
        row: 1,
        out_row: 1,
        tile: TILE,
    };
    let rounds = Some(Rounds { carried, count });
    match dtype {
        DType::Float32 => typed_plan::<f32>(p, inputs, &metas, &layout)
            .and_then(|plan| run_typed(&plan, inputs, &layout, &shape, TYPED_TILE, rounds)),
        DType::Float64 => typed_plan::<f64>(p, inputs, &metas, &layout)
            .and_then(|plan| run_typed(&plan, inputs, &layout, &shape, TYPED_TILE, rounds)),
        _ => None,
    }
}

/// [`run`] with tiles of `tile` elements (for measuring the tile size; results do not depend
/// on it).
pub fn run_with_tile(p: &Program, inputs: &[Value], tile: usize) -> StepResult<Tensor> {
    run_owned(p, inputs.to_vec(), tile, Some(tile))
}

/// [`run_with_tile`] through the kernel-call tiles only ([`run_tiles`]; the typed path off),
/// for comparing the two.
pub fn run_with_tile_untyped(p: &Program, inputs: &[Value], tile: usize) -> StepResult<Tensor> {
    run_owned(p, inputs.to_vec(), tile, None)
}

/// Whether a group whose tensor inputs have these shapes runs unfused for its size: an upper
/// bound of the number of elements of their broadcast (exact when they broadcast and none is
/// empty; per dim from the right, the largest size) is below [`MIN_FUSED`]. Computed without
/// allocating. The one test both [`run`] and native code (`pj_fused_group_is_small`, called
/// before a group's host call) read.
pub fn small_group<'s, I>(shapes: impl Fn() -> I) -> bool
where
    I: Iterator<Item = &'s [usize]>,
{
    let rank = shapes().map(<[usize]>::len).max().unwrap_or(0);
    let bound = (1..=rank)
        .map(|d| {
            shapes()
                .map(|s| s.len().checked_sub(d).map_or(1, |i| s[i]))
                .max()
                .unwrap_or(1)
        })
        .fold(1usize, usize::saturating_mul);
    bound < MIN_FUSED
}

/// The shapes of the tensors among `inputs`, in order.
fn shapes_of(inputs: &[Value]) -> Vec<&[usize]> {
    inputs
        .iter()
        .filter_map(|v| match v {
            Value::Tensor(t) => Some(t.shape()),
            _ => None,
        })
        .collect()
}

/// `tile`: group elements per tile of [`run_tiles`]; `typed`: per tile of the typed path
/// ([`run_typed`]; `None`: not tried).
fn run_owned(
    p: &Program,
    inputs: Vec<Value>,
    tile: usize,
    typed: Option<usize>,
) -> StepResult<Tensor> {
    let tile = tile.max(1);
    if p.steps.is_empty() {
        return at(
            0,
            Err(RuntimeError::Value("fused group has no steps".into())),
        );
    }
    // The group's shape is the broadcast of its tensor inputs' shapes (every step feeds the
    // last one and broadcasts its operands; a row reduction only shrinks the last dim). A
    // small or failing group runs unfused at once: that raises the unfused error itself, and
    // skips the checks' cost. Small groups are known without computing the shape (most
    // groups of small programs: their cost must stay below the unfused ops' own).
    let tensor_shapes = || {
        inputs.iter().filter_map(|v| match v {
            Value::Tensor(t) => Some(t.shape()),
            _ => None,
        })
    };
    if small_group(tensor_shapes) {
        return run_unfused_owned(p, inputs);
    }
    let shapes = shapes_of(&inputs);
    let group = match super::broadcast_all(&shapes) {
        Ok(s) if s.iter().product::<usize>() >= MIN_FUSED => s,
        _ => return run_unfused_owned(p, inputs),
    };
    let Some(metas) = check(p, &inputs, &group)? else {
        return run_unfused_owned(p, inputs);
    };
    let Some(Meta::Tensor { shape, dtype }) = metas.last().cloned() else {
        return run_unfused_owned(p, inputs);
    };
    if let Some(max) = p.steps.last().and_then(|s| extreme_all(s, &inputs)) {
        if typed.is_some()
            && let Some(r) = run_extreme(p, &inputs, &metas, group, dtype, max)
        {
            return r;
        }
        return run_unfused_owned(p, inputs);
    }
    let n: usize = group.iter().product();
    let n_out: usize = shape.iter().product();
    let rows = p.steps.iter().any(|s| row_reduction(s.op));
    // Row by row: a tile is whole rows of the group (`row` elements each), and the result
    // has `out_row` elements per row (`row`, or one after a reduction).
    let row = if rows {
        group.last().copied().unwrap_or(1)
    } else {
        1
    };
    let out_row = if rows { n_out / (n / row).max(1) } else { 1 };
    let rows_fit = out_row * (n / row) == n_out && (out_row == 1 || out_row == row);
    if (!rows && n_out != n) || (rows && !rows_fit) {
        return run_unfused_owned(p, inputs);
    }
    let layout = Layout {
        group,
        by_rows: rows,
        row,
        out_row,
        tile: if rows {
            (tile / row).max(1) * row
        } else {
            tile
        },
    };
    // Float groups of covered ops and operand forms: slice kernels on small tiles.
    if let Some(typed_tile) = typed {
        let r = match dtype {
            DType::Float32 => typed_plan::<f32>(p, &inputs, &metas, &layout)
                .and_then(|plan| run_typed(&plan, &inputs, &layout, &shape, typed_tile, None)),
            DType::Float64 => typed_plan::<f64>(p, &inputs, &metas, &layout)
                .and_then(|plan| run_typed(&plan, &inputs, &layout, &shape, typed_tile, None)),
            _ => None,
        };
        if let Some(r) = r {
            return r;
        }
    }
    // Inputs of the group's shape and row-major are read in place (a flat view per tile);
    // others are gathered per tile.
    let flat: Vec<Option<Tensor>> = inputs
        .iter()
        .map(|v| match v {
            Value::Tensor(t)
                if t.dim() > 0 && t.shape() == layout.group.as_slice() && t.is_contiguous() =>
            {
                t.view(&[-1]).ok()
            }
            _ => None,
        })
        .collect();
    // On a tile of whole rows (`[rows, row]`), a row reduction reduces dim -1.
    let mut tp = p.clone();
    if rows {
        for s in &mut tp.steps {
            if row_reduction(s.op)
                && let Some(d) = s.args.get_mut(1)
            {
                *d = Operand::Const(Value::IntList(vec![-1]));
            }
        }
    }
    crate::with_dtype!(dtype, T => run_tiles::<T>(&tp, &inputs, &flat, &layout, &shape))
}

/// How a group is cut into tiles.
struct Layout {
    /// The group's shape (the broadcast of its inputs).
    group: Vec<usize>,
    /// Whether tiles are whole rows, as `[rows, row]` tensors (a group with row reductions).
    by_rows: bool,
    /// Elements per row: the group's last dim for a group with row reductions, else 1.
    row: usize,
    /// Result elements per row (`row`, or 1 after a reduction).
    out_row: usize,
    /// Group elements per tile (whole rows).
    tile: usize,
}

fn run_tiles<T: Element>(
    p: &Program,
    inputs: &[Value],
    flat: &[Option<Tensor>],
    layout: &Layout,
    shape: &[usize],
) -> StepResult<Tensor> {
    let last = p.steps.len() - 1;
    let n: usize = layout.group.iter().product();
    let n_out: usize = shape.iter().product();
    let mut out = at(last, crate::bufpool::alloc::<T>(n_out))?;
    let last_use = last_uses(p, inputs.len());
    let out_tile = layout.tile / layout.row * layout.out_row;
    let tile = |(k, chunk): (usize, &mut [T])| -> StepResult<()> {
        let start = k * layout.tile;
        let len = chunk.len() / layout.out_row * layout.row;
        let r = run_tile(p, inputs, flat, layout, start, len, &last_use)?;
        let done = r.with_view::<T, bool>(|v| match v.as_slice() {
            Some(s) if s.len() == chunk.len() => {
                chunk.copy_from_slice(s);
                true
            }
            Some(s) if s.len() == 1 && !layout.by_rows => {
                chunk.fill(s[0]);
                true
            }
            _ => false,
        });
        if done == Some(true) {
            Ok(())
        } else {
            at(
                last,
                Err(RuntimeError::Value(
                    "fused group: a tile result has an unexpected dtype or shape".into(),
                )),
            )
        }
    };
    // A group does the work of all its steps per element, so it is split over the pool from
    // `PAR_MIN` element-steps on (as one elementwise op is from `PAR_MIN` elements), when
    // there are at least two tiles to share. Tiles are fixed, so which thread runs one does
    // not change its result.
    if n.saturating_mul(p.steps.len()) >= vmath::PAR_MIN
        && n > layout.tile
        && vmath::num_threads() > 1
    {
        // The first failing tile's error (by index, as the serial loop would return it).
        let first = parking_lot::Mutex::new(None);
        crate::par::for_each_chunk_mut(&mut out, out_tile, |k, chunk| {
            if let Err(e) = tile((k, chunk)) {
                let mut f = first.lock();
                if f.as_ref().is_none_or(|(j, _)| k < *j) {
                    *f = Some((k, e));
                }
            }
        });
        if let Some((_, e)) = first.into_inner() {
            return Err(e);
        }
    } else {
        out.chunks_mut(out_tile).enumerate().try_for_each(tile)?;
    }
    at(last, Tensor::from_vec(out, shape))
}

/// The steps over the group elements `start .. start + len` (whole rows, as `[rows, row]`
/// tiles, when the layout has rows).
fn run_tile(
    p: &Program,
    inputs: &[Value],
    flat: &[Option<Tensor>],
    layout: &Layout,
    start: usize,
    len: usize,
    last: &[usize],
) -> StepResult<Tensor> {
    let rows = |t: Tensor| -> Result<Value> {
        if layout.by_rows {
            t.view(&[(len / layout.row) as i64, layout.row as i64])
                .map(Value::Tensor)
        } else {
            Ok(Value::Tensor(t))
        }
    };
    let tiles: Vec<Value> = at(
        0,
        inputs
            .iter()
            .zip(flat)
            .map(|(v, fl)| match (v, fl) {
                (_, Some(f)) => f
                    .slice(0, Some(start as i64), Some((start + len) as i64), 1)
                    .and_then(rows),
                (Value::Tensor(t), None) if t.dim() > 0 => {
                    gather(t, &layout.group, start, len).and_then(rows)
                }
                (other, None) => Ok(other.clone()),
            })
            .collect::<Result<_>>(),
    )?;
    run_steps(p, last, tiles, Kernels::Owned)
}

// ------------------------------------------------------------------------------ typed tiles

/// Elements per tile of the typed path (4 KiB of f32): a chain's input, scratch and output
/// tiles stay in L1 together (docs/fusion.md has the measurements).
/// A group with row reductions uses `TYPED_TILE / row` whole rows per tile (at least one).
pub const TYPED_TILE: usize = 1 << 10;

/// Group elements per parallel task of the typed path (a task runs its tiles one after the
/// other on its own scratch tiles).
const TYPED_TASK: usize = 1 << 16;

/// Group elements per task of the typed path for `n` elements in tiles of `te` on `threads`
/// threads: about [`TYPED_TASK`], a whole number of tiles, and as many tasks as a multiple of
/// the thread count, so that the threads' shares are even (100k elements were one task of 65,536
/// and one of 34,464: two threads took 65% of one thread's time instead of half). Results do not
/// depend on it (tiles are independent).
fn task_elements(n: usize, te: usize, threads: usize) -> usize {
    let te = te.max(1);
    let threads = threads.max(1);
    let tasks = n.div_ceil(TYPED_TASK).div_ceil(threads) * threads;
    n.div_ceil(tasks.max(1)).div_ceil(te).max(1) * te
}

/// How a value of a group reaches the typed path's tiles: the group's shape (one element per
/// group element), one value per row of the group (`[.., 1]`, a kept row reduction or an input
/// of that shape), or one value for all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Form {
    Scalar,
    Row,
    Full,
}

/// The unary kernels of the typed path: the `vmath` kernels the unfused ops run
/// ([`crate::ops::vector_unary_owned`] and the plain kernels both end in [`vmath::map`] /
/// [`vmath::map_inplace`] of these), from the one list of such ops
/// (`ops::with_vector_unary_ops`).
macro_rules! typed_unary {
    ($($op:ident => $k:ident,)*) => {
        #[derive(Clone, Copy, Debug)]
        enum Un {
            $($k,)*
        }

        impl Un {
            /// The kernel of the op named `name`, if it is one of the list.
            fn of(name: &str) -> Option<Un> {
                match name {
                    $(stringify!($op) => Some(Un::$k),)*
                    _ => None,
                }
            }
        }

        /// `kern` bound to the kernel of `$u` in `$e`.
        macro_rules! with_unary_kernel {
            ($u:expr, $kern:ident => $e:expr) => {
                match $u {
                    $(Un::$k => {
                        let $kern = vmath::k::$k;
                        $e
                    })*
                }
            };
        }
    };
}
/// The vector-math list, and the float sign ops (`abs`, `neg`: `vmath` kernels too, which the
/// unfused float ops run through `map_float`).
macro_rules! typed_unary_and_signs {
    ($($op:ident => $k:ident,)*) => {
        typed_unary! { $($op => $k,)* abs => Abs, neg => Neg, }
    };
}
super::with_vector_unary_ops!(typed_unary_and_signs);

/// `+ - * /` (the float kernels of `ops::binary`: one IEEE operation per element).
use vmath::Arith as Bin;

/// Row reductions (the lane functions of `ops::reduce` for float lanes).
#[derive(Clone, Copy, Debug)]
enum Red {
    Max,
    Min,
    Sum,
    Mean,
}

#[derive(Clone, Copy, Debug)]
enum TOp {
    Un(Un),
    Bin(Bin),
    Red(Red),
    /// `a * c` (`c * a` unless `c_right`) then `outer` with `b` (the product on the left when
    /// `scaled_left`): two steps of the plan in one pass over the tile ([`merge_scaled`]), each
    /// element computed by the same two IEEE operations in the same order.
    MulThen {
        outer: Bin,
        c_right: bool,
        scaled_left: bool,
    },
    /// `u(a)` then `outer` with `b` (a value of the group's shape, a constant, or, `inplace`
    /// `Some(1)`, the tile the result goes over), `u(a)` on the left when `un_left`: two steps
    /// in one pass where the kernel has an AVX-512 loop of the pair ([`merge_unary_then`],
    /// `vmath::map_then`), the same two roundings.
    UnThen {
        u: Un,
        outer: Bin,
        un_left: bool,
    },
    /// `TOp::MulThen`'s value, then `u` of it: a merged product step and the unary step that
    /// consumes it ([`merge_scaled_unary`]), one pass where the kernel has an AVX-512 loop of
    /// the three (`vmath::scaled_then_map`), the same roundings.
    ScaledUn {
        outer: Bin,
        c_right: bool,
        scaled_left: bool,
        u: Un,
    },
    /// `u(a - b)` with `b` one value per row: a subtraction of a row value and the unary step
    /// that consumes it ([`merge_minus_unary`], softmax's `exp(x - m)`), one pass per row
    /// (`vmath::Minus`), the same roundings.
    MinusUn(Un),
}

/// Where a typed operand's elements are.
#[derive(Clone, Copy, Debug)]
enum Loc<T> {
    /// The group's `i`-th input (a contiguous tensor of dtype `T`, read in place).
    In(usize),
    /// Scratch tile `i` (of the operand's form).
    Buf(usize),
    /// One value for every element.
    Const(T),
}

#[derive(Clone, Copy, Debug)]
struct TArg<T> {
    form: Form,
    loc: Loc<T>,
}

/// One step of a typed plan: `op` on `a` (and `b`), a result of `form` written to scratch tile
/// `dst` (`None`: the output), over the operand whose tile it already holds (`inplace`: 0 or 1)
/// when that operand dies there.
#[derive(Clone, Debug)]
struct TStep<T> {
    op: TOp,
    a: TArg<T>,
    b: Option<TArg<T>>,
    form: Form,
    dst: Option<usize>,
    inplace: Option<usize>,
    /// The constant of `TOp::MulThen` and `TOp::ScaledUn`.
    c: Option<T>,
}

/// A group resolved once per run into slice kernels over `T` tiles.
#[derive(Clone, Debug)]
struct TPlan<T> {
    steps: Vec<TStep<T>>,
    /// Scratch tiles of the group's form and of the row form.
    full_bufs: usize,
    row_bufs: usize,
}

/// The kernel of `TOp::MulThen` on `(x, y)`: `x * c` (`c * x` unless `CR`), then `O` with
/// `y` (the product on the left when `SL`): the operations of the two unfused kernels
/// (`Right`/`Left` of `arith::Mul`, then `Zip` of `O`), in their order.
#[derive(Clone, Copy)]
struct MulThen<O, const CR: bool, const SL: bool, T>(T, PhantomData<O>);

impl<O, const CR: bool, const SL: bool, T> vmath::Binary<T> for MulThen<O, CR, SL, T>
where
    T: Copy + Send + Sync,
    O: vmath::arith::Op<T>,
    vmath::arith::Mul: vmath::arith::Op<T>,
{
    #[inline(always)]
    fn eval<const F: bool>(self, x: T, y: T) -> T {
        use vmath::arith::{Mul, Op};
        let s = if CR {
            Mul::apply(x, self.0)
        } else {
            Mul::apply(self.0, x)
        };
        if SL { O::apply(s, y) } else { O::apply(y, s) }
    }
}

/// The float element types of the typed path, with the very kernels unfused ops call on them.
trait TFloat: Element + vmath::Scalar {
    fn unary(u: Un, x: &[Self], out: &mut [Self]);
    fn unary_inplace(u: Un, x: &mut [Self]);
    fn zip(b: Bin, x: &[Self], y: &[Self], out: &mut [Self]);
    fn zip_inplace(b: Bin, x: &mut [Self], y: &[Self]);
    /// `x op c` (`right`) or `c op x` into `out`.
    fn with_const(b: Bin, x: &[Self], c: Self, right: bool, out: &mut [Self]);
    fn with_const_inplace(b: Bin, x: &mut [Self], c: Self, right: bool);
    /// `TOp::MulThen` into `out`: `x * c` (`c * x` unless `c_right`), then `outer` with `y`.
    fn mul_then(
        outer: Bin,
        c: Self,
        c_right: bool,
        scaled_left: bool,
        x: &[Self],
        y: &[Self],
        out: &mut [Self],
    );
    /// [`TFloat::mul_then`] with the result over one of the values: `dst` holds `x` and
    /// `other` is `y` (`dst_is_x`), or `dst` holds `y` and `other` is `x`.
    fn mul_then_inplace(
        outer: Bin,
        c: Self,
        c_right: bool,
        scaled_left: bool,
        other: &[Self],
        dst: &mut [Self],
        dst_is_x: bool,
    );
    /// `TOp::ScaledUn` into `out`: [`TFloat::mul_then`], then `u`.
    #[allow(clippy::too_many_arguments)]
    fn scaled_unary(
        outer: Bin,
        c: Self,
        c_right: bool,
        scaled_left: bool,
        u: Un,
        x: &[Self],
        y: &[Self],
        out: &mut [Self],
    );
    /// `TOp::UnThen` into `out`: `u(x)` then `outer` with `y` (`x` `None`: `out` holds it).
    fn unary_then(
        u: Un,
        outer: Bin,
        un_left: bool,
        x: Option<&[Self]>,
        y: vmath::ThenArg<'_, Self>,
        out: &mut [Self],
    );
    /// `TOp::MinusUn` on one row into `out`: `u(x - m)`.
    fn unary_minus(u: Un, x: &[Self], m: Self, out: &mut [Self]);
    /// [`TFloat::unary_minus`] over `x` itself.
    fn unary_minus_inplace(u: Un, x: &mut [Self], m: Self);
    /// One row's reduction, as `ops::reduce` computes a float lane.
    fn reduce(r: Red, v: &[Self]) -> Self;
}

macro_rules! tfloat {
    ($t:ty, $max:path, $min:path, $sum:expr) => {
        impl TFloat for $t {
            fn unary(u: Un, x: &[$t], out: &mut [$t]) {
                with_unary_kernel!(u, kern => vmath::map(kern, x, out))
            }
            fn unary_inplace(u: Un, x: &mut [$t]) {
                with_unary_kernel!(u, kern => vmath::map_inplace(kern, x))
            }
            fn zip(b: Bin, x: &[$t], y: &[$t], out: &mut [$t]) {
                tfloat!(@bin b, kern => vmath::zip(kern, x, y, out))
            }
            fn zip_inplace(b: Bin, x: &mut [$t], y: &[$t]) {
                tfloat!(@bin b, kern => vmath::zip_inplace(kern, x, y))
            }
            fn with_const(b: Bin, x: &[$t], c: $t, right: bool, out: &mut [$t]) {
                if right {
                    tfloat!(@bin b, kern => vmath::map(vmath::Right(kern, c), x, out))
                } else {
                    tfloat!(@bin b, kern => vmath::map(vmath::Left(kern, c), x, out))
                }
            }
            fn with_const_inplace(b: Bin, x: &mut [$t], c: $t, right: bool) {
                if right {
                    tfloat!(@bin b, kern => vmath::map_inplace(vmath::Right(kern, c), x))
                } else {
                    tfloat!(@bin b, kern => vmath::map_inplace(vmath::Left(kern, c), x))
                }
            }
            fn mul_then(
                outer: Bin,
                c: $t,
                c_right: bool,
                scaled_left: bool,
                x: &[$t],
                y: &[$t],
                out: &mut [$t],
            ) {
                tfloat!(@mul_then outer, c, c_right, scaled_left, k => vmath::zip(k, x, y, out))
            }
            fn mul_then_inplace(
                outer: Bin,
                c: $t,
                c_right: bool,
                scaled_left: bool,
                other: &[$t],
                dst: &mut [$t],
                dst_is_x: bool,
            ) {
                tfloat!(@mul_then outer, c, c_right, scaled_left, k => {
                    if dst_is_x {
                        vmath::zip_inplace(k, dst, other)
                    } else {
                        vmath::zip_inplace(vmath::Swapped(k), dst, other)
                    }
                })
            }
            fn scaled_unary(
                outer: Bin,
                c: $t,
                c_right: bool,
                scaled_left: bool,
                u: Un,
                x: &[$t],
                y: &[$t],
                out: &mut [$t],
            ) {
                with_unary_kernel!(u, kern => {
                    if !vmath::scaled_then_map(kern, outer, c, c_right, scaled_left, x, y, out) {
                        Self::mul_then(outer, c, c_right, scaled_left, x, y, out);
                        vmath::map_inplace(kern, out);
                    }
                })
            }
            fn unary_then(
                u: Un,
                outer: Bin,
                un_left: bool,
                x: Option<&[$t]>,
                y: vmath::ThenArg<'_, $t>,
                out: &mut [$t],
            ) {
                with_unary_kernel!(u, kern => vmath::map_then(kern, outer, un_left, x, y, out))
            }
            fn unary_minus(u: Un, x: &[$t], m: $t, out: &mut [$t]) {
                with_unary_kernel!(u, kern => vmath::map(vmath::Minus(kern, m), x, out))
            }
            fn unary_minus_inplace(u: Un, x: &mut [$t], m: $t) {
                with_unary_kernel!(u, kern => vmath::map_inplace(vmath::Minus(kern, m), x))
            }
            fn reduce(r: Red, v: &[$t]) -> $t {
                let sum: fn(&[$t]) -> $t = $sum;
                match r {
                    Red::Max => $max(v),
                    Red::Min => $min(v),
                    Red::Sum => sum(v),
                    Red::Mean => sum(v) / v.len() as $t,
                }
            }
        }
    };
    (@mul_then $outer:expr, $c:expr, $cr:expr, $sl:expr, $k:ident => $e:expr) => {{
        use vmath::arith;
        macro_rules! go {
            ($o:ty) => {
                match ($cr, $sl) {
                    (true, true) => { let $k = MulThen::<$o, true, true, _>($c, PhantomData); $e }
                    (true, false) => { let $k = MulThen::<$o, true, false, _>($c, PhantomData); $e }
                    (false, true) => { let $k = MulThen::<$o, false, true, _>($c, PhantomData); $e }
                    (false, false) => { let $k = MulThen::<$o, false, false, _>($c, PhantomData); $e }
                }
            };
        }
        match $outer {
            Bin::Add => go!(arith::Add),
            Bin::Sub => go!(arith::Sub),
            Bin::Mul => go!(arith::Mul),
            Bin::Div => go!(arith::Div),
        }
    }};
    (@bin $b:expr, $k:ident => $e:expr) => {
        vmath::with_arith!($b, $k => $e)
    };
}

tfloat!(
    f32,
    super::reduce::max_f32,
    super::reduce::min_f32,
    |v| vmath::sum_f32(v) as f32
);
tfloat!(
    f64,
    super::reduce::max_f64,
    super::reduce::min_f64,
    vmath::sum_f64
);

/// A constant operand as `T`, converted as the unfused kernel converts a Python scalar (or a
/// one-element tensor of dtype `T`, read as is). `None`: not covered by the typed path.
fn typed_const<T: TFloat>(v: &Value) -> Option<T> {
    match v {
        Value::Float(_) | Value::Int(_) => Some(crate::tensor::scalar_to::<T>(v.as_scalar()?)),
        Value::Tensor(t) if t.numel() == 1 && t.dtype() == T::DTYPE => {
            t.to_vec::<T>().first().copied()
        }
        _ => None,
    }
}

/// Whether `alpha` is 1, as `ops::add_alpha` tests it (then `add`/`sub` is one `+`/`-`).
fn alpha_one(v: &Value) -> bool {
    matches!(v.as_scalar(), Some(Scalar::Int(1) | Scalar::Bool(true)))
        || matches!(v.as_scalar(), Some(Scalar::Float(f)) if f == 1.0)
}

/// `p` with every product by a constant whose one use is a `+ - * /` further on moved to just
/// before that use, with `metas` in the new order; `None` when no step moves. In
/// `x * 0.9 + 0.1 * tanh(x)` the product `x * 0.9` comes first: moved, it merges with the
/// addition ([`merge_scaled`]) while the tanh merges with its scaling ([`merge_unary_then`]),
/// two passes over the tile instead of three. The steps are elementwise and pure, so the order
/// changes no value; the group's last step stays last.
fn sink_scaled(p: &Program, metas: &[Meta]) -> Option<(Program, Vec<Meta>)> {
    let n = p.steps.len();
    let mut uses = vec![0usize; n];
    let mut user = vec![usize::MAX; n];
    for (k, s) in p.steps.iter().enumerate() {
        for a in &s.args {
            if let Operand::Step(i) = a
                && *i < n
            {
                uses[*i] += 1;
                user[*i] = k;
            }
        }
    }
    let name = |k: usize| schema::schema(p.steps[k].op);
    let sinks = |i: usize| {
        let (sch, args) = (name(i), &p.steps[i].args);
        uses[i] == 1
            && user[i] > i + 1
            && user[i] < n
            && sch.name == "mul"
            && args.len() == 2
            && args
                .iter()
                .filter(|a| matches!(a, Operand::Const(_)))
                .count()
                == 1
            && matches!(
                name(user[i]).name.as_str(),
                "add" | "sub" | "rsub" | "mul" | "div"
            )
    };
    let sunk: Vec<bool> = (0..n).map(sinks).collect();
    if !sunk.contains(&true) {
        return None;
    }
    fn emit(k: usize, sunk: &[bool], user: &[usize], order: &mut Vec<usize>) {
        for j in 0..k {
            if sunk[j] && user[j] == k {
                emit(j, sunk, user, order);
            }
        }
        order.push(k);
    }
    let mut order = Vec::with_capacity(n);
    for k in (0..n).filter(|&k| !sunk[k]) {
        emit(k, &sunk, &user, &mut order);
    }
    let mut pos = vec![0usize; n];
    for (new, &old) in order.iter().enumerate() {
        pos[old] = new;
    }
    let steps = order
        .iter()
        .map(|&k| Step {
            op: p.steps[k].op,
            args: p.steps[k]
                .args
                .iter()
                .map(|a| match a {
                    Operand::Step(i) => Operand::Step(pos[*i]),
                    other => other.clone(),
                })
                .collect(),
        })
        .collect();
    let metas = order
        .iter()
        .map(|&k| metas.get(k).cloned())
        .collect::<Option<_>>()?;
    Some((
        Program {
            inputs: p.inputs,
            steps,
        },
        metas,
    ))
}

/// The typed plan of `p` over `T` tiles, or `None` when some input, constant, op or shape is
/// not covered (the group then runs through [`run_tiles`]). `metas` are the checks' result
/// shapes and dtypes (so every step's dtype is known to be `T` and its shape to broadcast).
fn typed_plan<T: TFloat>(
    p: &Program,
    inputs: &[Value],
    metas: &[Meta],
    layout: &Layout,
) -> Option<TPlan<T>> {
    let sunk = sink_scaled(p, metas);
    let (p, metas) = match &sunk {
        Some((q, m)) => (q, m.as_slice()),
        None => (p, metas),
    };
    let group = layout.group.as_slice();
    let mut row_shape = group.to_vec();
    *row_shape.last_mut()? = 1;
    let form_of_shape = |shape: &[usize]| {
        if shape == group {
            Some(Form::Full)
        } else if layout.by_rows && shape == row_shape.as_slice() {
            Some(Form::Row)
        } else {
            None
        }
    };
    let input_args: Vec<Option<TArg<T>>> = inputs
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Tensor(t) if t.dtype() == T::DTYPE && t.is_contiguous() => {
                match form_of_shape(t.shape()) {
                    Some(form) => Some(TArg {
                        form,
                        loc: Loc::In(i),
                    }),
                    None => typed_const::<T>(v).map(|c| TArg {
                        form: Form::Scalar,
                        loc: Loc::Const(c),
                    }),
                }
            }
            Value::Tensor(_) => None,
            _ => typed_const::<T>(v).map(|c| TArg {
                form: Form::Scalar,
                loc: Loc::Const(c),
            }),
        })
        .collect();
    let n_in = inputs.len();
    let last = last_uses(p, n_in);
    let mut steps: Vec<TStep<T>> = Vec::with_capacity(p.steps.len());
    let mut step_args: Vec<TArg<T>> = Vec::with_capacity(p.steps.len());
    let (mut free_full, mut free_row): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    let (mut full_bufs, mut row_bufs) = (0usize, 0usize);
    let n_steps = p.steps.len();
    for (k, s) in p.steps.iter().enumerate() {
        let Meta::Tensor { shape, dtype } = metas.get(k)? else {
            return None;
        };
        if *dtype != T::DTYPE {
            return None;
        }
        let arg = |a: &Operand| -> Option<TArg<T>> {
            match a {
                Operand::Input(i) => *input_args.get(*i)?,
                Operand::Step(i) => step_args.get(*i).copied(),
                Operand::Const(v) => typed_const::<T>(v).map(|c| TArg {
                    form: Form::Scalar,
                    loc: Loc::Const(c),
                }),
            }
        };
        let sch = schema::schema(s.op);
        let (op, xo, yo) = match (sch.name.as_str(), sch.overload.as_str(), s.args.as_slice()) {
            ("add" | "sub" | "rsub", "Tensor" | "Scalar", [x, y, Operand::Const(alpha)])
                if alpha_one(alpha) =>
            {
                let (x, y) = if sch.name == "rsub" { (y, x) } else { (x, y) };
                let b = if sch.name == "add" {
                    Bin::Add
                } else {
                    Bin::Sub
                };
                (TOp::Bin(b), x, Some(y))
            }
            ("mul" | "div", "Tensor" | "Scalar", [x, y]) => {
                let b = if sch.name == "mul" {
                    Bin::Mul
                } else {
                    Bin::Div
                };
                (TOp::Bin(b), x, Some(y))
            }
            // `c / x` (NumPy's `1.0 / (1.0 + np.exp(-y))`): the division with the operands
            // swapped, as the op's kernel computes it.
            ("rdiv", "Scalar", [x, y]) => (TOp::Bin(Bin::Div), y, Some(x)),
            ("amax" | "amin", _, [x, _, Operand::Const(Value::Bool(_))])
            | ("sum" | "mean", _, [x, _, Operand::Const(Value::Bool(_)), Operand::Const(_)])
                if row_reduction(s.op) =>
            {
                if let Some(Operand::Const(d)) = s.args.get(3)
                    && !matches!(d, Value::None)
                    && d.as_dtype() != Some(T::DTYPE)
                {
                    return None;
                }
                let r = match sch.name.as_str() {
                    "amax" => Red::Max,
                    "amin" => Red::Min,
                    "sum" => Red::Sum,
                    _ => Red::Mean,
                };
                (TOp::Red(r), x, None)
            }
            (name, _, [x]) => {
                let u = Un::of(name)?;
                (TOp::Un(u), x, None)
            }
            _ => return None,
        };
        let a = arg(xo)?;
        let b = match yo {
            Some(y) => Some(arg(y)?),
            None => None,
        };
        // A step of constants is a constant: the kernel on one element, as the unfused op
        // computes its one-element result.
        if a.form == Form::Scalar && b.is_none_or(|b| b.form == Form::Scalar) {
            if shape.iter().product::<usize>() != 1 || k + 1 == n_steps {
                return None;
            }
            let c = match (op, a.loc, b.map(|b| b.loc)) {
                (TOp::Un(u), Loc::Const(x), None) => {
                    let mut v = [x];
                    T::unary_inplace(u, &mut v);
                    v[0]
                }
                (TOp::Bin(o), Loc::Const(x), Some(Loc::Const(y))) => {
                    let mut v = [x];
                    T::with_const_inplace(o, &mut v, y, true);
                    v[0]
                }
                _ => return None,
            };
            step_args.push(TArg {
                form: Form::Scalar,
                loc: Loc::Const(c),
            });
            continue;
        }
        // The result's form, and the operands' forms it needs.
        let form = match op {
            TOp::Red(_) => {
                // Over whole rows of the group; kept (`[.., 1]`) or the group's result.
                if a.form != Form::Full || !layout.by_rows {
                    return None;
                }
                let dropped = &row_shape[..row_shape.len() - 1];
                if shape.as_slice() != row_shape.as_slice()
                    && !(k + 1 == n_steps && shape.as_slice() == dropped)
                {
                    return None;
                }
                Form::Row
            }
            _ => {
                let form = form_of_shape(shape)?;
                let widest = b.map_or(a.form, |b| b.form.max(a.form));
                if widest != form {
                    return None;
                }
                form
            }
        };
        // Scratch tiles: the result goes over an operand's tile dying here when the kernels
        // can write over it (a unary op, the left operand, or the right one against a
        // constant or row value), else into a free tile of its form.
        let dies = |x: &TArg<T>, other: Option<&TArg<T>>| -> Option<usize> {
            match x.loc {
                Loc::Buf(i) if x.form == form => {
                    let same = other.is_some_and(
                        |o| matches!(o.loc, Loc::Buf(j) if j == i && o.form == x.form),
                    );
                    Some(i).filter(|_| !same)
                }
                _ => None,
            }
        };
        let slot_dies = |o: &Operand| slot(o, n_in).is_some_and(|i| last.get(i) == Some(&k));
        let last_step = k + 1 == n_steps;
        let mut inplace = None;
        let mut dst = None;
        if !last_step && !matches!(op, TOp::Red(_)) {
            if let Some(i) = dies(&a, b.as_ref()).filter(|_| slot_dies(xo)) {
                inplace = Some(0);
                dst = Some(i);
            } else if let Some(bb) = &b
                && a.form < form
                && let Some(i) = dies(bb, Some(&a)).filter(|_| yo.is_some_and(slot_dies))
            {
                inplace = Some(1);
                dst = Some(i);
            }
        }
        // Tiles of operands dying here become free (after this step has read them).
        let mut freed = Vec::new();
        for (x, o) in [(Some(a), Some(xo)), (b, yo)] {
            if let (Some(x), Some(o)) = (x, o)
                && let Loc::Buf(i) = x.loc
                && slot_dies(o)
                && dst != Some(i)
            {
                freed.push((x.form, i));
            }
        }
        if !last_step && dst.is_none() {
            let (free, count) = match form {
                Form::Full => (&mut free_full, &mut full_bufs),
                _ => (&mut free_row, &mut row_bufs),
            };
            dst = Some(free.pop().unwrap_or_else(|| {
                *count += 1;
                *count - 1
            }));
        }
        for (f, i) in freed {
            let free = if f == Form::Full {
                &mut free_full
            } else {
                &mut free_row
            };
            if !free.contains(&i) {
                free.push(i);
            }
        }
        steps.push(TStep {
            op,
            a,
            b,
            form,
            dst,
            inplace,
            c: None,
        });
        step_args.push(TArg {
            form,
            loc: Loc::Buf(dst.unwrap_or(usize::MAX)),
        });
    }
    Some(TPlan {
        steps: merge_pairs(
            &merge_pairs(
                &merge_pairs(&merge_pairs(&steps, merge_minus_unary), merge_scaled),
                merge_scaled_unary,
            ),
            merge_unary_then,
        ),
        full_bufs,
        row_bufs,
    })
}

/// One of the pair merges: the step replacing steps `k` and `k + 1` of the plan, if they merge.
type MergePair<T> = fn(&[TStep<T>], usize) -> Option<TStep<T>>;

/// `steps` with every pair of adjacent steps that `merge(steps, k)` turns into one step (for
/// `k` and `k + 1`) replaced by it, left to right.
fn merge_pairs<T: Clone>(steps: &[TStep<T>], merge: MergePair<T>) -> Vec<TStep<T>> {
    let mut out = Vec::with_capacity(steps.len());
    let mut k = 0;
    while k < steps.len() {
        match merge(steps, k) {
            Some(m) => {
                out.push(m);
                k += 2;
            }
            None => {
                out.push(steps[k].clone());
                k += 1;
            }
        }
    }
    out
}

/// The scratch tile of `x` if it is a full one.
fn full_buf<T: Copy>(x: &TArg<T>) -> Option<usize> {
    match (x.form, x.loc) {
        (Form::Full, Loc::Buf(i)) => Some(i),
        _ => None,
    }
}

/// Whether `x` is a value of the group's shape (an input read in place or a scratch tile).
fn full<T>(x: &TArg<T>) -> bool {
    x.form == Form::Full && matches!(x.loc, Loc::In(_) | Loc::Buf(_))
}

/// The value a binary step `t` combines with full scratch tile `j` (one of its operands, the
/// other not `j`), and whether `j` is the left operand.
fn other_than<T: Copy>(t: &TStep<T>, j: usize) -> Option<(TArg<T>, bool)> {
    let tb = t.b?;
    match (full_buf(&t.a), full_buf(&tb)) {
        (Some(a), b) if a == j && b != Some(j) => Some((tb, true)),
        (a, Some(b)) if b == j && a != Some(j) => Some((t.a, false)),
        _ => None,
    }
}

/// A merged step's `inplace` when its result goes to `dst`: over the tile of its first value
/// `x` (0), of its second `y` (1), or elsewhere.
fn inplace_over<T: Copy>(dst: Option<usize>, x: &TArg<T>, y: &TArg<T>) -> Option<usize> {
    match dst {
        Some(d) if full_buf(x) == Some(d) => Some(0),
        Some(d) if full_buf(y) == Some(d) => Some(1),
        _ => None,
    }
}

/// Whether full scratch tile `j`, read by step `k`, is read by no later step before one
/// writes it again (step `k` itself, when its result goes there).
fn dies_at<T>(steps: &[TStep<T>], k: usize, j: usize) -> bool {
    let reads = |x: &TArg<T>| x.form == Form::Full && matches!(x.loc, Loc::Buf(i) if i == j);
    if steps[k].dst == Some(j) && steps[k].form == Form::Full {
        return true;
    }
    for later in &steps[k + 1..] {
        if reads(&later.a) || later.b.as_ref().is_some_and(reads) {
            return false;
        }
        if later.dst == Some(j) && later.form == Form::Full {
            return true;
        }
    }
    true
}

/// Merges the subtraction of a row value from a value of the group's shape (`x - m`, `m` one
/// value per row) with the unary step right after it that reads its result into one
/// `TOp::MinusUn` step, when no later step reads the difference's tile: softmax's
/// `exp(x - m)` in one pass over each row instead of two. When the result goes over the tile
/// of `x`, the merged step runs in place on it.
fn merge_minus_unary<T: TFloat>(steps: &[TStep<T>], k: usize) -> Option<TStep<T>> {
    let (s, t) = (&steps[k], steps.get(k + 1)?);
    let (TOp::Bin(Bin::Sub), TOp::Un(u)) = (s.op, t.op) else {
        return None;
    };
    let (j, m) = (s.dst?, s.b?);
    let row_value = m.form == Form::Row && matches!(m.loc, Loc::In(_) | Loc::Buf(_));
    if s.form != Form::Full
        || t.form != Form::Full
        || !full(&s.a)
        || !row_value
        || full_buf(&t.a) != Some(j)
        || !dies_at(steps, k + 1, j)
    {
        return None;
    }
    #[cfg(test)]
    MERGED_MINUS_UNARY.with(|c| c.set(c.get() + 1));
    Some(TStep {
        op: TOp::MinusUn(u),
        a: s.a,
        b: Some(m),
        form: Form::Full,
        dst: t.dst,
        inplace: inplace_over(t.dst, &s.a, &m),
        c: None,
    })
}

/// Merges a `TOp::MulThen` step with the unary step right after it that reads its result into
/// one `TOp::ScaledUn` step, when no later step reads the product's tile and the unary's result
/// does not go over the tile of a value the product step reads: `tanh(x * 2.0 + y)` in one pass.
fn merge_scaled_unary<T: TFloat>(steps: &[TStep<T>], k: usize) -> Option<TStep<T>> {
    let (s, t) = (&steps[k], steps.get(k + 1)?);
    let (
        TOp::MulThen {
            outer,
            c_right,
            scaled_left,
        },
        TOp::Un(u),
    ) = (s.op, t.op)
    else {
        return None;
    };
    let (j, sb) = (s.dst?, s.b?);
    if s.inplace.is_some()
        || t.form != Form::Full
        || full_buf(&t.a) != Some(j)
        || !dies_at(steps, k + 1, j)
        || (t.dst.is_some() && [full_buf(&s.a), full_buf(&sb)].contains(&t.dst))
    {
        return None;
    }
    #[cfg(test)]
    MERGED_SCALED_UNARY.with(|c| c.set(c.get() + 1));
    Some(TStep {
        op: TOp::ScaledUn {
            outer,
            c_right,
            scaled_left,
            u,
        },
        a: s.a,
        b: Some(sb),
        form: Form::Full,
        dst: t.dst,
        inplace: None,
        c: s.c,
    })
}

/// Merges a unary step with the arithmetic step right after it that reads its result (and a
/// value of the group's shape or a constant) into one `TOp::UnThen` step, when no later step
/// reads the unary's tile: `sigmoid(y) * t` in one pass over the tile instead of two. When the
/// result goes over the tile of the unary's operand or of the other value, the merged step
/// runs in place on it.
fn merge_unary_then<T: TFloat>(steps: &[TStep<T>], k: usize) -> Option<TStep<T>> {
    let (s, t) = (&steps[k], steps.get(k + 1)?);
    let (TOp::Un(u), TOp::Bin(outer)) = (s.op, t.op) else {
        return None;
    };
    let j = s.dst?;
    if s.form != Form::Full || t.form != Form::Full || !full(&s.a) {
        return None;
    }
    let (y, un_left) = other_than(t, j)?;
    if !(full(&y) || matches!(y.loc, Loc::Const(_))) || !dies_at(steps, k + 1, j) {
        return None;
    }
    let x = s.a;
    let inplace = inplace_over(t.dst, &x, &y);
    #[cfg(test)]
    MERGED_UNARY.with(|c| c.set(c.get() + 1));
    Some(TStep {
        op: TOp::UnThen { u, outer, un_left },
        a: x,
        b: Some(y),
        form: Form::Full,
        dst: t.dst,
        inplace,
        c: None,
    })
}

/// `x * c` followed by `+ - * /` of its result with another value of the group's shape
/// (elementwise_chain's `x * 2.0 + y` and `... - 0.5 * x`) as one [`TOp::MulThen`] step: one
/// pass over the tile instead of two, and no scratch tile written and read back between them
/// (the simple passes are bound by L1 stores, docs/fusion.md). Only when the product's tile
/// is read by nothing else before it is written again; when the result goes over the tile of
/// either value the merged step reads, it runs in place on it.
fn merge_scaled<T: TFloat>(steps: &[TStep<T>], k: usize) -> Option<TStep<T>> {
    let (s, t) = (&steps[k], steps.get(k + 1)?);
    let (TOp::Bin(Bin::Mul), TOp::Bin(outer)) = (s.op, t.op) else {
        return None;
    };
    let sb = s.b?;
    let (x, c, c_right) = match (s.a.loc, sb.loc) {
        (_, Loc::Const(c)) if full(&s.a) => (s.a, c, true),
        (Loc::Const(c), _) if full(&sb) => (sb, c, false),
        _ => return None,
    };
    let j = s.dst?;
    let tb = t.b?;
    if s.form != Form::Full || t.form != Form::Full || !full(&t.a) || !full(&tb) {
        return None;
    }
    let (y, scaled_left) = other_than(t, j)?;
    // The product's tile: read by no later step before one writes it again (the
    // second op itself, when its result goes over the product).
    if !dies_at(steps, k + 1, j) {
        return None;
    }
    let inplace = inplace_over(t.dst, &x, &y);
    #[cfg(test)]
    MERGED_STEPS.with(|c| c.set(c.get() + 1));
    Some(TStep {
        op: TOp::MulThen {
            outer,
            c_right,
            scaled_left,
        },
        a: x,
        b: Some(y),
        form: Form::Full,
        dst: t.dst,
        inplace,
        c: Some(c),
    })
}

#[cfg(test)]
thread_local! {
    /// Runs of the typed path on this thread (tests check that it covers what they test).
    static TYPED_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Of those, the runs of [`run_repeat`]'s rounds tile by tile.
    static ROUND_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Of those, the runs that took the unfused softmax's row function ([`row_softmax_input`]).
    static ROW_SOFTMAX_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Of those, the runs that prefetched the next tile.
    static PREFETCHED_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Pairs of steps merged into one `TOp::MulThen` step by the plans made on this thread.
    static MERGED_STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Pairs merged into one `TOp::UnThen` step.
    static MERGED_UNARY: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// `TOp::MulThen` steps merged with a unary step into one `TOp::ScaledUn` step.
    static MERGED_SCALED_UNARY: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Row subtractions merged with a unary step into one `TOp::MinusUn` step.
    static MERGED_MINUS_UNARY: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// An operand's elements for one tile, relative to the step's result form.
enum View<'a, T> {
    /// One per result element.
    Slice(&'a [T]),
    /// One for all.
    Const(T),
    /// One per row of the (full) result.
    PerRow(&'a [T]),
}

/// Calls `f` with the elements of each tensor (`None`: an empty slice), read-locked for the
/// duration of the call. `None` if one is not contiguous or not of type `T`.
fn with_slices<T: Element, R>(
    ts: &[Option<&Tensor>],
    parts: &mut Vec<(*const T, usize)>,
    f: &mut dyn FnMut(&[&[T]]) -> R,
) -> Option<R> {
    match ts.split_first() {
        None => {
            // SAFETY: each part is the slice an enclosing `with_slice` call lent (or an empty
            // slice); those calls are all still running, so their read guards keep the memory
            // alive and unwritten while `f` runs.
            let s: Vec<&[T]> = parts
                .iter()
                .map(|&(p, n)| unsafe { std::slice::from_raw_parts(p, n) })
                .collect();
            Some(f(&s))
        }
        Some((None, rest)) => {
            parts.push((std::ptr::NonNull::<T>::dangling().as_ptr(), 0));
            with_slices(rest, parts, f)
        }
        Some((Some(t), rest)) => t
            .with_slice::<T, Option<R>>(|s| {
                parts.push((s.as_ptr(), s.len()));
                with_slices(rest, parts, f)
            })
            .flatten(),
    }
}

/// Runs a typed plan over the group (see [`run_owned`]): tiles of whole rows (`tile / row`
/// rows, at least one) or of `tile` elements, each step one slice kernel over the tile.
fn run_typed<T: TFloat>(
    plan: &TPlan<T>,
    inputs: &[Value],
    layout: &Layout,
    shape: &[usize],
    tile: usize,
    rounds: Option<Rounds<'_>>,
) -> Option<StepResult<Tensor>> {
    let last = plan.steps.len().checked_sub(1)?;
    let n: usize = layout.group.iter().product();
    let n_out: usize = shape.iter().product();
    let row = layout.row.max(1);
    let out_row = if plan.steps[last].form == Form::Full {
        row
    } else {
        1
    };
    if out_row != layout.out_row || n / row * out_row != n_out {
        return None;
    }
    #[cfg(test)]
    TYPED_RUNS.with(|c| c.set(c.get() + 1));
    #[cfg(test)]
    if rounds.is_some() {
        ROUND_RUNS.with(|c| c.set(c.get() + 1));
    }
    if rounds.is_none()
        && let Some(x) = row_softmax_input(plan, inputs, layout)
    {
        // The unfused softmax's row function: the same kernels in the same order as these
        // four steps (max, exp of the shift, sum as f64 rounded to T, division), so the same
        // bits, without the tile interpreter's per-step work (about 15% of this group).
        #[cfg(test)]
        ROW_SOFTMAX_RUNS.with(|c| c.set(c.get() + 1));
        return Some(at(last, super::reduce::softmax(x, -1, None)));
    }
    let rows_per_tile = (tile / row).max(1);
    let te = rows_per_tile * row;
    let mut out = match crate::bufpool::alloc::<T>(n_out) {
        Ok(v) => v,
        Err(e) => return Some(at(last, Err(e))),
    };
    let used = read_inputs(plan, inputs);
    let threads = vmath::num_threads();
    let parallel = n.saturating_mul(plan.steps.len()) >= vmath::PAR_MIN && n > te && threads > 1;
    let task = task_elements(n, te, if parallel { threads } else { 1 });
    let heavy = plan
        .steps
        .iter()
        .filter(|s| {
            matches!(
                s.op,
                TOp::Un(_) | TOp::UnThen { .. } | TOp::ScaledUn { .. } | TOp::MinusUn(_)
            )
        })
        .count();
    // (Rounds run on tiles in L1: nothing to fetch ahead.)
    let prefetch = rounds.is_none()
        && n_out * std::mem::size_of::<T>() >= PREFETCH_MIN
        && heavy >= PREFETCH_HEAVY;
    #[cfg(test)]
    if prefetch {
        PREFETCHED_RUNS.with(|c| c.set(c.get() + 1));
    }
    let pf_inputs = if prefetch {
        Prefetch::inputs(plan)
    } else {
        SmallVec::new()
    };
    let done = with_slices::<T, ()>(&used, &mut Vec::new(), &mut |slices| {
        let task_out = task / row * out_row;
        let body = |ti: usize, chunk: &mut [T]| {
            let glen = chunk.len() / out_row * row;
            let mut full: Vec<Vec<T>> = (0..plan.full_bufs)
                .map(|_| vec![T::default(); te.min(glen)])
                .collect();
            let mut rows: Vec<Vec<T>> = (0..plan.row_bufs)
                .map(|_| vec![T::default(); rows_per_tile])
                .collect();
            let out_te = te / row * out_row;
            // Rounds ping-pong between two tiles; the last writes the output.
            let mut turns: [Vec<T>; 2] = match rounds {
                Some(_) => [vec![T::default(); out_te], vec![T::default(); out_te]],
                None => [Vec::new(), Vec::new()],
            };
            let mut rest: &mut [T] = chunk;
            let mut start = ti * task;
            while !rest.is_empty() {
                let m = out_te.min(rest.len());
                let (oc, tail) = std::mem::take(&mut rest).split_at_mut(m);
                let len = oc.len() / out_row * row;
                // The next tile of this task, fetched while this one runs.
                let next_out = &tail[..out_te.min(tail.len())];
                let pre = (prefetch && !next_out.is_empty()).then(|| {
                    let next_len = next_out.len() / out_row * row;
                    Prefetch::new(&pf_inputs, slices, next_out, start + len, next_len)
                });
                match rounds {
                    None => typed_tile(
                        plan,
                        slices,
                        &mut full,
                        &mut rows,
                        start,
                        len,
                        row,
                        oc,
                        pre.as_ref(),
                        None,
                    ),
                    Some(r) => {
                        let [a, b] = &mut turns;
                        for k in 0..r.count {
                            let last = k + 1 == r.count;
                            let (from, to) = if k % 2 == 0 {
                                (&*b, &mut *a)
                            } else {
                                (&*a, &mut *b)
                            };
                            let to: &mut [T] = if last { &mut *oc } else { &mut to[..len] };
                            let carried = (k > 0).then_some((r.carried, &from[..len]));
                            typed_tile(
                                plan, slices, &mut full, &mut rows, start, len, row, to, None,
                                carried,
                            );
                        }
                    }
                }
                rest = tail;
                start += len;
            }
        };
        if parallel {
            crate::par::for_each_chunk_mut(&mut out, task_out, body);
        } else {
            out.chunks_mut(task_out)
                .enumerate()
                .for_each(|(ti, c)| body(ti, c));
        }
    });
    done?;
    Some(at(last, Tensor::from_vec(out, shape)))
}

/// The input of a plan that is exactly softmax over the rows of one contiguous input:
/// `m = max(x)` per row, `e = exp(x - m)`, `s = sum(e)` per row, `e / s` (the pattern of
/// `x.amax(-1, keepdim=True)`, `torch.exp(x - m)`, `e.sum(-1, keepdim=True)`, `e / s`), with
/// the group's shape that input's. (The two reads of `x` may be two inputs of the group
/// holding the same view.)
fn row_softmax_input<'a, T: TFloat>(
    plan: &TPlan<T>,
    inputs: &'a [Value],
    layout: &Layout,
) -> Option<&'a Tensor> {
    let [max, exp, sum, div] = plan.steps.as_slice() else {
        return None;
    };
    let input = |a: &TArg<T>| match (a.form, a.loc) {
        (Form::Full, Loc::In(i)) => match inputs.get(i) {
            Some(Value::Tensor(t)) => Some(t),
            _ => None,
        },
        _ => None,
    };
    let buf = |a: &TArg<T>, f: Form| match a.loc {
        Loc::Buf(i) if a.form == f => Some(i),
        _ => None,
    };
    let (x, m) = match (max.op, max.dst, max.form) {
        (TOp::Red(Red::Max), Some(m), Form::Row) => (input(&max.a)?, m),
        _ => return None,
    };
    let (x2, e) = match (exp.op, exp.dst, exp.form, exp.b.as_ref()) {
        (TOp::MinusUn(Un::Exp), Some(e), Form::Full, Some(b)) if buf(b, Form::Row) == Some(m) => {
            (input(&exp.a)?, e)
        }
        _ => return None,
    };
    let s = match (sum.op, sum.dst, sum.form) {
        (TOp::Red(Red::Sum), Some(s), Form::Row) if buf(&sum.a, Form::Full) == Some(e) => s,
        _ => return None,
    };
    let last_div = matches!(div.op, TOp::Bin(Bin::Div))
        && div.dst.is_none()
        && div.form == Form::Full
        && buf(&div.a, Form::Full) == Some(e)
        && div.b.as_ref().and_then(|b| buf(b, Form::Row)) == Some(s);
    let same_view = x.shares_storage(x2)
        && x.storage_offset() == x2.storage_offset()
        && x.shape() == x2.shape()
        && x2.is_contiguous();
    let rows_of_x = layout.by_rows
        && x.dtype() == T::DTYPE
        && x.is_contiguous()
        && x.shape() == layout.group.as_slice()
        && x.shape().last() == Some(&layout.row);
    (last_div && same_view && rows_of_x).then_some(x)
}

/// The inputs a typed plan reads in place (`None` for the others).
fn read_inputs<'a, T: TFloat>(plan: &TPlan<T>, inputs: &'a [Value]) -> Vec<Option<&'a Tensor>> {
    inputs
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Tensor(t)
                if plan.steps.iter().any(|s| {
                    [Some(s.a), s.b]
                        .into_iter()
                        .flatten()
                        .any(|x| matches!(x.loc, Loc::In(j) if j == i))
                }) =>
            {
                Some(t)
            }
            _ => None,
        })
        .collect()
}

/// A group ending in `max(x)`/`min(x)` (`max`: which) of a float value of the group's shape:
/// the steps before it run through a typed plan in tiles of [`vmath::ELEM_CHUNK`] elements,
/// and each tile is reduced as soon as it is computed. The unfused all-reduce reduces the
/// same pieces with the same lane function and combines their extremes in order
/// (`reduce::lane_extreme`), so the result is bit-identical to it, down to the first NaN and
/// the sign of a zero maximum, and the reduced value is never materialized. `None`: not
/// covered (the group then runs unfused).
fn run_extreme(
    p: &Program,
    inputs: &[Value],
    metas: &[Meta],
    group: Vec<usize>,
    dtype: DType,
    max: bool,
) -> Option<StepResult<Tensor>> {
    let last = p.steps.len().checked_sub(1)?;
    let n: usize = group.iter().product();
    // The reduced value is the step before (every step feeds the result).
    if n < vmath::PAR_MIN
        || !matches!(p.steps[last].args.first(), Some(Operand::Step(i)) if *i + 1 == last)
    {
        return None;
    }
    let head = Program {
        inputs: p.inputs,
        steps: p.steps[..last].to_vec(),
    };
    let layout = Layout {
        group,
        by_rows: false,
        row: 1,
        out_row: 1,
        tile: vmath::ELEM_CHUNK,
    };
    let red = if max { Red::Max } else { Red::Min };
    let metas = &metas[..last];
    let t = match dtype {
        DType::Float32 => {
            let plan = typed_plan::<f32>(&head, inputs, metas, &layout)?;
            Tensor::from_vec(vec![typed_extreme(&plan, inputs, n, red)?], &[])
        }
        DType::Float64 => {
            let plan = typed_plan::<f64>(&head, inputs, metas, &layout)?;
            Tensor::from_vec(vec![typed_extreme(&plan, inputs, n, red)?], &[])
        }
        _ => return None,
    };
    Some(at(last, t))
}

/// `red` (max or min) of the `n` elements a typed plan computes, tile by tile (see
/// [`run_extreme`]).
fn typed_extreme<T: TFloat + Send>(
    plan: &TPlan<T>,
    inputs: &[Value],
    n: usize,
    red: Red,
) -> Option<T> {
    if plan.row_bufs != 0 {
        return None;
    }
    #[cfg(test)]
    TYPED_RUNS.with(|c| c.set(c.get() + 1));
    // L1-sized tiles (the input's, the scratch and the output tile together), two
    // `ELEM_CHUNK`s per task: small enough to balance two threads on L2-sized inputs.
    let te = TYPED_TILE;
    let tiles = n.div_ceil(te);
    let per_task = (2 * vmath::ELEM_CHUNK / te).max(1);
    let used = read_inputs(plan, inputs);
    with_slices::<T, T>(&used, &mut Vec::new(), &mut |slices| {
        let task = |t: usize| -> Vec<T> {
            let mut full: Vec<Vec<T>> = (0..plan.full_bufs)
                .map(|_| vec![T::default(); te])
                .collect();
            let mut out = vec![T::default(); te];
            (t * per_task..((t + 1) * per_task).min(tiles))
                .map(|j| {
                    let start = j * te;
                    let len = te.min(n - start);
                    typed_tile(
                        plan,
                        slices,
                        &mut full,
                        &mut [],
                        start,
                        len,
                        1,
                        &mut out[..len],
                        None,
                        None,
                    );
                    T::reduce(red, &out[..len])
                })
                .collect()
        };
        let tasks = tiles.div_ceil(per_task);
        let parts: Vec<T> = if vmath::num_threads() > 1 {
            crate::par::map_collect(tasks, task).concat()
        } else {
            (0..tasks).flat_map(task).collect()
        };
        T::reduce(red, &parts)
    })
}

/// A typed plan prefetches ([`Prefetch`]) when its output has at least `PREFETCH_MIN` bytes
/// (smaller ones are likely cache-resident already: 1 MiB is Zen 4's L2 per core) and it has
/// at least `PREFETCH_HEAVY` vector-math unary steps, i.e. when its tiles compute long enough
/// to hide the next tile's memory. A group that mostly moves memory gains nothing: softmax
/// over rows (one `exp`) had its fastest calls 1.2x slower with prefetching, its median
/// unchanged (docs/fusion.md).
const PREFETCH_MIN: usize = 1 << 20;
const PREFETCH_HEAVY: usize = 2;

/// The memory the next tile of a typed plan reads from the group's inputs in place and writes
/// to the output, requested in one part per step of the current tile.
///
/// Why: a tile's steps touch memory in bursts (the first step reading an input, the last one
/// writing the output) between which the transcendental kernels run on the L1-resident tiles
/// with the memory bus idle, and the hardware's stream prefetchers do not cross the 4 KiB
/// pages (a float32 tile is one). Spread over the steps, the next tile's lines arrive while this one computes:
/// elementwise_chain 4M ran in 0.81-0.84x the time without on 2 threads, 0.79x on one
/// (docs/fusion.md). The same requests all at the start of a tile filled the miss buffers and
/// stalled the kernels behind them (0.89x).
struct Prefetch {
    /// The first byte of each stream, its cache lines, and whether it is written.
    streams: SmallVec<[(*const u8, usize, bool); 4]>,
}

impl Prefetch {
    /// The plan's inputs read in place with the group's shape, each once (the same for every
    /// tile: found once per run).
    fn inputs<T: TFloat>(plan: &TPlan<T>) -> SmallVec<[usize; 4]> {
        let mut ins: SmallVec<[usize; 4]> = SmallVec::new();
        for st in &plan.steps {
            for x in std::iter::once(&st.a).chain(st.b.as_ref()) {
                if let (Loc::In(i), Form::Full) = (x.loc, x.form)
                    && !ins.contains(&i)
                {
                    ins.push(i);
                }
            }
        }
        ins
    }

    /// The lines of elements `start .. start + len` of the inputs `ins` ([`Prefetch::inputs`])
    /// and of `out`.
    fn new<T: TFloat>(
        ins: &[usize],
        inputs: &[&[T]],
        out: &[T],
        start: usize,
        len: usize,
    ) -> Prefetch {
        let lines = |n: usize| (n * std::mem::size_of::<T>()).div_ceil(64);
        let mut streams: SmallVec<[(*const u8, usize, bool); 4]> = SmallVec::new();
        for &i in ins {
            if let Some(s) = inputs[i].get(start..) {
                // (Two inputs may be one array.)
                let p = s.as_ptr() as *const u8;
                if !streams.iter().any(|t| t.0 == p) {
                    streams.push((p, lines(len.min(s.len())), false));
                }
            }
        }
        streams.push((out.as_ptr() as *const u8, lines(out.len()), true));
        Prefetch { streams }
    }

    /// Requests part `k` of `parts` of every stream's lines: inputs into L2, output lines for
    /// writing (`prefetchw`, so the stores find them owned).
    #[inline]
    fn part(&self, k: usize, parts: usize) {
        // (A hint only: other architectures skip it.)
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (&self.streams, k, parts);
        #[cfg(target_arch = "x86_64")]
        for &(p, lines, write) in &self.streams {
            use std::arch::x86_64::{_MM_HINT_ET1, _MM_HINT_T1, _mm_prefetch};
            for l in lines * k / parts..lines * (k + 1) / parts {
                let a = p.wrapping_add(l * 64) as *const i8;
                // SAFETY: a prefetch never faults (and `a` is within the stream).
                unsafe {
                    if write {
                        _mm_prefetch::<_MM_HINT_ET1>(a)
                    } else {
                        _mm_prefetch::<_MM_HINT_T1>(a)
                    }
                }
            }
        }
    }
}

/// The steps of a typed plan over group elements `start .. start + len` (whole rows of `row`
/// elements), the last one's result written to `out`.
#[allow(clippy::too_many_arguments)]
fn typed_tile<T: TFloat>(
    plan: &TPlan<T>,
    inputs: &[&[T]],
    full: &mut [Vec<T>],
    rowbufs: &mut [Vec<T>],
    start: usize,
    len: usize,
    row: usize,
    out: &mut [T],
    pre: Option<&Prefetch>,
    carried: Option<(&[usize], &[T])>,
) {
    let rows = len / row;
    let r0 = start / row;
    let size = |f: Form| if f == Form::Full { len } else { rows };
    for (k, st) in plan.steps.iter().enumerate() {
        if let Some(p) = pre {
            p.part(k, plan.steps.len());
        }
        let m = size(st.form);
        let mut taken = st.dst.map(|i| match st.form {
            Form::Full => std::mem::take(&mut full[i]),
            _ => std::mem::take(&mut rowbufs[i]),
        });
        let dst: &mut [T] = match &mut taken {
            Some(v) => &mut v[..m],
            None => &mut out[..m],
        };
        {
            let (full, rowbufs) = (&*full, &*rowbufs);
            let view = |x: &TArg<T>| -> View<'_, T> {
                let s: &[T] = match x.loc {
                    Loc::Const(c) => return View::Const(c),
                    Loc::In(i) => match (x.form, carried) {
                        (Form::Full, Some((js, tile))) if js.contains(&i) => &tile[..len],
                        (Form::Full, _) => &inputs[i][start..start + len],
                        _ => &inputs[i][r0..r0 + rows],
                    },
                    Loc::Buf(i) => match x.form {
                        Form::Full => &full[i][..len],
                        _ => &rowbufs[i][..rows],
                    },
                };
                if x.form == Form::Row && st.form == Form::Full {
                    View::PerRow(s)
                } else {
                    View::Slice(s)
                }
            };
            match st.op {
                TOp::Un(u) => match st.inplace {
                    Some(_) => T::unary_inplace(u, dst),
                    None => match view(&st.a) {
                        View::Slice(x) => T::unary(u, x, dst),
                        _ => unreachable!("a unary op's operand has its form"),
                    },
                },
                TOp::ScaledUn {
                    outer,
                    c_right,
                    scaled_left,
                    u,
                } => match (view(&st.a), st.b.as_ref().map(view), st.c) {
                    (View::Slice(x), Some(View::Slice(y)), Some(c)) => {
                        T::scaled_unary(outer, c, c_right, scaled_left, u, x, y, dst)
                    }
                    _ => unreachable!("a merged step reads two values of its form"),
                },
                TOp::UnThen { u, outer, un_left } => {
                    // In place: `dst` is the tile of the operand (0) or of the second value.
                    let x = match st.inplace {
                        Some(0) => None,
                        _ => match view(&st.a) {
                            View::Slice(x) => Some(x),
                            _ => unreachable!("a unary op's operand has its form"),
                        },
                    };
                    let y = match st.inplace {
                        Some(1) => vmath::ThenArg::Out,
                        _ => match st.b.as_ref().map(view) {
                            Some(View::Slice(y)) => vmath::ThenArg::Slice(y),
                            Some(View::Const(c)) => vmath::ThenArg::Const(c),
                            _ => unreachable!("a merged step's second value is full or a constant"),
                        },
                    };
                    T::unary_then(u, outer, un_left, x, y, dst)
                }
                TOp::MulThen {
                    outer,
                    c_right,
                    scaled_left,
                } => {
                    // In place: `dst` is the tile of the scaled value (0) or of the other.
                    let a = (st.inplace != Some(0)).then(|| view(&st.a));
                    let b = (st.inplace != Some(1)).then(|| st.b.as_ref().map(view));
                    let Some(c) = st.c else {
                        unreachable!("a merged step has its constant")
                    };
                    match (a, b) {
                        (Some(View::Slice(x)), Some(Some(View::Slice(y)))) => {
                            T::mul_then(outer, c, c_right, scaled_left, x, y, dst)
                        }
                        (None, Some(Some(View::Slice(y)))) => {
                            T::mul_then_inplace(outer, c, c_right, scaled_left, y, dst, true)
                        }
                        (Some(View::Slice(x)), None) => {
                            T::mul_then_inplace(outer, c, c_right, scaled_left, x, dst, false)
                        }
                        _ => unreachable!("a merged step reads two values of its form"),
                    }
                }
                TOp::MinusUn(u) => {
                    let Some(View::PerRow(m)) = st.b.as_ref().map(view) else {
                        unreachable!("a row shift's second value is one per row")
                    };
                    if st.inplace == Some(0) {
                        for (d, &c) in dst.chunks_exact_mut(row).zip(m) {
                            T::unary_minus_inplace(u, d, c);
                        }
                    } else {
                        let View::Slice(x) = view(&st.a) else {
                            unreachable!("a row shift's operand has the group's form")
                        };
                        for ((d, xs), &c) in
                            dst.chunks_exact_mut(row).zip(x.chunks_exact(row)).zip(m)
                        {
                            T::unary_minus(u, xs, c, d);
                        }
                    }
                }
                TOp::Red(r) => {
                    if let View::Slice(x) = view(&st.a) {
                        for (o, lane) in dst.iter_mut().zip(x.chunks_exact(row)) {
                            *o = T::reduce(r, lane);
                        }
                    }
                }
                TOp::Bin(op) => {
                    let Some(bv) = st.b.as_ref() else {
                        unreachable!("a binary op has two operands")
                    };
                    match st.inplace {
                        Some(0) => match view(bv) {
                            View::Slice(y) => T::zip_inplace(op, dst, y),
                            View::Const(c) => T::with_const_inplace(op, dst, c, true),
                            View::PerRow(r) => {
                                for (d, &c) in dst.chunks_exact_mut(row).zip(r) {
                                    T::with_const_inplace(op, d, c, true);
                                }
                            }
                        },
                        Some(_) => match view(&st.a) {
                            View::Const(c) => T::with_const_inplace(op, dst, c, false),
                            View::PerRow(r) => {
                                for (d, &c) in dst.chunks_exact_mut(row).zip(r) {
                                    T::with_const_inplace(op, d, c, false);
                                }
                            }
                            View::Slice(_) => unreachable!("planned in place on the left"),
                        },
                        None => match (view(&st.a), view(bv)) {
                            (View::Slice(x), View::Slice(y)) => T::zip(op, x, y, dst),
                            (View::Slice(x), View::Const(c)) => T::with_const(op, x, c, true, dst),
                            (View::Const(c), View::Slice(y)) => T::with_const(op, y, c, false, dst),
                            (View::Slice(x), View::PerRow(r)) => {
                                for ((d, xs), &c) in
                                    dst.chunks_exact_mut(row).zip(x.chunks_exact(row)).zip(r)
                                {
                                    T::with_const(op, xs, c, true, d);
                                }
                            }
                            (View::PerRow(r), View::Slice(y)) => {
                                for ((d, ys), &c) in
                                    dst.chunks_exact_mut(row).zip(y.chunks_exact(row)).zip(r)
                                {
                                    T::with_const(op, ys, c, false, d);
                                }
                            }
                            _ => unreachable!("a binary op's result has its widest operand's form"),
                        },
                    }
                }
            }
        }
        if let (Some(i), Some(v)) = (st.dst, taken) {
            match st.form {
                Form::Full => full[i] = v,
                _ => rowbufs[i] = v,
            }
        }
    }
}

/// The elements `start .. start + len` (row-major) of `t` broadcast to `shape`, as a 1-d tensor
/// of `t`'s dtype.
fn gather(t: &Tensor, shape: &[usize], start: usize, len: usize) -> Result<Tensor> {
    crate::with_dtype!(t.dtype(), T => {
        let data = t.with_view::<T, Option<Vec<T>>>(|v| {
            if v.shape() == shape
                && let Some(s) = v.as_slice()
            {
                return s.get(start..start + len).map(<[T]>::to_vec);
            }
            let bv = v.broadcast(IxDyn(shape))?;
            let mut out = Vec::with_capacity(len);
            let rank = shape.len();
            // Odometer over the broadcast view's multi-index, starting at flat `start`; each
            // innermost run is a contiguous slice, a repeated element or a strided walk.
            let mut idx = vec![0usize; rank];
            let mut rest = start;
            for d in (0..rank).rev() {
                idx[d] = rest % shape[d].max(1);
                rest /= shape[d].max(1);
            }
            let strides = bv.strides().to_vec();
            let inner = shape[rank - 1];
            while out.len() < len {
                let run = (inner - idx[rank - 1]).min(len - out.len());
                let mut base = 0isize;
                for d in 0..rank {
                    base += idx[d] as isize * strides[d];
                }
                let ptr = bv.as_ptr();
                let s = strides[rank - 1];
                for j in 0..run {
                    // SAFETY: `idx` with its last component advanced by `j < run` is a valid
                    // multi-index of `bv` (`idx[rank-1] + run <= inner`), and `base + j * s` is
                    // that element's offset from `bv.as_ptr()` under `bv`'s strides, so the
                    // read stays inside the storage the view borrows.
                    out.push(unsafe { *ptr.offset(base + j as isize * s) });
                }
                idx[rank - 1] += run;
                let mut d = rank - 1;
                while d > 0 && idx[d] >= shape[d] {
                    idx[d] = 0;
                    idx[d - 1] += 1;
                    d -= 1;
                }
            }
            Some(out)
        });
        match data.flatten() {
            Some(v) => Tensor::from_vec(v, &[len]),
            None => Err(RuntimeError::Value(
                "fused group: an input does not broadcast to the group's shape".into(),
            )),
        }
    })
}

/// `tanh(x * 2.0 + y) * sigmoid(y) - 0.5 * x` of inputs `x` and `y`: an elementwise chain with
/// every operand form (Python scalars, the other input, earlier steps), which the tests and the
/// `fused_tiles` example run.
pub fn example_chain() -> Program {
    let step = |name: &str, args: Vec<Operand>| Step {
        op: schema::lookup(name).expect("the chain's ops are in the op table"),
        args,
    };
    let one = Operand::Const(Value::Int(1));
    Program {
        inputs: 2,
        steps: vec![
            step(
                "mul.Scalar",
                vec![Operand::Input(0), Operand::Const(Value::Float(2.0))],
            ),
            step(
                "add.Tensor",
                vec![Operand::Step(0), Operand::Input(1), one.clone()],
            ),
            step("tanh", vec![Operand::Step(1)]),
            step("sigmoid", vec![Operand::Input(1)]),
            step("mul.Tensor", vec![Operand::Step(2), Operand::Step(3)]),
            step(
                "mul.Scalar",
                vec![Operand::Input(0), Operand::Const(Value::Float(0.5))],
            ),
            step("sub.Tensor", vec![Operand::Step(4), Operand::Step(5), one]),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_tasks_are_whole_tiles_and_even_over_the_threads() {
        for &(n, te, threads) in &[
            (100_000, 1024, 2),
            (4_000_000, 1024, 2),
            (4096 * 1024, 1024, 2),
            (70_001, 1000, 2),
            (100_000, 1024, 3),
            (5, 1024, 2),
            (100_000, 1024, 1),
            (1, 1, 1),
        ] {
            let task = task_elements(n, te, threads);
            assert_eq!(task % te, 0, "{n} {te} {threads}: whole tiles");
            let tasks = n.div_ceil(task);
            // At most one tile more per task than an even split.
            assert!(task <= n.div_ceil(tasks.max(1)) + te, "{n} {te} {threads}");
            if n >= TYPED_TASK {
                assert!(
                    tasks >= threads,
                    "{n} {te} {threads}: every thread has work"
                );
            }
        }
        // The case that was uneven: 100k elements on two threads, 50,176 and 49,824.
        assert_eq!(task_elements(100_000, 1024, 2), 50_176);
    }
    use crate::value::Scalar;

    fn op(name: &str) -> OpId {
        schema::lookup(name).expect(name)
    }

    fn step(name: &str, args: Vec<Operand>) -> Step {
        Step { op: op(name), args }
    }

    /// The operands of the reduction `name` (`sum.dim_IntList`, `mean.dim`, `amin` or `amax`)
    /// of step `x` over the last dim, kept or not: `sum` and `mean` also take a dtype.
    fn last_dim_reduction_args(name: &str, x: usize, keep: bool) -> Vec<Operand> {
        let mut args = vec![
            Operand::Step(x),
            Operand::Const(Value::Int(-1)),
            Operand::Const(Value::Bool(keep)),
        ];
        if !name.starts_with("am") {
            args.push(Operand::Const(Value::None));
        }
        args
    }

    fn ramp(shape: &[usize], dtype: DType, scale: f64) -> Tensor {
        let n: usize = shape.iter().product();
        let v: Vec<f64> = (0..n)
            .map(|i| ((i * 7919 % 1000) as f64 - 500.0) * scale)
            .collect();
        Tensor::from_vec(v, shape).unwrap().to_dtype(dtype).unwrap()
    }

    /// The fused run of `p` on `inputs` gives the unfused run's bits.
    #[track_caller]
    fn fused_equals_unfused(p: &Program, inputs: &[Value]) {
        same_bits(
            &run(p, inputs.to_vec()).unwrap(),
            &run_unfused(p, inputs).unwrap(),
        );
    }

    /// The fused run of `p` on `inputs` fails with the unfused run's error.
    #[track_caller]
    fn fails_as_unfused(p: &Program, inputs: &[Value]) {
        assert_eq!(
            run(p, inputs.to_vec()).unwrap_err(),
            run_unfused(p, inputs).unwrap_err()
        );
    }

    fn same_bits(a: &Tensor, b: &Tensor) {
        assert_eq!(a.shape(), b.shape());
        assert_eq!(a.dtype(), b.dtype());
        let (x, y) = (a.to_vec::<f64>(), b.to_vec::<f64>());
        for (i, (p, q)) in x.iter().zip(&y).enumerate() {
            assert!(
                p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()),
                "element {i}: {p} vs {q}"
            );
        }
    }

    /// `n` runs of `p`, input `carried` of each the result of the one before: the loop
    /// [`run_repeat`] stands for.
    fn runs_one_after_another(
        p: &Program,
        inputs: &[Value],
        carried: &[usize],
        n: i64,
    ) -> StepResult<Tensor> {
        let mut x = inputs[carried[0]].clone();
        for _ in 0..n {
            let mut round = inputs.to_vec();
            for &j in carried {
                round[j] = x.clone();
            }
            x = Value::Tensor(run(p, round)?);
        }
        match x {
            Value::Tensor(t) => Ok(t),
            _ => panic!("not a tensor"),
        }
    }

    #[test]
    fn repeated_groups_match_their_runs_one_after_another() {
        // `steps[a] + steps[b]`.
        let add = |a, b| {
            step(
                "add.Tensor",
                vec![
                    Operand::Step(a),
                    Operand::Step(b),
                    Operand::Const(Value::Int(1)),
                ],
            )
        };
        // iterate's body: `x * 0.9 + 0.1 * tanh(x)` (x read twice: inputs 0 and 1).
        let iterate = Program {
            inputs: 2,
            steps: vec![
                step(
                    "mul.Scalar",
                    vec![Operand::Input(0), Operand::Const(Value::Float(0.9))],
                ),
                step("tanh", vec![Operand::Input(1)]),
                step(
                    "mul.Scalar",
                    vec![Operand::Step(1), Operand::Const(Value::Float(0.1))],
                ),
                add(0, 2),
            ],
        };
        // `x * y + exp(-x)` with `y` loop-invariant (broadcast along rows or not).
        let with_y = Program {
            inputs: 3,
            steps: vec![
                step("mul.Tensor", vec![Operand::Input(0), Operand::Input(1)]),
                step("neg", vec![Operand::Input(2)]),
                step("exp", vec![Operand::Step(1)]),
                add(0, 2),
            ],
        };
        let rounds_before = ROUND_RUNS.with(|c| c.get());
        for dtype in [DType::Float32, DType::Float64] {
            for shape in [vec![100_000], vec![70, 1001], vec![5, 7], vec![33_000]] {
                let x = Value::Tensor(ramp(&shape, dtype, 0.003));
                for n in [-1, 0, 1, 2, 3, 8] {
                    let inputs = vec![x.clone(), x.clone()];
                    let a = run_repeat(&iterate, inputs.clone(), &[0, 1], n).unwrap();
                    let b = runs_one_after_another(&iterate, &inputs, &[0, 1], n).unwrap();
                    same_bits(&a, &b);
                    if n <= 0 {
                        let Value::Tensor(t) = &x else { unreachable!() };
                        assert!(a.shares_storage(t), "no round: the carried tensor itself");
                    }
                    let cols = *shape.last().unwrap();
                    for ys in [shape.clone(), vec![cols]] {
                        let y = Value::Tensor(ramp(&ys, dtype, 0.0007));
                        let inputs = vec![x.clone(), y, x.clone()];
                        let a = run_repeat(&with_y, inputs.clone(), &[0, 2], n).unwrap();
                        let b = runs_one_after_another(&with_y, &inputs, &[0, 2], n).unwrap();
                        same_bits(&a, &b);
                    }
                }
            }
        }
        assert!(
            ROUND_RUNS.with(|c| c.get()) - rounds_before >= 2 * 2 * 4,
            "rounds ran tile by tile (both dtypes, the three shapes above MIN_FUSED, n >= 2)"
        );
        let before = ROUND_RUNS.with(|c| c.get());
        // A first round that changes the shape (x of one row, y of many) or the dtype
        // (float32 x, float64 y) runs round after round, as the loop does.
        let x = Value::Tensor(ramp(&[1, 40_000], DType::Float32, 0.003));
        for y in [
            ramp(&[3, 40_000], DType::Float32, 0.001),
            ramp(&[40_000], DType::Float64, 0.001),
        ] {
            let inputs = vec![x.clone(), Value::Tensor(y), x.clone()];
            let a = run_repeat(&with_y, inputs.clone(), &[0, 2], 3).unwrap();
            let b = runs_one_after_another(&with_y, &inputs, &[0, 2], 3).unwrap();
            same_bits(&a, &b);
        }
        assert_eq!(
            ROUND_RUNS.with(|c| c.get()),
            before,
            "those ran round after round"
        );
        // An error is the first round's.
        let x = Value::Tensor(ramp(&[50_000], DType::Float32, 0.003));
        let y = Value::Tensor(ramp(&[49_999], DType::Float32, 0.003));
        let inputs = vec![x.clone(), y, x];
        assert_eq!(
            run_repeat(&with_y, inputs.clone(), &[0, 2], 4).unwrap_err(),
            runs_one_after_another(&with_y, &inputs, &[0, 2], 1).unwrap_err()
        );
    }

    #[test]
    fn fused_chain_matches_unfused_bitwise_with_broadcasting() {
        let p = example_chain();
        for (xs, ys) in [
            (vec![300, 257], vec![300, 257]),
            (vec![300, 257], vec![257]),
            (vec![1, 257], vec![300, 1]),
            (vec![70000], vec![]),
        ] {
            let x = ramp(&xs, DType::Float32, 0.01);
            let mut y = ramp(&ys, DType::Float32, 0.013);
            if ys.is_empty() {
                y = Tensor::scalar_typed(Scalar::Float(0.25), DType::Float64);
            }
            let inputs = [Value::Tensor(x), Value::Tensor(y)];
            fused_equals_unfused(&p, &inputs);
        }
    }

    #[test]
    fn errors_are_the_unfused_ones_and_come_first() {
        let p = example_chain();
        let x = ramp(&[300, 257], DType::Float32, 0.01);
        let y = ramp(&[300, 256], DType::Float32, 0.01);
        let inputs = [Value::Tensor(x), Value::Tensor(y)];
        fails_as_unfused(&p, &inputs);
        let b = Tensor::ones(&[300, 257], DType::Bool).unwrap();
        let sub = Program {
            inputs: 2,
            steps: vec![step(
                "sub.Tensor",
                vec![
                    Operand::Input(0),
                    Operand::Input(1),
                    Operand::Const(Value::Int(1)),
                ],
            )],
        };
        let inputs = [Value::Tensor(b.clone()), Value::Tensor(b)];
        fails_as_unfused(&sub, &inputs);
    }

    #[test]
    fn integer_division_by_zero_runs_unfused() {
        let x = ramp(&[200, 200], DType::Int64, 1.0);
        let p = Program {
            inputs: 1,
            steps: vec![
                step("floor_divide", vec![Operand::Input(0), Operand::Input(0)]),
                step(
                    "add.Scalar",
                    vec![
                        Operand::Step(0),
                        Operand::Const(Value::Int(1)),
                        Operand::Const(Value::Int(1)),
                    ],
                ),
            ],
        };
        let inputs = [Value::Tensor(x)];
        assert_eq!(
            run(&p, inputs.to_vec()).unwrap_err(),
            StepError {
                step: 0,
                error: RuntimeError::ZeroDivision
            },
            "the ramp holds zeros"
        );
    }

    fn softmax() -> Program {
        // m = amax(x, [1], keepdim); e = exp(x - m); s = sum(e, [1], keepdim); e / s
        let one = Operand::Const(Value::Int(1));
        let dims = Operand::Const(Value::IntList(vec![1]));
        let keep = Operand::Const(Value::Bool(true));
        Program {
            inputs: 1,
            steps: vec![
                step("amax", vec![Operand::Input(0), dims.clone(), keep.clone()]),
                step("sub.Tensor", vec![Operand::Input(0), Operand::Step(0), one]),
                step("exp", vec![Operand::Step(1)]),
                step(
                    "sum.dim_IntList",
                    vec![Operand::Step(2), dims, keep, Operand::Const(Value::None)],
                ),
                step("div.Tensor", vec![Operand::Step(2), Operand::Step(3)]),
            ],
        }
    }

    /// Rank-2 softmax inputs, which the typed row path runs: float32 and float64 rows of
    /// several lengths, and rows of one element.
    fn typed_softmax_shapes() -> [(Vec<usize>, DType); 4] {
        [
            (vec![300, 257], DType::Float32),
            (vec![40, 1000], DType::Float64),
            (vec![70000, 1], DType::Float32),
            (vec![64, 1024], DType::Float32),
        ]
    }

    /// A group that is exactly softmax over rows runs the unfused softmax's row function
    /// (`row_softmax_input`), bit for bit as the unfused steps, rows holding NaN, +-inf, an
    /// all -inf row, huge and tiny values included; a group differing in one step (`amin`
    /// for `amax`, `log` for `exp`, `mul` for the division) does not take it.
    #[test]
    fn row_softmax_groups_take_the_softmax_rows_and_match_unfused() {
        let specials = [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            3.0e38,
            -3.0e38,
            1e-40,
            -0.0,
            88.5,
            -104.0,
        ];
        for dtype in [DType::Float32, DType::Float64] {
            let (rows, n) = (257, 300);
            let mut v: Vec<f32> = (0..rows * n)
                .map(|i| ((i * 7919) % 1000) as f32 / 37.0 - 13.0)
                .collect();
            for (k, &x) in specials.iter().enumerate() {
                v[k * n * 3 + k] = x;
            }
            v[30 * n..31 * n].fill(f32::NEG_INFINITY);
            let x = Tensor::from_vec(v, &[rows, n])
                .unwrap()
                .to_dtype(dtype)
                .unwrap();
            let inputs = [Value::Tensor(x)];
            let p = softmax();
            let reference = run_unfused(&p, &inputs).unwrap();
            let before = ROW_SOFTMAX_RUNS.with(|c| c.get());
            same_bits(&run(&p, inputs.to_vec()).unwrap(), &reference);
            assert_eq!(ROW_SOFTMAX_RUNS.with(|c| c.get()), before + 1, "{dtype:?}");
            for (k, name) in [(0, "amin"), (2, "log"), (4, "mul.Tensor")] {
                let mut q = softmax();
                q.steps[k].op = op(name);
                let reference = run_unfused(&q, &inputs).unwrap();
                same_bits(&run(&q, inputs.to_vec()).unwrap(), &reference);
                assert_eq!(ROW_SOFTMAX_RUNS.with(|c| c.get()), before + 1, "{name}");
            }
            // `x` as two inputs of the group (as compiled code passes it): the same view takes
            // the row function, another tensor of the same shape does not.
            let mut two = softmax();
            two.inputs = 2;
            two.steps[1].args[0] = Operand::Input(1);
            let x = inputs[0].clone();
            let y = Value::Tensor(ramp(&[rows, n], dtype, 0.01));
            for (second, takes) in [(x.clone(), true), (y, false)] {
                let both = [x.clone(), second];
                let reference = run_unfused(&two, &both).unwrap();
                let n = ROW_SOFTMAX_RUNS.with(|c| c.get());
                same_bits(&run(&two, both.to_vec()).unwrap(), &reference);
                assert_eq!(ROW_SOFTMAX_RUNS.with(|c| c.get()), n + usize::from(takes));
            }
        }
    }

    #[test]
    fn row_reductions_match_unfused_bitwise() {
        let p = softmax();
        let rank3 = (vec![3, 100, 257], DType::Float32);
        for (shape, dtype) in typed_softmax_shapes().into_iter().chain([rank3]) {
            let x = ramp(&shape, dtype, 0.01);
            let inputs = [Value::Tensor(x)];
            let reference = run_unfused(&p, &inputs).unwrap();
            for tile in [1, 1000, TILE, 1 << 20] {
                same_bits(&run_with_tile(&p, &inputs, tile).unwrap(), &reference);
            }
        }
        // A reduction as the result, kept or not, and mean; the last dim as -1.
        for (name, keep) in [
            ("sum.dim_IntList", false),
            ("mean.dim", true),
            ("amin", false),
        ] {
            let args = last_dim_reduction_args(name, 0, keep);
            let q = Program {
                inputs: 1,
                steps: vec![
                    step("mul.Tensor", vec![Operand::Input(0), Operand::Input(0)]),
                    step(name, args),
                ],
            };
            let x = ramp(&[500, 300], DType::Float32, 0.01);
            let inputs = [Value::Tensor(x)];
            let reference = run_unfused(&q, &inputs).unwrap();
            for tile in [1, 7000, TILE] {
                same_bits(&run_with_tile(&q, &inputs, tile).unwrap(), &reference);
            }
        }
    }

    /// `x - m` of a row value followed by a unary step reading it is one `TOp::MinusUn` step
    /// (`merge_minus_unary`): softmax (`exp`, which has an AVX-512 loop of it), `tanh` and
    /// `log1p` (which do not), over an input and over a step's tile (which may be overwritten
    /// in place); bit for bit against unfused, both dtypes, several row splits. Not merged: the
    /// difference read again later, the row value on the left (`m - x`).
    #[test]
    fn row_shifts_merge_with_the_unary_after_them_and_match_unfused() {
        let one = || Operand::Const(Value::Int(1));
        let dims = || Operand::Const(Value::IntList(vec![1]));
        let keep = || Operand::Const(Value::Bool(true));
        let x = || Operand::Input(0);
        let amax = |v: Operand| step("amax", vec![v, dims(), keep()]);
        let sub = |a: Operand, b: Operand| step("sub.Tensor", vec![a, b, one()]);
        let s = Operand::Step;
        let mut cases: Vec<(Program, usize)> = vec![(softmax(), 1)];
        for u in ["tanh", "log1p", "exp"] {
            // m = amax(x); u(x - m)
            let steps = vec![amax(x()), sub(x(), s(0)), step(u, vec![s(1)])];
            cases.push((Program { inputs: 1, steps }, 1));
        }
        // Over a step's tile, y = x * x; exp(y - amax(y)): as the result, and in place over
        // y's tile and read on after (e * e).
        let of_square = || {
            vec![
                step("mul.Tensor", vec![x(), x()]),
                amax(s(0)),
                sub(s(0), s(1)),
                step("exp", vec![s(2)]),
            ]
        };
        let mut read_on = of_square();
        read_on.push(step("mul.Tensor", vec![s(3), s(3)]));
        for steps in [of_square(), read_on] {
            cases.push((Program { inputs: 1, steps }, 1));
        }
        // The difference read again: (x - m) * exp(x - m).
        cases.push((
            Program {
                inputs: 1,
                steps: vec![
                    amax(x()),
                    sub(x(), s(0)),
                    step("exp", vec![s(1)]),
                    step("mul.Tensor", vec![s(1), s(2)]),
                ],
            },
            0,
        ));
        // The row value on the left: exp(m - x).
        cases.push((
            Program {
                inputs: 1,
                steps: vec![amax(x()), sub(s(0), x()), step("exp", vec![s(1)])],
            },
            0,
        ));
        let tiles = [1, 1000, 4096, TILE, 1 << 20];
        for (p, merges) in cases {
            for (shape, dtype) in typed_softmax_shapes() {
                let before = MERGED_MINUS_UNARY.with(|c| c.get());
                typed_matches(&p, &[Value::Tensor(specials(&shape, dtype))], &tiles);
                let got = MERGED_MINUS_UNARY.with(|c| c.get()) - before;
                assert_eq!(got, merges * (tiles.len() + 1), "{shape:?} {:?}", p.steps);
            }
        }
    }

    #[test]
    fn row_reductions_of_other_dims_run_unfused() {
        // amax over dim 0, and a sum over a broadcast last dim: the same results as unfused.
        for (shape, dim) in [(vec![300, 257], 0), (vec![300, 1], 1)] {
            let x = ramp(&shape, DType::Float32, 0.01);
            let y = ramp(&[300, 257], DType::Float32, 0.02);
            let p = Program {
                inputs: 2,
                steps: vec![
                    step("exp", vec![Operand::Input(0)]),
                    step(
                        "sum.dim_IntList",
                        vec![
                            Operand::Step(0),
                            Operand::Const(Value::IntList(vec![dim])),
                            Operand::Const(Value::Bool(true)),
                            Operand::Const(Value::None),
                        ],
                    ),
                    step("mul.Tensor", vec![Operand::Step(1), Operand::Input(1)]),
                ],
            };
            let inputs = [Value::Tensor(x), Value::Tensor(y)];
            fused_equals_unfused(&p, &inputs);
        }
    }

    /// `x` with NaN, ±inf, ±0 and large values sprinkled in (every 97th element).
    fn specials(shape: &[usize], dtype: DType) -> Tensor {
        let n: usize = shape.iter().product();
        let s = super::super::TEST_SPECIALS;
        let v: Vec<f64> = (0..n)
            .map(|i| {
                if i % 97 == 3 {
                    s[(i / 97) % s.len()]
                } else {
                    ((i * 7919 % 1000) as f64 - 500.0) * 0.01
                }
            })
            .collect();
        Tensor::from_vec(v, shape).unwrap().to_dtype(dtype).unwrap()
    }

    /// The typed path runs `p` on `inputs` (for every tile size given) with the bits of the
    /// unfused run and of the kernel-call tiles.
    #[track_caller]
    fn typed_matches(p: &Program, inputs: &[Value], tiles: &[usize]) {
        let reference = run_unfused(p, inputs).unwrap();
        same_bits(&run_with_tile_untyped(p, inputs, TILE).unwrap(), &reference);
        for &tile in tiles {
            let before = TYPED_RUNS.with(|c| c.get());
            let r = run_with_tile(p, inputs, tile).unwrap();
            assert_eq!(
                TYPED_RUNS.with(|c| c.get()),
                before + 1,
                "the typed path ran (tile {tile})"
            );
            same_bits(&r, &reference);
        }
        let before = TYPED_RUNS.with(|c| c.get());
        same_bits(&run(p, inputs.to_vec()).unwrap(), &reference);
        assert_eq!(TYPED_RUNS.with(|c| c.get()), before + 1);
    }

    #[test]
    fn typed_chain_matches_unfused_for_every_operand_form() {
        let p = example_chain();
        for dtype in [DType::Float32, DType::Float64] {
            // Same shape; a 0-d and a one-element operand of the dtype (constants); the
            // Python scalars of the chain are constants in every case.
            for ys in [vec![300, 257], vec![], vec![1, 1]] {
                let x = specials(&[300, 257], dtype);
                let y = if ys.is_empty() {
                    Tensor::scalar_typed(Scalar::Float(0.25), dtype)
                } else if ys == [1, 1] {
                    Tensor::full(&ys, Scalar::Float(-1.5), dtype).unwrap()
                } else {
                    specials(&ys, dtype)
                };
                let inputs = [Value::Tensor(x), Value::Tensor(y)];
                typed_matches(&p, &inputs, &[1, 7, 1000, 4096, TILE, 1 << 20]);
            }
        }
    }

    #[test]
    fn typed_reversed_division_matches_unfused() {
        // `1.0 / (1.0 + exp(-y)) * x` as NumPy spells a sigmoid: `rdiv.Scalar` on the typed
        // path, its constant on the left, bit for bit against unfused for both dtypes.
        let one = Operand::Const(Value::Int(1));
        let p = Program {
            inputs: 2,
            steps: vec![
                step("neg", vec![Operand::Input(1)]),
                step("exp", vec![Operand::Step(0)]),
                step(
                    "add.Scalar",
                    vec![Operand::Step(1), Operand::Const(Value::Float(1.0)), one],
                ),
                step(
                    "rdiv.Scalar",
                    vec![Operand::Step(2), Operand::Const(Value::Float(1.0))],
                ),
                step("mul.Tensor", vec![Operand::Step(3), Operand::Input(0)]),
                step(
                    "rdiv.Scalar",
                    vec![Operand::Step(4), Operand::Const(Value::Float(-3.0))],
                ),
            ],
        };
        for dtype in [DType::Float32, DType::Float64] {
            let x = specials(&[300, 257], dtype);
            let y = specials(&[300, 257], dtype);
            let inputs = [Value::Tensor(x), Value::Tensor(y)];
            typed_matches(&p, &inputs, &[1, 7, 1000, TILE]);
        }
    }

    /// A product by a constant followed by `+ - * /` with another full value is one merged
    /// step (`merge_scaled`), for the constant on either side, the product on either side of
    /// the second op, an input or an earlier step as the other value; bit for bit against
    /// unfused (NaN, inf, zeros of `specials`), both dtypes, several tile sizes, also when the
    /// pair's result goes over the tile of either value the merged step reads (in place). A
    /// product read again later is not merged.
    #[test]
    fn scaled_steps_merge_and_match_unfused() {
        let one = || Operand::Const(Value::Int(1));
        let c = |v: f64| Operand::Const(Value::Float(v));
        let (x, y) = (Operand::Input(0), Operand::Input(1));
        // `exp((-3 * x) / y)` and `x * 1e-3`, then `fourth` of them, then `y / ` that.
        let scaled_then_exp = |fourth: Step| {
            vec![
                step(
                    "mul.Tensor",
                    vec![Operand::Const(Value::Float(-3.0)), x.clone()],
                ),
                step("div.Tensor", vec![Operand::Step(0), y.clone()]),
                step("exp", vec![Operand::Step(1)]),
                step("mul.Scalar", vec![x.clone(), c(1.0e-3)]),
                fourth,
                step("div.Tensor", vec![y.clone(), Operand::Step(4)]),
            ]
        };
        let cases: Vec<(Vec<Step>, usize)> = vec![
            // x * 2 + y; y - 0.5 * x; the two products each merge.
            (
                vec![
                    step("mul.Scalar", vec![x.clone(), c(2.0)]),
                    step("add.Tensor", vec![Operand::Step(0), y.clone(), one()]),
                    step("tanh", vec![Operand::Step(1)]),
                    step("mul.Scalar", vec![x.clone(), c(0.5)]),
                    step(
                        "sub.Tensor",
                        vec![Operand::Step(2), Operand::Step(3), one()],
                    ),
                ],
                2,
            ),
            // (c * x) / y, then (x * c) - e against an earlier step.
            (
                scaled_then_exp(step(
                    "sub.Tensor",
                    vec![Operand::Step(3), Operand::Step(2), one()],
                )),
                2,
            ),
            // The same with e * (x * c): its result goes over e's tile, the merged step runs
            // in place on it.
            (
                scaled_then_exp(step("mul.Tensor", vec![Operand::Step(2), Operand::Step(3)])),
                2,
            ),
            // (-x) * 3 goes over -x's tile, and the sum with y there too: in place on the
            // scaled value.
            (
                vec![
                    step("neg", vec![x.clone()]),
                    step("mul.Scalar", vec![Operand::Step(0), c(3.0)]),
                    step("add.Tensor", vec![Operand::Step(1), y.clone(), one()]),
                    step("div.Tensor", vec![Operand::Step(2), x.clone()]),
                ],
                1,
            ),
            // The product is read twice: not merged.
            (
                vec![
                    step("mul.Scalar", vec![x.clone(), c(1.5)]),
                    step("add.Tensor", vec![Operand::Step(0), y.clone(), one()]),
                    step("mul.Tensor", vec![Operand::Step(1), Operand::Step(0)]),
                ],
                0,
            ),
        ];
        for (steps, merges) in cases {
            let p = Program { inputs: 2, steps };
            for dtype in [DType::Float32, DType::Float64] {
                let inputs = [
                    Value::Tensor(specials(&[300, 257], dtype)),
                    Value::Tensor(specials(&[300, 257], dtype)),
                ];
                let before = MERGED_STEPS.with(|c| c.get());
                typed_matches(&p, &inputs, &[1, 7, 1000, TILE]);
                // Five typed runs (four tile sizes, then `run`), each planning once.
                assert_eq!(
                    MERGED_STEPS.with(|c| c.get()) - before,
                    5 * merges,
                    "{dtype:?}"
                );
            }
        }
    }

    /// Runs `steps` (two inputs, `specials` of both dtypes) through [`typed_matches`] and
    /// checks the pairs each merge made per plan: `[MulThen, ScaledUn, UnThen]` (five plans per
    /// dtype: four tile sizes, then `run`), and that no `MinusUn` was made (these groups have
    /// no row values).
    fn assert_merges(steps: Vec<Step>, want: [usize; 3]) {
        let counts = || {
            [
                MERGED_STEPS.with(|c| c.get()),
                MERGED_SCALED_UNARY.with(|c| c.get()),
                MERGED_UNARY.with(|c| c.get()),
                MERGED_MINUS_UNARY.with(|c| c.get()),
            ]
        };
        let p = Program { inputs: 2, steps };
        for dtype in [DType::Float32, DType::Float64] {
            let inputs = [
                Value::Tensor(specials(&[300, 257], dtype)),
                Value::Tensor(specials(&[300, 257], dtype)),
            ];
            let before = counts();
            typed_matches(&p, &inputs, &[1, 7, 1000, TILE]);
            let after = counts();
            let got: [usize; 4] = std::array::from_fn(|i| after[i] - before[i]);
            let want = [want[0], want[1], want[2], 0].map(|w| 5 * w);
            assert_eq!(got, want, "{dtype:?} {:?}", p.steps);
        }
    }

    /// A unary step followed by `+ - * /` reading its result and a full value or a constant is
    /// one merged step (`merge_unary_then`): each vector-math kernel with an AVX-512 pair loop
    /// and one without, the unary's value on either side, an input, a constant or an earlier
    /// step as the other value, the result going over that step's tile or the unary's
    /// operand's (in place); bit for bit against unfused, both dtypes (float64 runs the
    /// two-pass form), several tile sizes. Not merged: a unary value read again later.
    #[test]
    fn unary_steps_merge_with_the_next_and_match_unfused() {
        let one = || Operand::Const(Value::Int(1));
        let c = |v: f64| Operand::Const(Value::Float(v));
        let (x, y) = (Operand::Input(0), Operand::Input(1));
        let pair = |u: &str, second: Step| vec![step(u, vec![x.clone()]), second];
        let mut cases: Vec<(Vec<Step>, [usize; 3])> = Vec::new();
        for u in ["tanh", "tanh_fast", "sigmoid", "exp", "log1p"] {
            let s0 = || Operand::Step(0);
            cases.push((
                pair(u, step("mul.Tensor", vec![s0(), y.clone()])),
                [0, 0, 1],
            ));
            cases.push((
                pair(u, step("sub.Tensor", vec![y.clone(), s0(), one()])),
                [0, 0, 1],
            ));
            cases.push((pair(u, step("div.Scalar", vec![s0(), c(-2.5)])), [0, 0, 1]));
            cases.push((pair(u, step("rdiv.Scalar", vec![s0(), c(3.0)])), [0, 0, 1]));
        }
        // tanh(x * 2 + y) * sigmoid(y) - x and the like: the result of the merged pair goes
        // over the tanh's tile, the sigmoid's value on either side.
        let (t, sg) = (Operand::Step(2), Operand::Step(3));
        for fourth in [
            step("mul.Tensor", vec![t.clone(), sg.clone()]),
            step("sub.Tensor", vec![t.clone(), sg.clone(), one()]),
            step("div.Tensor", vec![sg.clone(), t.clone()]),
        ] {
            cases.push((
                vec![
                    step("mul.Scalar", vec![x.clone(), c(2.0)]),
                    step("add.Tensor", vec![Operand::Step(0), y.clone(), one()]),
                    step("tanh", vec![Operand::Step(1)]),
                    step("sigmoid", vec![y.clone()]),
                    fourth,
                    step("sub.Tensor", vec![Operand::Step(4), x.clone(), one()]),
                ],
                [1, 1, 1],
            ));
        }
        // The unary's value is read again: not merged.
        cases.push((
            vec![
                step("tanh", vec![x.clone()]),
                step("mul.Tensor", vec![Operand::Step(0), y.clone()]),
                step(
                    "add.Tensor",
                    vec![Operand::Step(1), Operand::Step(0), one()],
                ),
            ],
            [0, 0, 0],
        ));
        // tanh(-x) runs over -x's tile, and the product goes there too: merged, in place on
        // the operand, with a full value and with a constant.
        for second in [
            step("mul.Tensor", vec![Operand::Step(1), y.clone()]),
            step("rdiv.Scalar", vec![Operand::Step(1), c(3.0)]),
        ] {
            cases.push((
                vec![
                    step("neg", vec![x.clone()]),
                    step("tanh", vec![Operand::Step(0)]),
                    second,
                    step("add.Tensor", vec![Operand::Step(2), x.clone(), one()]),
                ],
                [0, 0, 1],
            ));
        }
        for (steps, merges) in cases {
            assert_merges(steps, merges);
        }
    }

    /// A product by a constant used once, by a `+ - * /` further on, moves to just before that
    /// use (`sink_scaled`) and merges with it: `x * 0.9 + 0.1 * tanh(x)` (iterate's body) runs
    /// as two merged steps, also when the product's operand is an earlier step's tile (kept
    /// alive longer) or the product is on the right; bits against unfused, both dtypes. A
    /// product used twice stays where it is.
    #[test]
    fn scaled_steps_sink_to_their_use_and_merge() {
        let one = || Operand::Const(Value::Int(1));
        let c = |v: f64| Operand::Const(Value::Float(v));
        let (x, y) = (Operand::Input(0), Operand::Input(1));
        let st = Operand::Step;
        let cases: Vec<(Vec<Step>, [usize; 3])> = vec![
            (
                vec![
                    step("mul.Scalar", vec![x.clone(), c(0.9)]),
                    step("tanh", vec![x.clone()]),
                    step("mul.Scalar", vec![st(1), c(0.1)]),
                    step("add.Tensor", vec![st(0), st(2), one()]),
                ],
                [1, 0, 1],
            ),
            (
                vec![
                    step("neg", vec![y.clone()]),
                    step("mul.Scalar", vec![st(0), c(-3.0)]),
                    step("exp", vec![x.clone()]),
                    step("div.Scalar", vec![st(2), c(4.0)]),
                    step("sub.Tensor", vec![st(3), st(1), one()]),
                    step("mul.Tensor", vec![st(4), y.clone()]),
                ],
                [1, 0, 1],
            ),
            // Used twice: not moved; the exp still merges with its division.
            (
                vec![
                    step("mul.Scalar", vec![x.clone(), c(0.9)]),
                    step("exp", vec![x.clone()]),
                    step("div.Scalar", vec![st(1), c(4.0)]),
                    step("add.Tensor", vec![st(0), st(2), one()]),
                    step("mul.Tensor", vec![st(3), st(0)]),
                ],
                [0, 0, 1],
            ),
        ];
        for (steps, merges) in cases {
            assert_merges(steps, merges);
        }
    }

    /// A merged product step followed by a unary step reading it is one step
    /// (`merge_scaled_unary`): every kernel with an AVX-512 loop of the three and one without,
    /// every outer op, the constant and the product on either side, the unary's result over the
    /// product's tile or in a fresh one; bits against unfused, both dtypes. Not merged when the
    /// product is read again.
    #[test]
    fn scaled_steps_merge_with_the_unary_after_them() {
        let one = || Operand::Const(Value::Int(1));
        let c = |v: f64| Operand::Const(Value::Float(v));
        let (x, y) = (Operand::Input(0), Operand::Input(1));
        let st = Operand::Step;
        let mut cases: Vec<(Vec<Step>, [usize; 3])> = Vec::new();
        for u in ["tanh", "tanh_fast", "sigmoid", "exp", "log1p"] {
            for (product, outer) in [
                (
                    step("mul.Scalar", vec![x.clone(), c(2.0)]),
                    step("add.Tensor", vec![st(0), y.clone(), one()]),
                ),
                (
                    step("mul.Tensor", vec![c(-0.5), x.clone()]),
                    step("sub.Tensor", vec![y.clone(), st(0), one()]),
                ),
                (
                    step("mul.Scalar", vec![x.clone(), c(3.0)]),
                    step("div.Tensor", vec![st(0), y.clone()]),
                ),
                (
                    step("mul.Scalar", vec![y.clone(), c(0.25)]),
                    step("mul.Tensor", vec![x.clone(), st(0)]),
                ),
            ] {
                cases.push((
                    vec![
                        product,
                        outer,
                        step(u, vec![st(1)]),
                        step("add.Tensor", vec![st(2), x.clone(), one()]),
                    ],
                    [1, 1, 0],
                ));
            }
        }
        // The product's value is read again: the product merges, and the tanh with the
        // product by that value, not the product with the tanh.
        cases.push((
            vec![
                step("mul.Scalar", vec![x.clone(), c(2.0)]),
                step("add.Tensor", vec![st(0), y.clone(), one()]),
                step("tanh", vec![st(1)]),
                step("mul.Tensor", vec![st(2), st(1)]),
            ],
            [1, 0, 1],
        ));
        for (steps, merges) in cases {
            assert_merges(steps, merges);
        }
    }

    #[test]
    fn typed_chain_prefetching_matches_unfused() {
        // Outputs of at least `PREFETCH_MIN` bytes, with ragged last tiles and tasks (1100 *
        // 257 is neither a multiple of `TYPED_TILE` nor of `TYPED_TASK`); the chain has two
        // vector-math steps.
        let p = example_chain();
        for dtype in [DType::Float32, DType::Float64] {
            let x = specials(&[1100, 257], dtype);
            let y = specials(&[1100, 257], dtype);
            let inputs = [Value::Tensor(x), Value::Tensor(y)];
            let before = PREFETCHED_RUNS.with(|c| c.get());
            typed_matches(&p, &inputs, &[1000, TYPED_TILE]);
            assert_eq!(PREFETCHED_RUNS.with(|c| c.get()), before + 3, "{dtype:?}");
        }
    }

    #[test]
    fn typed_path_declines_what_it_does_not_cover() {
        // A row vector broadcast against a matrix, a float64 0-d operand of a float32 chain,
        // and a non-contiguous input: the kernel-call tiles run them, with the unfused bits.
        let p = example_chain();
        let t = ramp(&[257, 300], DType::Float32, 0.01).t().unwrap();
        for (x, y) in [
            (
                ramp(&[300, 257], DType::Float32, 0.01),
                ramp(&[257], DType::Float32, 0.02),
            ),
            (
                ramp(&[300, 257], DType::Float32, 0.01),
                Tensor::scalar_typed(Scalar::Float(0.25), DType::Float64),
            ),
            (t, ramp(&[300, 257], DType::Float32, 0.02)),
        ] {
            let inputs = [Value::Tensor(x), Value::Tensor(y)];
            let before = TYPED_RUNS.with(|c| c.get());
            fused_equals_unfused(&p, &inputs);
            assert_eq!(TYPED_RUNS.with(|c| c.get()), before, "not typed");
        }
    }

    #[test]
    fn typed_rows_match_unfused_for_every_row_split() {
        let p = softmax();
        for (shape, dtype) in typed_softmax_shapes() {
            let x = specials(&shape, dtype);
            typed_matches(
                &p,
                &[Value::Tensor(x)],
                &[1, 1000, 2048, 4096, TILE, 1 << 20],
            );
        }
        // Rank 3; row values as inputs ([N, 1], left and right of the op), a scalar constant,
        // and reductions over dim -1 as the result: sum not kept, mean kept, amin not kept, amax kept.
        let n = 300;
        for (name, keep) in [
            ("sum.dim_IntList", false),
            ("mean.dim", true),
            ("amin", false),
            ("amax", true),
            ("sum.dim_IntList", true),
        ] {
            let args = last_dim_reduction_args(name, 3, keep);
            let one = Operand::Const(Value::Int(1));
            let q = Program {
                inputs: 2,
                steps: vec![
                    // (x - r) / 3, then r - that, then that * that: a row value on either
                    // side, a constant, in-place steps on either side.
                    step(
                        "sub.Tensor",
                        vec![Operand::Input(0), Operand::Input(1), one.clone()],
                    ),
                    step(
                        "div.Scalar",
                        vec![Operand::Step(0), Operand::Const(Value::Float(3.0))],
                    ),
                    step("sub.Tensor", vec![Operand::Input(1), Operand::Step(1), one]),
                    step("mul.Tensor", vec![Operand::Step(2), Operand::Step(2)]),
                    step(name, args),
                ],
            };
            for (dtype, xs, rs) in [
                (DType::Float32, vec![n, 300], vec![n, 1]),
                (DType::Float64, vec![n, 300], vec![n, 1]),
                (DType::Float32, vec![3, 100, 300], vec![3, 100, 1]),
            ] {
                let x = specials(&xs, dtype);
                let r = ramp(&rs, dtype, 0.3);
                typed_matches(
                    &q,
                    &[Value::Tensor(x), Value::Tensor(r)],
                    &[1, 299, 300, 7000, TILE],
                );
            }
        }
    }

    #[test]
    fn fusable_ops_are_elementwise() {
        assert!(fusable(op("add.Tensor")));
        assert!(fusable(op("where.self")));
        assert!(fusable(op("clamp")));
        assert!(fusable(op("to.dtype")));
        assert!(!fusable(op("add_.Tensor")));
        assert!(!fusable(op("sum")));
        assert!(fusable(op("sum.dim_IntList")));
        assert!(fusable(op("amax")));
        assert!(!fusable(op("softmax")));
        assert!(!fusable(op("to.other")));
        assert!(!fusable(op("matmul")));
    }

    /// A row reduction of a group input expanded along its last dim (stride 0) runs unfused:
    /// unfused code reduces the narrowed view and multiplies, which summing the tile's
    /// materialized row does not reproduce bit for bit in float64 (37,000 of these 40,000
    /// results differed before the check).
    #[test]
    fn reducing_an_expanded_input_matches_unfused_bitwise() {
        let p = Program {
            inputs: 1,
            steps: vec![
                step(
                    "sum.dim_IntList",
                    vec![
                        Operand::Input(0),
                        Operand::Const(Value::IntList(vec![1])),
                        Operand::Const(Value::Bool(true)),
                        Operand::Const(Value::None),
                    ],
                ),
                step("div.Tensor", vec![Operand::Input(0), Operand::Step(0)]),
            ],
        };
        for dt in [DType::Float64, DType::Float32] {
            let base: Vec<f64> = (0..40)
                .map(|i| 0.1 + i as f64 / 3.0 + 1e-7 * i as f64)
                .collect();
            let x = Tensor::from_vec(base, &[40, 1])
                .unwrap()
                .to_dtype(dt)
                .unwrap()
                .expand(&[40, 1000])
                .unwrap();
            let inputs = [Value::Tensor(x)];
            let unfused = run_unfused(&p, &inputs).unwrap();
            same_bits(&run(&p, inputs.to_vec()).unwrap(), &unfused);
            same_bits(&run_with_tile_untyped(&p, &inputs, 4096).unwrap(), &unfused);
        }
    }

    /// `name` (`max`, `min`, or `amax`/`amin` over no dims given as input 1, not kept) of step
    /// `x`.
    fn all_reduce_step(name: &str, x: usize) -> Step {
        match name {
            "max" | "min" => step(name, vec![Operand::Step(x)]),
            _ => step(
                name,
                vec![
                    Operand::Step(x),
                    Operand::Input(1),
                    Operand::Const(Value::Bool(false)),
                ],
            ),
        }
    }

    #[test]
    fn all_reductions_match_unfused_bitwise() {
        // abs then max (converge's condition), x * x then amin over no dims, a longer chain
        // (exp of the negated value over 3) then min, as f32 and f64 over sizes that are and
        // are not a whole number of the unfused reduction's pieces.
        let chains: [(&str, Vec<Step>); 3] = [
            ("max", vec![step("abs", vec![Operand::Input(0)])]),
            (
                "amin",
                vec![step(
                    "mul.Tensor",
                    vec![Operand::Input(0), Operand::Input(0)],
                )],
            ),
            (
                "min",
                vec![
                    step("neg", vec![Operand::Input(0)]),
                    step(
                        "div.Scalar",
                        vec![Operand::Step(0), Operand::Const(Value::Float(3.0))],
                    ),
                    step("exp", vec![Operand::Step(1)]),
                ],
            ),
        ];
        let no_dims = Value::IntList(vec![]);
        let mut checked = 0;
        for (name, head) in chains {
            let mut steps = head.clone();
            steps.push(all_reduce_step(name, head.len() - 1));
            let p = Program { inputs: 2, steps };
            for dtype in [DType::Float32, DType::Float64] {
                for shape in [vec![70001], vec![300, 257], vec![1 << 15], vec![100_000]] {
                    let n: usize = shape.iter().product();
                    // Plain values; NaN, inf, ±0 and subnormals; zeros of both signs only;
                    // two NaNs of different payloads late in the tensor (the first one wins).
                    let zeros: Vec<f64> = (0..n)
                        .map(|i| if i % 3 == 0 { -0.0 } else { 0.0 })
                        .collect();
                    let mut late: Vec<f64> = ramp(&[n], DType::Float64, 0.01).to_vec::<f64>();
                    late[n - 20_000] = f64::from_bits(0x7ff8_0000_0000_0abc);
                    late[n - 10] = f64::from_bits(0xfff8_0000_0000_0def);
                    let late = Tensor::from_vec(late, &shape).unwrap();
                    let late = match dtype {
                        DType::Float32 => {
                            let v: Vec<f32> = late
                                .to_vec::<f64>()
                                .iter()
                                .map(|&x| match x.to_bits() {
                                    0x7ff8_0000_0000_0abc => f32::from_bits(0x7fc0_0abc),
                                    0xfff8_0000_0000_0def => f32::from_bits(0xffc0_0def),
                                    _ => x as f32,
                                })
                                .collect();
                            Tensor::from_vec(v, &shape).unwrap()
                        }
                        _ => late,
                    };
                    for x in [
                        ramp(&shape, dtype, 0.01),
                        specials(&shape, dtype),
                        Tensor::from_vec(zeros, &shape)
                            .unwrap()
                            .to_dtype(dtype)
                            .unwrap(),
                        late,
                    ] {
                        let inputs = [Value::Tensor(x), no_dims.clone()];
                        let reference = run_unfused(&p, &inputs).unwrap();
                        let before = TYPED_RUNS.with(|c| c.get());
                        let fused = run(&p, inputs.to_vec()).unwrap();
                        assert_eq!(TYPED_RUNS.with(|c| c.get()), before + 1, "typed path");
                        assert_eq!(fused.shape(), &[] as &[usize]);
                        assert_eq!(fused.dtype(), dtype);
                        // Bit for bit, NaN payloads included.
                        let (a, b) = (fused.to_vec::<f64>(), reference.to_vec::<f64>());
                        let bits = |t: &Tensor| match dtype {
                            DType::Float32 => t.to_vec::<f32>()[0].to_bits() as u64,
                            _ => t.to_vec::<f64>()[0].to_bits(),
                        };
                        assert_eq!(
                            bits(&fused),
                            bits(&reference),
                            "{name} {shape:?}: {a:?} vs {b:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 3 * 2 * 4 * 4);
    }

    #[test]
    fn all_reductions_not_covered_run_unfused() {
        let no_dims = Value::IntList(vec![]);
        // Integers; a group that also reduces rows; amax over no dims kept; a reduction
        // that is not the result.
        let int_max = Program {
            inputs: 2,
            steps: vec![
                step("abs", vec![Operand::Input(0)]),
                all_reduce_step("max", 0),
            ],
        };
        let x = ramp(&[300, 257], DType::Int64, 1.0);
        fused_equals_unfused(&int_max, &[Value::Tensor(x), no_dims.clone()]);
        let one = Operand::Const(Value::Int(1));
        let with_rows = Program {
            inputs: 2,
            steps: vec![
                step(
                    "amax",
                    vec![
                        Operand::Input(0),
                        Operand::Const(Value::Int(-1)),
                        Operand::Const(Value::Bool(true)),
                    ],
                ),
                step("sub.Tensor", vec![Operand::Input(0), Operand::Step(0), one]),
                all_reduce_step("min", 1),
            ],
        };
        let kept = Program {
            inputs: 2,
            steps: vec![
                step("exp", vec![Operand::Input(0)]),
                step(
                    "amax",
                    vec![
                        Operand::Step(0),
                        Operand::Input(1),
                        Operand::Const(Value::Bool(true)),
                    ],
                ),
            ],
        };
        let not_last = Program {
            inputs: 2,
            steps: vec![
                step("exp", vec![Operand::Input(0)]),
                all_reduce_step("max", 0),
                step("mul.Tensor", vec![Operand::Step(1), Operand::Input(0)]),
            ],
        };
        for p in [with_rows, kept, not_last] {
            let x = specials(&[300, 257], DType::Float32);
            let inputs = [Value::Tensor(x), no_dims.clone()];
            let before = TYPED_RUNS.with(|c| c.get());
            fused_equals_unfused(&p, &inputs);
            assert_eq!(TYPED_RUNS.with(|c| c.get()), before, "not typed");
        }
    }
}
