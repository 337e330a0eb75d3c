//! The evaluator: walks a function's regions op by op.
//!
//! Each call gets a fresh environment (one slot per IR value of the callee). Regions run by
//! recursion on the Rust stack, which `stacker` grows on demand, so the depth of user recursion is
//! bounded only by [`Config::max_call_depth`] (a `RecursionError`, as in Python), never by the
//! native stack.

use pyjit_ir::{EntityRef, FuncId, Function, Module, Op, OpKind, Region, Type, Value as IrValue};
use pyjit_syntax::Span;
use pyjit_value::ops;
use pyjit_value::{CallSite, ExcKind, InterpError, Value, from_runtime, to_runtime};
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
    InterpError::new(ExcKind::Internal, msg, span)
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
            return Err(InterpError::at(
                pyjit_value::scalar::recursion_error(),
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
        pyjit_syntax::grow(|| self.run_region_unbounded(f, r, env))
    }

    fn run_region_unbounded(
        &mut self,
        f: &Function,
        r: Region,
        env: &mut [Option<Value>],
    ) -> Res<Exit> {
        for &op in f.region_ops(r) {
            match self.run_op(f, op, env) {
                Ok(Some(exit)) => return Ok(exit),
                Ok(None) => {}
                // An op that owns regions raised nothing itself: its inner op placed the frames.
                Err(mut e) if f.op(op).regions.is_empty() => {
                    let called = matches!(f.op(op).kind, OpKind::Call(_));
                    e.add_inline_frames(f, op, called);
                    return Err(e);
                }
                Err(e) => return Err(e),
            }
        }
        Err(internal("region has no terminator", f.span))
    }

    /// Runs one op; `Some` when it terminated the region.
    fn run_op(&mut self, f: &Function, op: Op, env: &mut [Option<Value>]) -> Res<Option<Exit>> {
        let data = f.op(op);
        let span = data.span;
        let operand = |i: usize| -> Option<&Value> {
            data.operands
                .get(i)
                .and_then(|v| env.get(v.index()).and_then(Option::as_ref))
        };
        let arg = |i: usize| -> Res<&Value> {
            operand(i).ok_or_else(|| {
                internal(
                    format!("operand {i} of `{}` is undefined", data.kind.name()),
                    span,
                )
            })
        };
        let operands =
            || -> Res<Vec<Value>> { (0..data.operands.len()).map(|i| arg(i).cloned()).collect() };

        let results: Vec<Value> = match &data.kind {
            OpKind::Tensor(id) => self.tensor_op(*id, data, env)?,
            OpKind::If => {
                let cond = arg(0)?
                    .as_bool()
                    .ok_or_else(|| internal("expected a bool operand", span))?;
                let region = if cond {
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
            // The reference meaning of a fused group: its body's ops, one after the other.
            OpKind::Fused => {
                let body = data.regions[0];
                for (&p, v) in f.region_params(body).iter().zip(operands()?) {
                    env[p.index()] = Some(v);
                }
                match self.run_region(f, body, env)? {
                    Exit::Yield(vals) => vals,
                    Exit::Return(_) => {
                        return Err(internal("`return` inside a `fused` region", span));
                    }
                }
            }
            OpKind::Yield => return Ok(Some(Exit::Yield(operands()?))),
            OpKind::Return => {
                let v = if data.operands.is_empty() {
                    Value::None
                } else {
                    arg(0)?.clone()
                };
                return Ok(Some(Exit::Return(v)));
            }
            OpKind::Call(callee) => {
                let v = self.call(*callee, operands()?).map_err(|mut e| {
                    e.call_stack.push(CallSite {
                        function: f.name.clone(),
                        span,
                    });
                    e
                })?;
                vec![v]
            }
            // A scalar op on borrowed operands, its result straight into `env`: no operand or
            // result vector (they made scalar loops 1.3-1.6x slower than computing in place).
            kind if data.results.len() == 1
                && let Some(a) = operand(0)
                && let Some(r) = ops::eval_scalar(kind, a, operand(1)) =>
            {
                let v = r.map_err(|e| InterpError::at(e, span))?;
                let r = data.results[0];
                self.check_type(f, r, &v, span)?;
                env[r.index()] = Some(v);
                return Ok(None);
            }
            kind => {
                let mut ctx = ops::EvalCtx {
                    out: &mut *self.out,
                };
                match ops::eval(kind, &operands()?, &mut ctx) {
                    Some(Ok(vals)) => vals,
                    Some(Err(e)) => {
                        return Err(if ops::raised_by_program(kind) {
                            InterpError::raised(e.kind, e.message, span)
                        } else {
                            InterpError::at(e, span)
                        });
                    }
                    None => {
                        return Err(internal(
                            format!("`{}` has no implementation", kind.name()),
                            span,
                        ));
                    }
                }
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
                None => pyjit_value::generic_to_runtime(val),
            });
        }
        let out = pyjit_runtime::dispatch::call(id, &args)
            .map_err(|e| InterpError::new(e.kind(), e.to_string(), data.span))?;
        Ok(out.into_iter().map(from_runtime).collect())
    }
}

/// A value's run-time type, for type-check failures.
fn describe(v: &Value) -> String {
    match v {
        Value::Tensor(t) => format!("Tensor[{}, {:?}]", t.dtype().name(), t.shape()),
        other => other.type_name().to_string(),
    }
}
