//! The evaluator: walks a function's regions op by op.
//!
//! Each call gets a fresh environment (one slot per IR value of the callee). Regions run by
//! recursion on the Rust stack, which `stacker` grows on demand, so the depth of user recursion is
//! bounded only by [`Config::max_call_depth`] (a `RecursionError`, as in Python), never by the
//! native stack.

use crate::error::{CallSite, GUARD_FAILURE, INTERNAL_ERROR, InterpError};
use crate::format::{py_format, py_str};
use crate::scalar;
use crate::value::{Value, from_runtime, to_runtime};
use pyjit_ir::{
    CastOp, Const, EntityRef, FuncId, Function, IndexKind, Module, Op, OpKind, Region, Type,
    Value as IrValue,
};
use pyjit_runtime::TensorIndex;
use pyjit_syntax::Span;
use std::io::Write;

/// Interpreter settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// The deepest chain of calls allowed; one more raises `RecursionError` (Python's default
    /// recursion limit is 1000).
    pub max_call_depth: usize,
    /// Check every value an op produces against the op's result type (dtype, rank and dims of
    /// refined tensor types included) and fail with an `InternalError` on a mismatch: how tests
    /// prove that specialized IR only states facts that hold.
    pub check_types: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            check_types: false,
            max_call_depth: 1000,
        }
    }
}

/// Stack kept free below the current frame before `stacker` switches to a new segment, and the
/// size of each new segment. Generous because debug builds have large frames.
const RED_ZONE: usize = 256 * 1024;
const STACK_SEGMENT: usize = 8 * 1024 * 1024;

/// Runs functions of one module.
pub struct Interpreter<'m, 'o> {
    module: &'m Module,
    config: Config,
    depth: usize,
    out: &'o mut dyn Write,
}

/// How a region finished.
enum Exit {
    Yield(Vec<Value>),
    Return(Value),
}

type Res<T> = Result<T, InterpError>;

fn internal(msg: impl Into<String>, span: Span) -> InterpError {
    InterpError::new(INTERNAL_ERROR, msg, span)
}

impl<'m, 'o> Interpreter<'m, 'o> {
    /// An interpreter whose `print`s write to `out`.
    pub fn new(module: &'m Module, config: Config, out: &'o mut dyn Write) -> Interpreter<'m, 'o> {
        Interpreter {
            module,
            config,
            depth: 0,
            out,
        }
    }

    /// Calls function `func` with `args` (which must match its parameter types; see
    /// [`Value::has_type`]) and returns its result.
    pub fn call(&mut self, func: FuncId, args: Vec<Value>) -> Res<Value> {
        let f = self
            .module
            .funcs
            .get(func)
            .ok_or_else(|| internal(format!("no function {func}"), Span::DUMMY))?;
        if args.len() != f.params().len() {
            return Err(internal(
                format!(
                    "{}() takes {} argument(s) but {} were given",
                    f.name,
                    f.params().len(),
                    args.len()
                ),
                f.span,
            ));
        }
        if self.depth >= self.config.max_call_depth {
            return Err(InterpError::new(
                "RecursionError",
                "maximum recursion depth exceeded while calling a Python object",
                f.span,
            ));
        }
        self.depth += 1;
        let result = stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || self.run_function(f, args));
        self.depth -= 1;
        result.map_err(|mut e| {
            if e.function.is_empty() {
                e.function = f.name.clone();
            }
            e
        })
    }

    fn run_function(&mut self, f: &Function, args: Vec<Value>) -> Res<Value> {
        let mut env: Vec<Option<Value>> = vec![None; f.values.len()];
        for (&p, a) in f.params().iter().zip(args) {
            self.check_type(f, p, &a, f.span)?;
            env[p.index()] = Some(a);
        }
        match self.run_region(f, f.body, &mut env)? {
            Exit::Return(v) => Ok(v),
            Exit::Yield(_) => Err(internal("function body ended with `yield`", f.span)),
        }
    }

    fn run_region(&mut self, f: &Function, r: Region, env: &mut [Option<Value>]) -> Res<Exit> {
        for &op in f.region_ops(r) {
            if let Some(exit) = self.run_op(f, op, env)? {
                return Ok(exit);
            }
        }
        Err(internal("region has no terminator", f.span))
    }

    /// Runs one op; `Some` when it terminated the region.
    fn run_op(&mut self, f: &Function, op: Op, env: &mut [Option<Value>]) -> Res<Option<Exit>> {
        let data = f.op(op);
        let span = data.span;
        let arg = |i: usize| -> Res<&Value> {
            data.operands
                .get(i)
                .and_then(|v| env.get(v.index()).and_then(Option::as_ref))
                .ok_or_else(|| {
                    internal(
                        format!("operand {i} of `{}` is undefined", data.kind.name()),
                        span,
                    )
                })
        };
        let int = |i: usize| -> Res<i64> {
            arg(i)?
                .as_int()
                .ok_or_else(|| internal("expected an int operand", span))
        };
        let float = |i: usize| -> Res<f64> {
            arg(i)?
                .as_float()
                .ok_or_else(|| internal("expected a float operand", span))
        };
        let boolean = |i: usize| -> Res<bool> {
            arg(i)?
                .as_bool()
                .ok_or_else(|| internal("expected a bool operand", span))
        };
        let at = |e: scalar::PyErr| InterpError::new(e.0, e.1, span);

        let results: Vec<Value> = match &data.kind {
            OpKind::Const(c) => vec![const_value(c)],
            OpKind::IntBin(o) => vec![Value::Int(
                scalar::int_bin(*o, int(0)?, int(1)?).map_err(at)?,
            )],
            OpKind::IntUn(o) => vec![Value::Int(scalar::int_un(*o, int(0)?))],
            OpKind::FloatBin(o) => {
                let from_ints = self.both_from_ints(f, &data.operands);
                vec![Value::Float(
                    scalar::float_bin(*o, float(0)?, float(1)?, from_ints).map_err(at)?,
                )]
            }
            OpKind::FloatUn(o) => vec![Value::Float(scalar::float_un(*o, float(0)?))],
            OpKind::IntCmp(c) => vec![Value::Bool(scalar::cmp(*c, int(0)?, int(1)?))],
            OpKind::FloatCmp(c) => vec![Value::Bool(scalar::float_cmp(*c, float(0)?, float(1)?))],
            OpKind::BoolCmp(c) => vec![Value::Bool(scalar::cmp(*c, boolean(0)?, boolean(1)?))],
            OpKind::BoolBin(o) => vec![Value::Bool(scalar::bool_bin(*o, boolean(0)?, boolean(1)?))],
            OpKind::Not => vec![Value::Bool(!boolean(0)?)],
            OpKind::Cast(c) => vec![match c {
                CastOp::IntToFloat => Value::Float(int(0)? as f64),
                CastOp::IntToBool => Value::Bool(int(0)? != 0),
                CastOp::FloatToInt => Value::Int(scalar::float_to_int(float(0)?).map_err(at)?),
                CastOp::FloatToBool => Value::Bool(float(0)? != 0.0),
                CastOp::BoolToInt => Value::Int(boolean(0)? as i64),
                CastOp::BoolToFloat => Value::Float(boolean(0)? as u8 as f64),
            }],
            OpKind::Math(m) => {
                let a = float(0)?;
                let b = if m.signature().0 == 2 { float(1)? } else { 0.0 };
                vec![scalar::math(*m, a, b).map_err(at)?]
            }
            OpKind::Select => vec![if boolean(0)? {
                arg(1)?.clone()
            } else {
                arg(2)?.clone()
            }],
            OpKind::Tensor(id) => self.tensor_op(*id, data, env)?,
            OpKind::Index(k) => vec![Value::Index(match k {
                IndexKind::Int => TensorIndex::Int(int(0)?),
                IndexKind::Slice => {
                    let bound = |i: usize| -> Res<Option<i64>> {
                        match arg(i)? {
                            Value::None => Ok(None),
                            Value::Int(v) => Ok(Some(*v)),
                            _ => Err(internal("slice bound is not an int", span)),
                        }
                    };
                    let step = int(2)?;
                    if step == 0 {
                        return Err(InterpError::new(
                            "ValueError",
                            "slice step cannot be zero",
                            span,
                        ));
                    }
                    TensorIndex::Slice {
                        start: bound(0)?,
                        stop: bound(1)?,
                        step,
                    }
                }
                IndexKind::None => TensorIndex::None,
                IndexKind::Ellipsis => TensorIndex::Ellipsis,
                IndexKind::Tensor => TensorIndex::Tensor(
                    arg(0)?
                        .as_tensor()
                        .cloned()
                        .ok_or_else(|| internal("index.tensor of a non-tensor", span))?,
                ),
            })],
            OpKind::TupleNew => {
                let items: Res<Vec<Value>> =
                    (0..data.operands.len()).map(|i| arg(i).cloned()).collect();
                vec![Value::tuple(items?)]
            }
            OpKind::TupleGet(i) => match arg(0)? {
                Value::Tuple(items) => vec![
                    items
                        .get(*i as usize)
                        .cloned()
                        .ok_or_else(|| internal("tuple index out of range", span))?,
                ],
                _ => return Err(internal("tuple.get of a non-tuple", span)),
            },
            OpKind::ListNew => {
                let items: Res<Vec<Value>> =
                    (0..data.operands.len()).map(|i| arg(i).cloned()).collect();
                vec![Value::list(items?)]
            }
            OpKind::ListGet => {
                let (l, i) = (list(arg(0)?, span)?, int(1)?);
                let idx = norm_index(i, l.len()).ok_or_else(|| {
                    InterpError::new("IndexError", "list index out of range", span)
                })?;
                vec![l.get(idx).ok_or_else(|| {
                    InterpError::new("IndexError", "list index out of range", span)
                })?]
            }
            OpKind::ListSet => {
                let (l, i, v) = (list(arg(0)?, span)?, int(1)?, arg(2)?.clone());
                let ok = norm_index(i, l.len()).is_some_and(|idx| l.set(idx, v));
                if !ok {
                    return Err(InterpError::new(
                        "IndexError",
                        "list assignment index out of range",
                        span,
                    ));
                }
                vec![]
            }
            OpKind::ListAppend => {
                list(arg(0)?, span)?.push(arg(1)?.clone());
                vec![]
            }
            OpKind::ListLen => vec![Value::Int(list(arg(0)?, span)?.len() as i64)],
            OpKind::OptNone => vec![Value::None],
            OpKind::OptWrap => vec![arg(0)?.clone()],
            OpKind::OptUnwrap => {
                let v = arg(0)?;
                if v.is_none() {
                    return Err(InterpError::new("RuntimeError", "unwrapping None", span));
                }
                vec![v.clone()]
            }
            OpKind::OptIsNone => vec![Value::Bool(arg(0)?.is_none())],
            OpKind::StrOf(spec) => vec![Value::str(
                py_format(arg(0)?, spec).map_err(|m| InterpError::new("ValueError", m, span))?,
            )],
            OpKind::StrConcat => {
                let mut s = String::new();
                for i in 0..data.operands.len() {
                    s.push_str(&py_str(arg(i)?));
                }
                vec![Value::str(s)]
            }
            OpKind::Undef => vec![Value::None],
            OpKind::If => {
                let region = if boolean(0)? {
                    data.regions[0]
                } else {
                    data.regions[1]
                };
                match self.run_region(f, region, env)? {
                    Exit::Yield(vals) => vals,
                    Exit::Return(_) => {
                        return Err(internal("`return` inside an `if` region", span));
                    }
                }
            }
            OpKind::Loop => self.run_loop(f, op, env)?,
            OpKind::Yield => {
                let vals: Res<Vec<Value>> =
                    (0..data.operands.len()).map(|i| arg(i).cloned()).collect();
                return Ok(Some(Exit::Yield(vals?)));
            }
            OpKind::Return => {
                let v = if data.operands.is_empty() {
                    Value::None
                } else {
                    arg(0)?.clone()
                };
                return Ok(Some(Exit::Return(v)));
            }
            OpKind::Raise(class) => {
                let msg = if data.operands.is_empty() {
                    String::new()
                } else {
                    py_str(arg(0)?)
                };
                return Err(InterpError::raised(class.clone(), msg, span));
            }
            OpKind::Check(class) => {
                if !boolean(0)? {
                    let msg = if data.operands.len() > 1 {
                        py_str(arg(1)?)
                    } else {
                        String::new()
                    };
                    return Err(InterpError::raised(class.clone(), msg, span));
                }
                vec![]
            }
            OpKind::Guard { expected, message } => {
                let v = arg(0)?;
                let holds = match (expected, v) {
                    (Const::Int(a), Value::Int(b)) => a == b,
                    (Const::Bool(a), Value::Bool(b)) => a == b,
                    (Const::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
                    _ => false,
                };
                if !holds {
                    return Err(InterpError::new(GUARD_FAILURE, message.clone(), span));
                }
                vec![]
            }
            OpKind::Print => {
                let parts: Res<Vec<String>> = (0..data.operands.len())
                    .map(|i| arg(i).map(py_str))
                    .collect();
                let line = parts?.join(" ");
                // A closed stdout is not the program's fault; Python would raise, we keep going.
                let _ = writeln!(self.out, "{line}");
                vec![]
            }
            OpKind::Call(callee) => {
                let args: Res<Vec<Value>> =
                    (0..data.operands.len()).map(|i| arg(i).cloned()).collect();
                let v = self.call(*callee, args?).map_err(|mut e| {
                    e.call_stack.push(CallSite {
                        function: f.name.clone(),
                        span,
                    });
                    e
                })?;
                vec![v]
            }
        };
        if results.len() != data.results.len() {
            return Err(internal(
                format!(
                    "`{}` produced {} value(s) for {} result(s)",
                    data.kind.name(),
                    results.len(),
                    data.results.len()
                ),
                span,
            ));
        }
        for (&r, v) in data.results.iter().zip(results) {
            // `undef()` is a placeholder of any type that is never read.
            if data.kind != OpKind::Undef {
                self.check_type(f, r, &v, span)?;
            }
            env[r.index()] = Some(v);
        }
        Ok(None)
    }

    /// With [`Config::check_types`], fails unless `v` fits the IR type of `at`.
    fn check_type(&self, f: &Function, at: IrValue, v: &Value, span: Span) -> Res<()> {
        if !self.config.check_types {
            return Ok(());
        }
        let ty = f.value_type(at);
        // A loop-carried placeholder (`undef()` before an early return) is never read.
        if v.has_type(ty)
            || (matches!(v, Value::None) && !matches!(ty, Type::None | Type::Optional(_)))
        {
            return Ok(());
        }
        Err(internal(
            format!(
                "a {} does not fit its IR type {ty} (value {at})",
                describe(v)
            ),
            span,
        ))
    }

    /// Whether both operands of a float op are `int.to_float` casts: then a zero divisor is
    /// Python's int true division (`1 / 0`: "division by zero"), not float division.
    fn both_from_ints(&self, f: &Function, operands: &[IrValue]) -> bool {
        operands.len() == 2
            && operands.iter().all(|&v| {
                f.defining_op(v)
                    .is_some_and(|d| f.op(d).kind == OpKind::Cast(CastOp::IntToFloat))
            })
    }

    fn run_loop(&mut self, f: &Function, op: Op, env: &mut [Option<Value>]) -> Res<Vec<Value>> {
        let data = f.op(op);
        let span = data.span;
        let get = |env: &[Option<Value>], v: IrValue| -> Res<Value> {
            env[v.index()]
                .clone()
                .ok_or_else(|| internal("loop operand is undefined", span))
        };
        if data.operands.len() < 2 || data.regions.len() != 1 {
            return Err(internal("malformed loop", span));
        }
        let max_trip = get(env, data.operands[0])?
            .as_int()
            .ok_or_else(|| internal("loop trip count is not an int", span))?;
        let mut cond = get(env, data.operands[1])?
            .as_bool()
            .ok_or_else(|| internal("loop condition is not a bool", span))?;
        let mut carried: Vec<Value> = data.operands[2..]
            .iter()
            .map(|&v| get(env, v))
            .collect::<Res<_>>()?;
        let body = data.regions[0];
        let params = f.region_params(body).to_vec();
        if params.len() != carried.len() + 1 {
            return Err(internal(
                "loop body parameters do not match its carried values",
                span,
            ));
        }
        let mut i: i64 = 0;
        while cond && i < max_trip {
            env[params[0].index()] = Some(Value::Int(i));
            for (&p, v) in params[1..].iter().zip(carried.drain(..)) {
                self.check_type(f, p, &v, span)?;
                env[p.index()] = Some(v);
            }
            match self.run_region(f, body, env)? {
                Exit::Yield(mut vals) if vals.len() == params.len() => {
                    cond = vals[0]
                        .as_bool()
                        .ok_or_else(|| internal("loop body yielded a non-bool condition", span))?;
                    carried = vals.split_off(1);
                }
                _ => return Err(internal("loop body must yield (cond, carried...)", span)),
            }
            i += 1;
        }
        Ok(carried)
    }

    fn tensor_op(
        &mut self,
        id: pyjit_ir::OpId,
        data: &pyjit_ir::OpData,
        env: &[Option<Value>],
    ) -> Res<Vec<Value>> {
        let schema = pyjit_runtime::schema::schema(id);
        let mut args = Vec::with_capacity(data.operands.len());
        for (i, &v) in data.operands.iter().enumerate() {
            let val = env[v.index()]
                .as_ref()
                .ok_or_else(|| internal("tensor op operand is undefined", data.span))?;
            args.push(match schema.params.get(i) {
                Some(p) => to_runtime(val, &p.ty),
                None => crate::value::generic_to_runtime(val),
            });
        }
        let out = pyjit_runtime::dispatch::call(id, &args)
            .map_err(|e| InterpError::new(e.kind().name(), e.to_string(), data.span))?;
        Ok(out.into_iter().map(from_runtime).collect())
    }
}

fn const_value(c: &Const) -> Value {
    match c {
        Const::Int(i) => Value::Int(*i),
        Const::Float(f) => Value::Float(*f),
        Const::Bool(b) => Value::Bool(*b),
        Const::None => Value::None,
        Const::Str(s) => Value::str(s),
        Const::DType(d) => Value::DType(*d),
    }
}

fn list(v: &Value, span: Span) -> Res<&crate::value::List> {
    match v {
        Value::List(l) => Ok(l),
        _ => Err(internal("list op on a non-list", span)),
    }
}

/// Python's index normalization: negative counts from the end.
fn norm_index(i: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let j = if i < 0 { i.checked_add(len)? } else { i };
    (0..len).contains(&j).then_some(j as usize)
}

/// A value's run-time type, for type-check failures.
fn describe(v: &Value) -> String {
    match v {
        Value::Tensor(t) => format!("Tensor[{}, {:?}]", t.dtype().name(), t.shape()),
        other => other.type_name().to_string(),
    }
}
