//! Tracing Rust closures: a tensor handle with operator overloading that runs each op eagerly on
//! the runtime and records it into the same IR the Python tracer produces.
//!
//! ```
//! use pyjit_runtime::Tensor;
//! use pyjit_trace::rust_api::{trace, Handle};
//!
//! let a = Tensor::from_slice(&[1.0f32, 2.0]);
//! let b = Tensor::from_slice(&[10.0f32, 20.0]);
//! let g = trace(|xs: &[Handle]| (&xs[0] + &xs[1]) * 2.0, &[a.clone(), b.clone()]).unwrap();
//! assert!(g.print().contains("tensor.add.Tensor"));
//! let out = g.call(&[Tensor::from_slice(&[0.5f32, 0.5]), b]).unwrap();
//! assert_eq!(out.to_vec::<f32>(), vec![21.0, 41.0]);
//! ```
//!
//! Operators cannot return `Result`, so the first failing op (a shape mismatch, say) poisons the
//! trace: later ops are skipped and [`trace`] returns that error.

use crate::error::{TraceError, from_interp, from_runtime};
use crate::record::{Arg, Recorder};
use pyjit_interp::Value as IValue;
use pyjit_ir::{FuncId, Module, Type};
use pyjit_runtime::{Tensor, Value as RtValue, schema};
use pyjit_syntax::Span;
use std::cell::RefCell;
use std::ops::{Add, Div, Mul, Neg, Sub};
use std::rc::Rc;

struct State {
    rec: Recorder,
    error: Option<TraceError>,
}

/// A tensor inside a traced Rust closure.
#[derive(Clone)]
pub struct Handle {
    t: Option<Tensor>,
    ir: Option<pyjit_ir::Value>,
    st: Rc<RefCell<State>>,
}

impl Handle {
    /// The eager value (`None` once the trace has failed).
    pub fn value(&self) -> Option<&Tensor> {
        self.t.as_ref()
    }

    fn arg(&self) -> Option<Arg> {
        Some(Arg::concrete(
            RtValue::Tensor(self.t.clone()?),
            vec![self.ir],
        ))
    }

    fn poisoned(&self) -> Handle {
        Handle {
            t: None,
            ir: None,
            st: self.st.clone(),
        }
    }

    /// Calls op `name` of the runtime's schema table with this tensor first, then `args`
    /// (other handles or Python scalars as runtime values).
    pub fn op(&self, name: &str, args: &[OpArg<'_>]) -> Handle {
        let Some(first) = self.arg() else {
            return self.poisoned();
        };
        let mut all = vec![first];
        for a in args {
            match a {
                OpArg::T(h) => match h.arg() {
                    Some(x) => all.push(x),
                    None => return self.poisoned(),
                },
                OpArg::V(v) => all.push(Arg::concrete(v.clone(), Vec::new())),
            }
        }
        let mut st = self.st.borrow_mut();
        if st.error.is_some() {
            return self.poisoned();
        }
        let result = (|| -> Result<(Tensor, Option<pyjit_ir::Value>), TraceError> {
            let (id, bound) = schema::resolve(name, all, vec![])
                .map_err(|e| from_runtime(pyjit_runtime::RuntimeError::Bind(e), Span::DUMMY))?;
            let rt: Vec<RtValue> = bound.iter().map(|a| a.v.clone()).collect();
            let out = pyjit_runtime::call(id, &rt).map_err(|e| from_runtime(e, Span::DUMMY))?;
            let irs = st.rec.tensor_op(id, &bound, Span::DUMMY)?;
            match out.into_iter().next() {
                Some(RtValue::Tensor(t)) => Ok((t, irs.first().copied())),
                _ => Err(TraceError::unsupported(
                    format!("{name} does not return one tensor"),
                    Span::DUMMY,
                )),
            }
        })();
        match result {
            Ok((t, ir)) => Handle {
                t: Some(t),
                ir,
                st: self.st.clone(),
            },
            Err(e) => {
                st.error = Some(e);
                drop(st);
                self.poisoned()
            }
        }
    }

    pub fn relu(&self) -> Handle {
        self.op("relu", &[])
    }

    pub fn tanh(&self) -> Handle {
        self.op("tanh", &[])
    }

    pub fn exp(&self) -> Handle {
        self.op("exp", &[])
    }

    pub fn sum(&self) -> Handle {
        self.op("sum", &[])
    }

    pub fn matmul(&self, other: &Handle) -> Handle {
        self.op("matmul", &[OpArg::T(other)])
    }
}

/// An argument of [`Handle::op`] after the first tensor.
pub enum OpArg<'h> {
    T(&'h Handle),
    V(RtValue),
}

macro_rules! binary {
    ($tr:ident, $m:ident, $name:literal) => {
        impl $tr<&Handle> for &Handle {
            type Output = Handle;
            fn $m(self, rhs: &Handle) -> Handle {
                self.op($name, &[OpArg::T(rhs)])
            }
        }
        impl $tr<Handle> for Handle {
            type Output = Handle;
            fn $m(self, rhs: Handle) -> Handle {
                self.op($name, &[OpArg::T(&rhs)])
            }
        }
        impl $tr<f64> for &Handle {
            type Output = Handle;
            fn $m(self, rhs: f64) -> Handle {
                self.op($name, &[OpArg::V(RtValue::Float(rhs))])
            }
        }
        impl $tr<f64> for Handle {
            type Output = Handle;
            fn $m(self, rhs: f64) -> Handle {
                self.op($name, &[OpArg::V(RtValue::Float(rhs))])
            }
        }
    };
}

binary!(Add, add, "add");
binary!(Sub, sub, "sub");
binary!(Mul, mul, "mul");
binary!(Div, div, "div");

impl Neg for &Handle {
    type Output = Handle;
    fn neg(self) -> Handle {
        self.op("neg", &[])
    }
}

impl Neg for Handle {
    type Output = Handle;
    fn neg(self) -> Handle {
        self.op("neg", &[])
    }
}

/// A traced Rust closure: its IR and a callable.
#[derive(Clone, Debug)]
pub struct RustTrace {
    pub module: Module,
    pub func: FuncId,
    /// What the closure returned on the example inputs.
    pub result: Tensor,
}

impl RustTrace {
    pub fn print(&self) -> String {
        pyjit_ir::print_module(&self.module)
    }

    /// Runs the traced graph on new inputs (the reference interpreter).
    pub fn call(&self, inputs: &[Tensor]) -> Result<Tensor, TraceError> {
        let args = inputs.iter().cloned().map(IValue::Tensor).collect();
        let mut out = Vec::new();
        let r =
            pyjit_interp::Interpreter::new(&self.module, pyjit_interp::Config::default(), &mut out)
                .call(self.func, args)
                .map_err(from_interp)?;
        match r {
            IValue::Tensor(t) => Ok(t),
            other => Err(TraceError::unsupported(
                format!("the trace returned a {}", other.type_name()),
                Span::DUMMY,
            )),
        }
    }
}

/// Traces `f` on example `inputs`: every op it performs on the handles is run and recorded.
/// A closure has no Python control flow to guard: whatever Rust branching it does on concrete
/// values is its author's responsibility, as with torch.jit.trace.
pub fn trace(
    f: impl FnOnce(&[Handle]) -> Handle,
    inputs: &[Tensor],
) -> Result<RustTrace, TraceError> {
    let names: Vec<String> = (0..inputs.len()).map(|i| format!("x{i}")).collect();
    let params: Vec<(&str, Type)> = names.iter().map(|n| (n.as_str(), Type::tensor())).collect();
    let func = pyjit_ir::Function::new("closure", &params, Type::tensor(), Span::DUMMY);
    let rec = Recorder::new(func, true);
    let irs = rec.func.params().to_vec();
    let st = Rc::new(RefCell::new(State { rec, error: None }));
    let handles: Vec<Handle> = inputs
        .iter()
        .zip(irs)
        .map(|(t, ir)| Handle {
            t: Some(t.clone()),
            ir: Some(ir),
            st: st.clone(),
        })
        .collect();
    let out = f(&handles);
    drop(handles);
    let mut st = st.borrow_mut();
    if let Some(e) = st.error.take() {
        return Err(e);
    }
    let (Some(t), Some(ret)) = (out.t.clone(), out.ir) else {
        return Err(TraceError::unsupported(
            "the closure returned no traced tensor",
            Span::DUMMY,
        ));
    };
    st.rec.builder(Span::DUMMY).return_(ret);
    let mut m = Module::new();
    let func = std::mem::replace(
        &mut st.rec.func,
        pyjit_ir::Function::new("empty", &[], Type::None, Span::DUMMY),
    );
    let fid = m.push_function(func);
    if let Err(msg) = crate::trace::verify_recorded(&m) {
        return Err(TraceError::unsupported(
            format!("recorded IR fails verification: {msg}"),
            Span::DUMMY,
        ));
    }
    Ok(RustTrace {
        module: m,
        func: fid,
        result: t,
    })
}
