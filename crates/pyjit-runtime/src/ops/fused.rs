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
use crate::value::Value;
use ndarray::IxDyn;

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
fn one_tensor(mut out: Vec<Value>, id: OpId) -> Result<Tensor> {
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

/// For each slot (see [`slot`]), the index of the last step reading it (`usize::MAX`: none).
fn last_uses(p: &Program, inputs: usize) -> Vec<usize> {
    let mut last = vec![usize::MAX; inputs + p.steps.len()];
    for (k, s) in p.steps.iter().enumerate() {
        for a in &s.args {
            if let Some(l) = slot(a, inputs).and_then(|i| last.get_mut(i)) {
                *l = k;
            }
        }
    }
    last
}

/// How [`run_steps`] calls the kernels.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kernels {
    /// [`dispatch::call`], exactly as unfused code calls each op.
    Plain,
    /// [`dispatch::call_owned`] with a dead first operand given up, so that the kernel may
    /// write over a dead tile instead of allocating one (bit-identical to `call`).
    Owned,
    /// [`dispatch::call_owned`] when the first operand is an earlier step's float result dying
    /// there (which only the group holds: the kernel may write over it), else
    /// [`dispatch::call`] (no argument list given up per step, and integer ops keep the plain
    /// kernels' fast paths).
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
    let mut vals: Vec<Option<Value>> = Vec::with_capacity(n_in + p.steps.len());
    vals.extend(inputs.into_iter().map(Some));
    vals.extend(p.steps.iter().map(|_| None));
    let undefined =
        || RuntimeError::Value("fused group: an operand is not defined before use".into());
    let width = p.steps.iter().map(|s| s.args.len()).max().unwrap_or(0);
    let mut args: Vec<Value> = Vec::with_capacity(width);
    for (k, s) in p.steps.iter().enumerate() {
        let mut first_dead_step = false;
        for (j, a) in s.args.iter().enumerate() {
            let v = match slot(a, n_in) {
                None => match a {
                    Operand::Const(v) => Some(v.clone()),
                    _ => None,
                },
                Some(i) => {
                    let dead = last.get(i) == Some(&k)
                        && !s.args[j + 1..].iter().any(|b| slot(b, n_in) == Some(i));
                    first_dead_step |= j == 0 && dead && i >= n_in;
                    match vals.get_mut(i) {
                        Some(v) if dead => v.take(),
                        Some(v) => v.clone(),
                        None => None,
                    }
                }
            };
            args.push(at(k, v.ok_or_else(undefined))?);
        }
        let owned = match kernels {
            Kernels::Plain => false,
            Kernels::Owned => true,
            Kernels::OwnedDeadFloat => {
                first_dead_step
                    && matches!(args.first(), Some(Value::Tensor(t)) if t.dtype().is_float())
            }
        };
        let out = match owned {
            false => {
                let out = dispatch::call(s.op, &args);
                args.clear();
                out
            }
            true => dispatch::call_owned(
                s.op,
                std::mem::replace(&mut args, Vec::with_capacity(width)),
            ),
        };
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
/// first operand is an earlier step's result dying there may write its result over it ([`dispatch::call_owned`]: the same
/// bits and errors as [`dispatch::call`]), so an elementwise float step of a small group
/// allocates no tensor for its result where the unfused op allocates one.
fn run_unfused_owned(p: &Program, inputs: Vec<Value>) -> StepResult<Tensor> {
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
            // Row by row only over the last dim of a value that spans the group's rows, kept
            // (or the group's result); anything else runs unfused.
            if rank == 0
                || (d != -1 && d != rank - 1)
                || shape.last() != group.last()
                || (!keepdim && k + 1 != p.steps.len())
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
    run_owned(p, inputs, TILE)
}

/// [`run`] with tiles of `tile` elements (for measuring the tile size; results do not depend
/// on it).
pub fn run_with_tile(p: &Program, inputs: &[Value], tile: usize) -> StepResult<Tensor> {
    run_owned(p, inputs.to_vec(), tile)
}

/// An upper bound of the number of elements of the broadcast of the tensor inputs' shapes
/// (exact when they broadcast and none is empty), without allocating: per dim from the
/// right, the largest size.
fn broadcast_numel_bound(inputs: &[Value]) -> usize {
    let shapes = || {
        inputs.iter().filter_map(|v| match v {
            Value::Tensor(t) => Some(t.shape()),
            _ => None,
        })
    };
    let rank = shapes().map(<[usize]>::len).max().unwrap_or(0);
    (1..=rank)
        .map(|d| {
            shapes()
                .map(|s| s.len().checked_sub(d).map_or(1, |i| s[i]))
                .max()
                .unwrap_or(1)
        })
        .fold(1usize, usize::saturating_mul)
}

fn run_owned(p: &Program, inputs: Vec<Value>, tile: usize) -> StepResult<Tensor> {
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
    if broadcast_numel_bound(&inputs) < MIN_FUSED {
        return run_unfused_owned(p, inputs);
    }
    let shapes: Vec<&[usize]> = inputs
        .iter()
        .filter_map(|v| match v {
            Value::Tensor(t) => Some(t.shape()),
            _ => None,
        })
        .collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Scalar;

    fn op(name: &str) -> OpId {
        schema::lookup(name).expect(name)
    }

    fn chain() -> Program {
        // tanh(x * 2.0 + y) * sigmoid(y) - 0.5 * x
        let one = Operand::Const(Value::Int(1));
        Program {
            inputs: 2,
            steps: vec![
                Step {
                    op: op("mul.Scalar"),
                    args: vec![Operand::Input(0), Operand::Const(Value::Float(2.0))],
                },
                Step {
                    op: op("add.Tensor"),
                    args: vec![Operand::Step(0), Operand::Input(1), one.clone()],
                },
                Step {
                    op: op("tanh"),
                    args: vec![Operand::Step(1)],
                },
                Step {
                    op: op("sigmoid"),
                    args: vec![Operand::Input(1)],
                },
                Step {
                    op: op("mul.Tensor"),
                    args: vec![Operand::Step(2), Operand::Step(3)],
                },
                Step {
                    op: op("mul.Scalar"),
                    args: vec![Operand::Input(0), Operand::Const(Value::Float(0.5))],
                },
                Step {
                    op: op("sub.Tensor"),
                    args: vec![Operand::Step(4), Operand::Step(5), one],
                },
            ],
        }
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

    #[test]
    fn fused_chain_matches_unfused_bitwise_with_broadcasting() {
        let p = chain();
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
        let p = chain();
        let x = ramp(&[300, 257], DType::Float32, 0.01);
        let y = ramp(&[300, 256], DType::Float32, 0.01);
        let inputs = [Value::Tensor(x), Value::Tensor(y)];
        fails_as_unfused(&p, &inputs);
        let b = Tensor::ones(&[300, 257], DType::Bool).unwrap();
        let sub = Program {
            inputs: 2,
            steps: vec![Step {
                op: op("sub.Tensor"),
                args: vec![
                    Operand::Input(0),
                    Operand::Input(1),
                    Operand::Const(Value::Int(1)),
                ],
            }],
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
                Step {
                    op: op("floor_divide"),
                    args: vec![Operand::Input(0), Operand::Input(0)],
                },
                Step {
                    op: op("add.Scalar"),
                    args: vec![
                        Operand::Step(0),
                        Operand::Const(Value::Int(1)),
                        Operand::Const(Value::Int(1)),
                    ],
                },
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
                Step {
                    op: op("amax"),
                    args: vec![Operand::Input(0), dims.clone(), keep.clone()],
                },
                Step {
                    op: op("sub.Tensor"),
                    args: vec![Operand::Input(0), Operand::Step(0), one],
                },
                Step {
                    op: op("exp"),
                    args: vec![Operand::Step(1)],
                },
                Step {
                    op: op("sum.dim_IntList"),
                    args: vec![Operand::Step(2), dims, keep, Operand::Const(Value::None)],
                },
                Step {
                    op: op("div.Tensor"),
                    args: vec![Operand::Step(2), Operand::Step(3)],
                },
            ],
        }
    }

    #[test]
    fn row_reductions_match_unfused_bitwise() {
        let p = softmax();
        for (shape, dtype) in [
            (vec![300, 257], DType::Float32),
            (vec![40, 1000], DType::Float64),
            (vec![3, 100, 257], DType::Float32),
            (vec![70000, 1], DType::Float32),
        ] {
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
            let mut args = vec![
                Operand::Step(0),
                Operand::Const(Value::Int(-1)),
                Operand::Const(Value::Bool(keep)),
            ];
            if name != "amin" {
                args.push(Operand::Const(Value::None));
            }
            let q = Program {
                inputs: 1,
                steps: vec![
                    Step {
                        op: op("mul.Tensor"),
                        args: vec![Operand::Input(0), Operand::Input(0)],
                    },
                    Step { op: op(name), args },
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

    #[test]
    fn row_reductions_of_other_dims_run_unfused() {
        // amax over dim 0, and a sum over a broadcast last dim: the same results as unfused.
        for (shape, dim) in [(vec![300, 257], 0), (vec![300, 1], 1)] {
            let x = ramp(&shape, DType::Float32, 0.01);
            let y = ramp(&[300, 257], DType::Float32, 0.02);
            let p = Program {
                inputs: 2,
                steps: vec![
                    Step {
                        op: op("exp"),
                        args: vec![Operand::Input(0)],
                    },
                    Step {
                        op: op("sum.dim_IntList"),
                        args: vec![
                            Operand::Step(0),
                            Operand::Const(Value::IntList(vec![dim])),
                            Operand::Const(Value::Bool(true)),
                            Operand::Const(Value::None),
                        ],
                    },
                    Step {
                        op: op("mul.Tensor"),
                        args: vec![Operand::Step(1), Operand::Input(1)],
                    },
                ],
            };
            let inputs = [Value::Tensor(x), Value::Tensor(y)];
            fused_equals_unfused(&p, &inputs);
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
}
