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

use rayon::prelude::*;

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
    kind_ok
        && s.params.iter().any(|p| p.ty == ArgType::Tensor)
        && s.params.iter().all(|p| simple(&p.ty))
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

fn arg_value<'a>(a: &'a Operand, inputs: &'a [Value], steps: &'a [Value]) -> Result<&'a Value> {
    match a {
        Operand::Input(i) => inputs.get(*i),
        Operand::Step(i) => steps.get(*i),
        Operand::Const(v) => Some(v),
    }
    .ok_or_else(|| RuntimeError::Value("fused group: an operand is not defined before use".into()))
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

/// Runs every step on whole tensors: the unfused program.
pub fn run_unfused(p: &Program, inputs: &[Value]) -> StepResult<Tensor> {
    let mut vals: Vec<Value> = Vec::with_capacity(p.steps.len());
    for (k, s) in p.steps.iter().enumerate() {
        let args = at(
            k,
            s.args
                .iter()
                .map(|a| arg_value(a, inputs, &vals).cloned())
                .collect::<Result<Vec<_>>>(),
        )?;
        let r = at(
            k,
            dispatch::call(s.op, &args).and_then(|o| one_tensor(o, s.op)),
        )?;
        vals.push(Value::Tensor(r));
    }
    match vals.pop() {
        Some(Value::Tensor(t)) => Ok(t),
        _ => at(
            0,
            Err(RuntimeError::Value("fused group has no steps".into())),
        ),
    }
}

/// The checks of step 1 (see the module doc): the result shape and dtype of every step, or the
/// error the unfused program would raise. `None` when the group must run unfused.
fn check(p: &Program, inputs: &[Value]) -> StepResult<Option<Vec<Meta>>> {
    let input_meta: Vec<Meta> = inputs.iter().map(meta_of).collect();
    let mut metas: Vec<Meta> = Vec::with_capacity(p.steps.len());
    let mut unfused = false;
    for (k, s) in p.steps.iter().enumerate() {
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

/// Runs a fused group (see the module doc).
pub fn run(p: &Program, inputs: &[Value]) -> StepResult<Tensor> {
    run_with_tile(p, inputs, TILE)
}

/// [`run`] with tiles of `tile` elements (for measuring the tile size; results do not depend
/// on it).
pub fn run_with_tile(p: &Program, inputs: &[Value], tile: usize) -> StepResult<Tensor> {
    let tile = tile.max(1);
    if p.steps.is_empty() {
        return at(
            0,
            Err(RuntimeError::Value("fused group has no steps".into())),
        );
    }
    let Some(metas) = check(p, inputs)? else {
        return run_unfused(p, inputs);
    };
    let Some(Meta::Tensor { shape, dtype }) = metas.last().cloned() else {
        return run_unfused(p, inputs);
    };
    let n: usize = shape.iter().product();
    if n < MIN_FUSED {
        return run_unfused(p, inputs);
    }
    let last = p.steps.len() - 1;
    // Inputs of the output's shape and row-major are read in place (a flat view per tile);
    // others are gathered per tile.
    let flat: Vec<Option<Tensor>> = inputs
        .iter()
        .map(|v| match v {
            Value::Tensor(t)
                if t.dim() > 0 && t.shape() == shape.as_slice() && t.is_contiguous() =>
            {
                t.view(&[-1]).ok()
            }
            _ => None,
        })
        .collect();
    crate::with_dtype!(dtype, T => run_tiles::<T>(p, inputs, &flat, &shape, n, last, tile))
}

#[allow(clippy::too_many_arguments)]
fn run_tiles<T: Element>(
    p: &Program,
    inputs: &[Value],
    flat: &[Option<Tensor>],
    shape: &[usize],
    n: usize,
    last: usize,
    tile_len: usize,
) -> StepResult<Tensor> {
    let mut out = at(last, crate::bufpool::alloc::<T>(n))?;
    let tile = |(k, chunk): (usize, &mut [T])| -> StepResult<()> {
        let start = k * tile_len;
        let r = run_tile(p, inputs, flat, shape, start, chunk.len())?;
        let done = r.with_view::<T, bool>(|v| match v.as_slice() {
            Some(s) if s.len() == chunk.len() => {
                chunk.copy_from_slice(s);
                true
            }
            Some(s) if s.len() == 1 => {
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
    if n >= vmath::PAR_MIN && vmath::num_threads() > 1 {
        vmath::pool().install(|| out.par_chunks_mut(tile_len).enumerate().try_for_each(tile))?;
    } else {
        out.chunks_mut(tile_len).enumerate().try_for_each(tile)?;
    }
    at(last, Tensor::from_vec(out, shape))
}

/// The steps over the output elements `start .. start + len`.
fn run_tile(
    p: &Program,
    inputs: &[Value],
    flat: &[Option<Tensor>],
    shape: &[usize],
    start: usize,
    len: usize,
) -> StepResult<Tensor> {
    let tiles: Vec<Value> = at(
        0,
        inputs
            .iter()
            .zip(flat)
            .map(|(v, fl)| match (v, fl) {
                (_, Some(f)) => f
                    .slice(0, Some(start as i64), Some((start + len) as i64), 1)
                    .map(Value::Tensor),
                (Value::Tensor(t), None) if t.dim() > 0 => {
                    gather(t, shape, start, len).map(Value::Tensor)
                }
                (other, None) => Ok(other.clone()),
            })
            .collect::<Result<_>>(),
    )?;
    let mut vals: Vec<Value> = Vec::with_capacity(p.steps.len());
    let mut args = Vec::new();
    for (k, s) in p.steps.iter().enumerate() {
        args.clear();
        for a in &s.args {
            args.push(at(k, arg_value(a, &tiles, &vals))?.clone());
        }
        let r = at(
            k,
            dispatch::call(s.op, &args).and_then(|o| one_tensor(o, s.op)),
        )?;
        vals.push(Value::Tensor(r));
    }
    match vals.pop() {
        Some(Value::Tensor(t)) => Ok(t),
        _ => at(
            0,
            Err(RuntimeError::Value("fused group has no steps".into())),
        ),
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
            same_bits(
                &run(&p, &inputs).unwrap(),
                &run_unfused(&p, &inputs).unwrap(),
            );
        }
    }

    #[test]
    fn errors_are_the_unfused_ones_and_come_first() {
        let p = chain();
        let x = ramp(&[300, 257], DType::Float32, 0.01);
        let y = ramp(&[300, 256], DType::Float32, 0.01);
        let inputs = [Value::Tensor(x), Value::Tensor(y)];
        assert_eq!(
            run(&p, &inputs).unwrap_err(),
            run_unfused(&p, &inputs).unwrap_err()
        );
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
        assert_eq!(
            run(&sub, &inputs).unwrap_err(),
            run_unfused(&sub, &inputs).unwrap_err()
        );
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
            run(&p, &inputs).unwrap_err(),
            StepError {
                step: 0,
                error: RuntimeError::ZeroDivision
            },
            "the ramp holds zeros"
        );
    }

    #[test]
    fn fusable_ops_are_elementwise() {
        assert!(fusable(op("add.Tensor")));
        assert!(fusable(op("where.self")));
        assert!(fusable(op("clamp")));
        assert!(fusable(op("to.dtype")));
        assert!(!fusable(op("add_.Tensor")));
        assert!(!fusable(op("sum")));
        assert!(!fusable(op("to.other")));
        assert!(!fusable(op("matmul")));
    }
}
