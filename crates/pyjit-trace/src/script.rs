//! TorchScript's mixing rule: a call to a function decorated `@torch.jit.script` is not traced
//! through. The function is scripted (its control flow survives), the trace records a `call` of
//! the scripted IR, and the call runs on the reference interpreter.

use crate::error::{TraceError, from_interp};
use crate::eval::Evaluator;
use crate::record::GuardReason;
use crate::value::{PyVal, TVal, from_interp as py_from_interp, to_interp};
use pyjit_interp::Value as IValue;
use pyjit_ir::{Const, Module, Type};
use pyjit_syntax::Span;
use pyjit_syntax::ast::{self, StmtKind};
use pyjit_value::ExcKind;
use std::collections::HashSet;

/// The scripted functions of the module being traced, scripted on first use.
#[derive(Default)]
pub(crate) struct ScriptCalls {
    pub names: HashSet<String>,
    pub module: Option<Result<Module, String>>,
}

fn script(ev: &Evaluator) -> Result<Module, String> {
    // Script only the decorated functions (and the module's non-def statements) first, so that
    // undecorated functions using Python beyond the language do not stop it; if a decorated
    // function calls an undecorated one, fall back to scripting the whole module.
    let only: Vec<ast::Stmt> = ev
        .ast
        .body
        .iter()
        .filter(|s| match &s.kind {
            StmtKind::FunctionDef(d) => ev.scripted.names.contains(&d.name.name),
            _ => true,
        })
        .cloned()
        .collect();
    let small = ast::Module {
        body: only,
        span: ev.ast.span,
    };
    match pyjit_script::script_module(ev.file, &small) {
        Ok(m) => Ok(m),
        Err(first) => pyjit_script::script_module(ev.file, ev.ast).map_err(|_| {
            first
                .iter()
                .map(|d| d.render(ev.file))
                .collect::<Vec<_>>()
                .join("\n")
        }),
    }
}

pub(crate) fn call_scripted(
    ev: &mut Evaluator,
    name: &str,
    args: Vec<PyVal>,
    kwargs: Vec<(String, PyVal)>,
    span: Span,
) -> Result<PyVal, TraceError> {
    if ev.scripted.module.is_none() {
        let m = script(ev);
        ev.scripted.module = Some(m);
    }
    let module = match ev.scripted.module.as_ref() {
        Some(Ok(m)) => m.clone(),
        Some(Err(msg)) => {
            return Err(TraceError::new(
                ExcKind::tracer(),
                format!("`{name}` is decorated @torch.jit.script but cannot be scripted:\n{msg}"),
                span,
            ));
        }
        None => return Err(TraceError::unsupported("scripting failed", span)),
    };
    if !kwargs.is_empty() {
        return Err(TraceError::unsupported(
            "keyword arguments to a scripted function inside a trace",
            span,
        ));
    }
    let fid = module.function_by_name(name).ok_or_else(|| {
        TraceError::unsupported(format!("scripted function `{name}` not found"), span)
    })?;
    let ptypes = module.func(fid).param_types();
    let ret = module.func(fid).ret.clone();
    if ptypes.len() != args.len() {
        return Err(TraceError::type_error(
            format!(
                "{name}() takes {} arguments but {} were given",
                ptypes.len(),
                args.len()
            ),
            span,
        ));
    }
    // The int → float conversion the language makes at the call boundary.
    let args: Vec<PyVal> = args
        .into_iter()
        .zip(&ptypes)
        .map(|(a, t)| match (a, t) {
            (PyVal::Int(i), Type::Float) => PyVal::Float(i as f64),
            (a, _) => a,
        })
        .collect();
    // A symbolic scalar argument passes through when its type is the parameter's; otherwise it
    // becomes a guarded constant (converted like any other).
    let mut fixed = Vec::with_capacity(args.len());
    for (a, t) in args.into_iter().zip(&ptypes) {
        fixed.push(match &a {
            PyVal::Sym(s)
                if !matches!(
                    (&s.value, t),
                    (PyVal::Int(_), Type::Int)
                        | (PyVal::Float(_), Type::Float)
                        | (PyVal::Bool(_), Type::Bool)
                ) =>
            {
                match (ev.concrete(a.clone()), t) {
                    (PyVal::Int(i), Type::Float) => PyVal::Float(i as f64),
                    (c, _) => c,
                }
            }
            _ => a,
        });
    }
    let args = fixed;
    let mut iargs = Vec::with_capacity(args.len());
    let mut operands = Vec::with_capacity(args.len());
    for (a, t) in args.iter().zip(&ptypes) {
        iargs.push(to_interp(a).map_err(|k| {
            TraceError::type_error(format!("cannot pass a {k} to a scripted function"), span)
        })?);
        operands.push(ev.emit_value(a, t, span)?);
    }
    let mut out = Vec::new();
    let r = pyjit_interp::Interpreter::new(&module, pyjit_interp::Config::default(), &mut out)
        .call(fid, iargs)
        .map_err(from_interp);
    ev.out
        .write_all(&out)
        .map_err(|e| TraceError::new(ExcKind::OSError, e.to_string(), span))?;
    let r = r?;
    let rec = ev
        .rec
        .as_mut()
        .ok_or_else(|| TraceError::unsupported("not recording", span))?;
    let res = rec.builder(span).call(fid, &operands, ret);
    bind_result(ev, &r, res, span)
}

/// The Python object for a scripted call's result, with IR values for the tensors inside it and
/// guards on the scalars (the trace treats them as constants from here on).
fn bind_result(
    ev: &mut Evaluator,
    v: &IValue,
    irv: pyjit_ir::Value,
    span: Span,
) -> Result<PyVal, TraceError> {
    let rec = ev
        .rec
        .as_mut()
        .ok_or_else(|| TraceError::unsupported("not recording", span))?;
    let what = ev.file.slice(span).to_string();
    Ok(match v {
        IValue::Tensor(t) => PyVal::Tensor(TVal {
            t: t.clone(),
            ir: Some(irv),
        }),
        IValue::Int(i) => {
            rec.guard(irv, Const::Int(*i), GuardReason::Int, &what, span);
            PyVal::Int(*i)
        }
        IValue::Float(x) => {
            rec.guard(irv, Const::Float(*x), GuardReason::Float, &what, span);
            PyVal::Float(*x)
        }
        IValue::Bool(b) => {
            rec.guard(irv, Const::Bool(*b), GuardReason::Bool, &what, span);
            PyVal::Bool(*b)
        }
        IValue::Tuple(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, it) in items.iter().enumerate() {
                let rec = ev.rec.as_mut().expect("recording");
                let e = rec.builder(span).tuple_get(irv, i as u32);
                out.push(bind_result(ev, it, e, span)?);
            }
            PyVal::tuple(out)
        }
        IValue::List(l) => {
            let items = l.snapshot();
            rec.guard_len(irv, items.len(), GuardReason::Int, &what, span);
            let mut out = Vec::with_capacity(items.len());
            for (i, it) in items.iter().enumerate() {
                let rec = ev.rec.as_mut().expect("recording");
                let mut b = rec.builder(span);
                let ci = b.const_int(i as i64);
                let e = b.list_get(irv, ci);
                out.push(bind_result(ev, it, e, span)?);
            }
            PyVal::list(out)
        }
        other => py_from_interp(other),
    })
}
