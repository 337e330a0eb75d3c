//! The eager evaluator: walks the AST with Python's dynamic semantics over runtime tensors and,
//! when a [`Recorder`] is attached, records every tensor op into IR and guards every Python value
//! that was derived from a tensor.

use crate::error::{TraceError, from_runtime};
use crate::record::{Arg, GuardReason, Recorder};
use crate::value::{Callable, ClosureBody, PyVal, TVal, scalar_to_runtime};
use pyjit_ir::{Const, OpKind, Type};
use pyjit_runtime::schema::{self, OperatorForm, PyOperator};
use pyjit_runtime::{DType, OpId, Scalar, TensorIndex, Value as RtValue};
use pyjit_syntax::ast::{self, BinOp, CmpOp, Expr, ExprKind, Stmt, StmtKind};
use pyjit_syntax::{SourceFile, Span};
use pyjit_value::{ExcKind, scalar};
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;
use std::rc::Rc;

type R<T> = Result<T, TraceError>;

/// Python's default recursion limit.
const MAX_DEPTH: usize = 1000;

pub(crate) enum Flow {
    Normal,
    Return(PyVal),
    Break,
    Continue,
}

pub(crate) type Frame = HashMap<String, PyVal>;

/// What [`Evaluator::bind_params`] binds arguments to: a function's name and parameters, the
/// variables it closed over, and its parameter defaults evaluated at definition time (closures).
#[derive(Clone, Copy)]
pub(crate) struct Callee<'c> {
    pub name: &'c str,
    pub params: &'c ast::Parameters,
    pub env: &'c Frame,
    pub defaults: &'c HashMap<String, PyVal>,
}

/// One evaluation of a module's functions.
pub(crate) struct Evaluator<'a, 'o> {
    pub file: &'a SourceFile,
    pub ast: &'a ast::Module,
    pub funcs: HashMap<String, &'a ast::FunctionDef>,
    pub globals: HashMap<String, PyVal>,
    pub rec: Option<Recorder>,
    pub out: &'o mut dyn Write,
    depth: usize,
    /// Statements left to execute before evaluation stops with a `TimeoutError` (a bound for
    /// callers that run untrusted or arbitrary programs).
    pub steps_left: u64,
    /// The exceptions being handled by enclosing `except` blocks (for a bare `raise`).
    handling: Vec<TraceError>,
    /// Functions decorated `@torch.jit.script` (called, not traced through, while recording).
    pub scripted: crate::script::ScriptCalls,
    /// The module is NumPy-style ([`pyjit_runtime::numpy::numpy_mode`]): array methods follow
    /// NumPy's conventions.
    pub numpy_mode: bool,
}

fn type_err(msg: impl Into<String>, span: Span) -> TraceError {
    TraceError::type_error(msg, span)
}

fn grow<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, f)
}

/// Canonical dotted names of the modules and namespaces the evaluator knows.
fn is_module(name: &str) -> bool {
    matches!(
        name,
        "torch"
            | "torch.nn"
            | "torch.nn.functional"
            | "torch.jit"
            | "math"
            | "numpy"
            | "typing"
            | "torch.linalg"
            | "__future__"
    )
}

/// What a dotted name of a library denotes.
fn resolve_dotted(name: &str) -> PyVal {
    if is_module(name) {
        return PyVal::Module(Rc::from(name));
    }
    let dt = |d| PyVal::DType(d);
    match name {
        "torch.float32" | "torch.float" | "numpy.float32" => dt(DType::Float32),
        "torch.float64" | "torch.double" | "numpy.float64" | "numpy.double" => dt(DType::Float64),
        "torch.int64" | "torch.long" | "numpy.int64" => dt(DType::Int64),
        "torch.int32" | "torch.int" | "numpy.int32" => dt(DType::Int32),
        "torch.bool" | "numpy.bool_" => dt(DType::Bool),
        "math.pi" | "numpy.pi" => PyVal::Float(std::f64::consts::PI),
        "math.e" | "numpy.e" => PyVal::Float(std::f64::consts::E),
        "math.tau" => PyVal::Float(std::f64::consts::TAU),
        "math.inf" | "numpy.inf" => PyVal::Float(f64::INFINITY),
        "math.nan" | "numpy.nan" => PyVal::Float(f64::NAN),
        "torch.Tensor" | "numpy.ndarray" => PyVal::Type("Tensor"),
        "typing.List" => PyVal::Type("list"),
        "typing.Tuple" => PyVal::Type("tuple"),
        "typing.Dict" => PyVal::Type("dict"),
        "typing.Optional" | "typing.Any" | "typing.Union" => PyVal::Type("object"),
        _ => PyVal::Func(Rc::new(Callable::Builtin(name.to_string()))),
    }
}

const BUILTINS: &[&str] = &[
    "len",
    "range",
    "print",
    "abs",
    "min",
    "max",
    "sum",
    "round",
    "isinstance",
    "enumerate",
    "zip",
    "sorted",
    "reversed",
    "any",
    "all",
    "map",
    "filter",
    "divmod",
    "pow",
    "repr",
    "hasattr",
];

impl<'a, 'o> Evaluator<'a, 'o> {
    pub fn new(
        file: &'a SourceFile,
        module: &'a ast::Module,
        out: &'o mut dyn Write,
    ) -> Evaluator<'a, 'o> {
        let mut ev = Evaluator {
            file,
            ast: module,
            funcs: HashMap::new(),
            globals: HashMap::new(),
            rec: None,
            out,
            depth: 0,
            steps_left: u64::MAX,
            handling: Vec::new(),
            scripted: crate::script::ScriptCalls::default(),
            numpy_mode: false,
        };
        let mut imported: Vec<String> = Vec::new();
        for s in &module.body {
            match &s.kind {
                StmtKind::ClassDef(c) => {
                    let methods = c
                        .body
                        .iter()
                        .filter_map(|st| match &st.kind {
                            StmtKind::FunctionDef(d) => {
                                Some((d.name.name.clone(), Rc::new((**d).clone())))
                            }
                            _ => None,
                        })
                        .collect();
                    let info = crate::value::ClassInfo {
                        name: c.name.name.clone(),
                        methods,
                        attrs: RefCell::new(HashMap::new()),
                    };
                    ev.globals
                        .insert(c.name.name.clone(), PyVal::Class(Rc::new(info)));
                }
                StmtKind::FunctionDef(def) => {
                    ev.funcs.insert(def.name.name.clone(), def);
                    ev.globals.insert(
                        def.name.name.clone(),
                        PyVal::Func(Rc::new(Callable::User(def.name.name.clone()))),
                    );
                    if def
                        .decorators
                        .iter()
                        .any(|d| d.dotted_name().is_some_and(|n| n.ends_with("jit.script")))
                    {
                        ev.scripted.names.insert(def.name.name.clone());
                    }
                }
                StmtKind::Import(aliases) => {
                    for a in aliases {
                        let full = canonical_module(&a.name.name);
                        imported.push(full.clone());
                        match &a.asname {
                            Some(asn) => {
                                ev.globals.insert(asn.name.clone(), resolve_dotted(&full));
                            }
                            None => {
                                let first = full.split('.').next().unwrap_or("").to_string();
                                ev.globals.insert(first.clone(), resolve_dotted(&first));
                            }
                        }
                    }
                }
                StmtKind::ImportFrom {
                    module: Some(m),
                    names,
                    ..
                } => {
                    let base = canonical_module(&m.name);
                    imported.push(base.clone());
                    for a in names {
                        let local = a.asname.as_ref().unwrap_or(&a.name).name.clone();
                        ev.globals
                            .insert(local, resolve_dotted(&format!("{base}.{}", a.name.name)));
                    }
                }
                _ => {}
            }
        }
        ev.numpy_mode = pyjit_runtime::numpy::numpy_mode(imported.iter().map(String::as_str));
        // Class attributes (`scale = 2.0` in a class body), evaluated eagerly.
        for s in &module.body {
            let StmtKind::ClassDef(c) = &s.kind else {
                continue;
            };
            let Some(PyVal::Class(info)) = ev.globals.get(&c.name.name).cloned() else {
                continue;
            };
            for (n, value) in c.body.iter().filter_map(name_binding) {
                let mut frame = Frame::new();
                if let Ok(v) = ev.eval(&mut frame, value) {
                    info.attrs.borrow_mut().insert(n.to_string(), v);
                }
            }
        }
        // Module-level constants, in order, evaluated eagerly (never recorded).
        for (n, value) in module.body.iter().filter_map(name_binding) {
            let mut frame = Frame::new();
            if let Ok(v) = ev.eval(&mut frame, value) {
                ev.globals.insert(n.to_string(), v);
            }
        }
        ev
    }

    fn recording(&self) -> bool {
        self.rec.is_some()
    }

    // ------------------------------------------------------------------ calls of user functions

    pub fn call_user(
        &mut self,
        name: &str,
        args: Vec<PyVal>,
        kwargs: Vec<(String, PyVal)>,
        span: Span,
    ) -> R<PyVal> {
        let def = *self.funcs.get(name).ok_or_else(|| {
            TraceError::new(
                ExcKind::NameError,
                format!("name '{name}' is not defined"),
                span,
            )
        })?;
        if self.scripted.names.contains(name) && self.recording() {
            return crate::script::call_scripted(self, name, args, kwargs, span);
        }
        self.call_def(def, args, kwargs, span)
    }

    /// Calls a `def` (a module function or a method with `self` among `args`).
    pub(crate) fn call_def(
        &mut self,
        def: &ast::FunctionDef,
        args: Vec<PyVal>,
        kwargs: Vec<(String, PyVal)>,
        span: Span,
    ) -> R<PyVal> {
        let (env, defaults) = (Frame::new(), HashMap::new());
        let callee = Callee {
            name: &def.name.name,
            params: &def.params,
            env: &env,
            defaults: &defaults,
        };
        let mut frame = self.bind_params(callee, args, kwargs, span)?;
        // The call site joins the stack of an error raised inside the body (not of the
        // RecursionError refusing to enter it).
        let r = self.deeper(span, |this| {
            grow(|| this.exec_block(&mut frame, &def.body)).map_err(|mut e| {
                e.call_stack.push(span);
                e
            })
        })?;
        Ok(match r {
            Flow::Return(v) => v,
            _ => PyVal::None,
        })
    }

    /// Binds arguments to parameters as Python does (positional, keywords, defaults); an `int`
    /// passed for a `float`-annotated parameter becomes a float (the language converts at the
    /// call boundary).
    pub(crate) fn bind_params(
        &mut self,
        callee: Callee<'_>,
        args: Vec<PyVal>,
        kwargs: Vec<(String, PyVal)>,
        span: Span,
    ) -> R<Frame> {
        let Callee {
            name: fname,
            params,
            env,
            defaults,
        } = callee;
        let mut frame = env.clone();
        let plist: Vec<&ast::Param> = params.posonly.iter().chain(&params.args).collect();
        let mut args = args;
        let extra = match &params.vararg {
            Some(_) if args.len() > plist.len() => args.split_off(plist.len()),
            _ => Vec::new(),
        };
        if let Some(va) = &params.vararg {
            frame.insert(va.name.name.clone(), PyVal::tuple(extra));
        }
        let extra_kw = Rc::new(RefCell::new(Vec::new()));
        if args.len() > plist.len() {
            return Err(type_err(
                format!(
                    "{fname}() takes {} positional argument{} but {} were given",
                    plist.len(),
                    if plist.len() == 1 { "" } else { "s" },
                    args.len()
                ),
                span,
            ));
        }
        let mut slots: Vec<Option<PyVal>> = vec![None; plist.len() + params.kwonly.len()];
        for (i, a) in args.into_iter().enumerate() {
            slots[i] = Some(a);
        }
        let all: Vec<&ast::Param> = plist.iter().copied().chain(&params.kwonly).collect();
        for (k, v) in kwargs {
            let Some(i) = all.iter().position(|p| p.name.name == k) else {
                if params.kwarg.is_some() {
                    dict_set(&extra_kw, PyVal::str(&k), v);
                    continue;
                }
                return Err(type_err(
                    format!("{fname}() got an unexpected keyword argument '{k}'"),
                    span,
                ));
            };
            if slots[i].is_some() {
                return Err(type_err(
                    format!("{fname}() got multiple values for argument '{k}'"),
                    span,
                ));
            }
            slots[i] = Some(v);
        }
        for (p, slot) in all.iter().zip(slots) {
            let v = match slot {
                Some(v) => v,
                None => match &p.default {
                    Some(_) if defaults.contains_key(&p.name.name) => {
                        defaults[&p.name.name].clone()
                    }
                    Some(d) => {
                        let mut f = Frame::new();
                        self.eval(&mut f, d)?
                    }
                    None => {
                        return Err(type_err(
                            format!(
                                "{fname}() missing 1 required positional argument: '{}'",
                                p.name.name
                            ),
                            span,
                        ));
                    }
                },
            };
            let v = match (&v, p.annotation.as_ref().and_then(|a| a.dotted_name())) {
                (PyVal::Int(i), Some(t)) if t == "float" => PyVal::Float(*i as f64),
                (PyVal::Sym(sym), Some(t))
                    if t == "float" && matches!(sym.value, PyVal::Int(_)) =>
                {
                    match (self.rec.as_mut(), &sym.value) {
                        (Some(rec), PyVal::Int(i)) => {
                            let ir = rec
                                .builder(sym.span)
                                .cast(pyjit_ir::CastOp::IntToFloat, sym.ir);
                            PyVal::Sym(Rc::new(crate::value::Sym {
                                value: PyVal::Float(*i as f64),
                                ir,
                                what: sym.what.clone(),
                                span: sym.span,
                            }))
                        }
                        _ => self.concrete(v.clone()),
                    }
                }
                _ => v,
            };
            frame.insert(p.name.name.clone(), v);
        }
        if let Some(kw) = &params.kwarg {
            frame.insert(kw.name.name.clone(), PyVal::Dict(extra_kw));
        }
        Ok(frame)
    }

    // ------------------------------------------------------------------ statements

    pub(crate) fn exec_block(&mut self, f: &mut Frame, body: &[Stmt]) -> R<Flow> {
        for s in body {
            match self.exec(f, s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, f: &mut Frame, s: &Stmt) -> R<Flow> {
        // Statement nesting follows the program (an `elif` chain nests once per branch).
        grow(|| self.exec_unbounded(f, s))
    }

    fn exec_unbounded(&mut self, f: &mut Frame, s: &Stmt) -> R<Flow> {
        if self.steps_left == 0 {
            return Err(TraceError::new(
                ExcKind::from_name("TimeoutError"),
                "the evaluation step limit was exceeded",
                s.span,
            ));
        }
        self.steps_left -= 1;
        match &s.kind {
            StmtKind::Expr(e) => {
                self.eval(f, e)?;
            }
            StmtKind::Pass => {}
            StmtKind::Break => return Ok(Flow::Break),
            StmtKind::Continue => return Ok(Flow::Continue),
            StmtKind::Return(v) => {
                let v = match v {
                    Some(e) => self.eval(f, e)?,
                    None => PyVal::None,
                };
                return Ok(Flow::Return(v));
            }
            StmtKind::Assign { targets, value, .. } => {
                let v = self.eval(f, value)?;
                for t in targets {
                    self.assign(f, t, v.clone())?;
                }
            }
            StmtKind::AnnAssign { target, value, .. } => {
                if let Some(value) = value {
                    let v = self.eval(f, value)?;
                    self.assign(f, target, v)?;
                }
            }
            StmtKind::AugAssign { target, op, value } => {
                self.aug_assign(f, target, *op, value, s.span)?
            }
            StmtKind::If { test, body, orelse } => {
                let c = self.eval(f, test)?;
                let branch = if self.truthy(&c, test.span)? {
                    body
                } else {
                    orelse
                };
                return self.exec_block(f, branch);
            }
            StmtKind::While { test, body, orelse } => loop {
                let c = self.eval(f, test)?;
                if !self.truthy(&c, test.span)? {
                    return self.exec_block(f, orelse);
                }
                match self.exec_block(f, body)? {
                    Flow::Break => break,
                    Flow::Return(v) => return Ok(Flow::Return(v)),
                    _ => {}
                }
            },
            StmtKind::For(ast::For {
                target,
                iter,
                body,
                orelse,
                ..
            }) => {
                let it = self.eval(f, iter)?;
                let items: Box<dyn Iterator<Item = PyVal>> = match it {
                    // Lazily: `for i in range(10**12): ... break` must not build a list.
                    PyVal::Range(a, b, c) => {
                        let n = crate::value::range_len(a, b, c);
                        Box::new(
                            (0..n as i64)
                                .map(move |i| PyVal::Int(a.wrapping_add(i.wrapping_mul(c)))),
                        )
                    }
                    other => Box::new(self.iterate(&other, iter.span)?.into_iter()),
                };
                let mut broke = false;
                for item in items {
                    self.assign(f, target, item)?;
                    match self.exec_block(f, body)? {
                        Flow::Break => {
                            broke = true;
                            break;
                        }
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        _ => {}
                    }
                }
                if !broke {
                    return self.exec_block(f, orelse);
                }
            }
            StmtKind::Assert { test, msg } => {
                let c = self.eval(f, test)?;
                if !self.truthy(&c, test.span)? {
                    let m = match msg {
                        Some(m) => {
                            let v = self.eval(f, m)?;
                            self.str_of(&v)
                        }
                        None => String::new(),
                    };
                    let mut e = TraceError::new(ExcKind::AssertionError, m, s.span);
                    e.raised_by_program = true;
                    return Err(e);
                }
            }
            StmtKind::Raise { exc: None, .. } if !self.handling.is_empty() => {
                return Err(self.handling.last().cloned().unwrap_or_else(|| {
                    TraceError::new(
                        ExcKind::RuntimeError,
                        "No active exception to reraise",
                        s.span,
                    )
                }));
            }
            StmtKind::Try(t) => return self.exec_try(f, t),
            StmtKind::Raise { exc, .. } => {
                let (kind, msg) = match exc {
                    None => (
                        "RuntimeError".to_string(),
                        "No active exception to reraise".to_string(),
                    ),
                    Some(e) => match &e.kind {
                        ExprKind::Call { func, args, .. } => {
                            let kind = func.dotted_name().unwrap_or_else(|| "Exception".into());
                            let msg = match args.first() {
                                // `str(KeyError(k))` is `repr(k)`
                                Some(a) if kind.ends_with("KeyError") => self.eval(f, a)?.repr(),
                                Some(a) => {
                                    let v = self.eval(f, a)?;
                                    self.str_of(&v)
                                }
                                None => String::new(),
                            };
                            (
                                kind.rsplit('.').next().unwrap_or("Exception").to_string(),
                                msg,
                            )
                        }
                        _ => (
                            e.dotted_name().unwrap_or_else(|| "Exception".into()),
                            String::new(),
                        ),
                    },
                };
                let mut e = TraceError::new(ExcKind::from_name(&kind), msg, s.span);
                e.raised_by_program = true;
                return Err(e);
            }
            StmtKind::FunctionDef(def) => {
                // A nested def is a closure over the current variables.
                let defaults = self.closure_defaults(f, &def.params)?;
                let c = Callable::Closure {
                    name: def.name.name.clone(),
                    params: Rc::new(def.params.clone()),
                    body: ClosureBody::Stmts(Rc::new(def.body.clone())),
                    env: f.clone(),
                    defaults,
                };
                f.insert(def.name.name.clone(), PyVal::Func(Rc::new(c)));
            }
            StmtKind::Import(_) | StmtKind::ImportFrom { .. } => {}
            StmtKind::With { items, body, .. } => {
                // `with torch.no_grad():` and friends: no autograd here, so no effect.
                for it in items {
                    let callee = match &it.context.kind {
                        ast::ExprKind::Call { func, args, .. } if args.is_empty() => {
                            Some(self.eval(f, func)?)
                        }
                        _ => None,
                    };
                    let known = matches!(&callee, Some(PyVal::Func(c))
                        if matches!(&**c, Callable::Builtin(n)
                            if matches!(n.as_str(), "torch.no_grad" | "torch.enable_grad" | "torch.inference_mode")));
                    if !known || it.vars.is_some() {
                        return Err(TraceError::unsupported(
                            "only `with torch.no_grad():`, `with torch.enable_grad():` and `with torch.inference_mode():` are supported",
                            it.context.span,
                        ));
                    }
                }
                return self.exec_block(f, body);
            }
            StmtKind::Del(targets) => {
                for t in targets {
                    self.delete(f, t)?;
                }
            }
            _ => {
                return Err(TraceError::unsupported(
                    "this statement is not supported by the eager evaluator",
                    s.span,
                ));
            }
        }
        Ok(Flow::Normal)
    }

    /// `del name`, `del lst[i]`, `del d[k]`.
    fn delete(&mut self, f: &mut Frame, t: &Expr) -> R<()> {
        match &t.kind {
            ExprKind::Name(n) => {
                if f.remove(n).is_none() {
                    return Err(TraceError::new(
                        ExcKind::NameError,
                        format!("name '{n}' is not defined"),
                        t.span,
                    ));
                }
            }
            ExprKind::Subscript { value, index } => match self.eval(f, value)? {
                PyVal::List(l) => {
                    let j = self.list_assign_slot(f, &l, index, t.span)?;
                    l.borrow_mut().remove(j);
                }
                PyVal::Dict(d) => {
                    let k = self.eval(f, index)?;
                    let pos = d.borrow().iter().position(|(k2, _)| py_eq(&k, k2));
                    match pos {
                        Some(p) => {
                            d.borrow_mut().remove(p);
                        }
                        None => return Err(TraceError::new(ExcKind::KeyError, k.repr(), t.span)),
                    }
                }
                other => {
                    return Err(type_err(
                        format!(
                            "'{}' object doesn't support item deletion",
                            other.type_name()
                        ),
                        t.span,
                    ));
                }
            },
            _ => return Err(TraceError::unsupported("`del` of this target", t.span)),
        }
        Ok(())
    }

    fn exec_try(&mut self, f: &mut Frame, t: &ast::Try) -> R<Flow> {
        let r = match self.exec_block(f, &t.body) {
            Ok(Flow::Normal) => self.exec_block(f, &t.orelse),
            Ok(flow) => Ok(flow),
            // The tracer's own failures and resource limits are not Python exceptions.
            Err(e) if matches!(e.kind.name(), "TraceError" | "TimeoutError") => Err(e),
            Err(e) => match t.handlers.iter().find(|h| handler_matches(h, &e.kind)) {
                None => Err(e),
                Some(h) => {
                    if self.recording() && e.from_tensor_op {
                        return Err(TraceError::unsupported(
                            format!(
                                "catching an exception raised by a tensor op ({e}) cannot be traced: whether it is raised depends on values the trace does not guard"
                            ),
                            h.span,
                        ));
                    }
                    if let Some(n) = &h.name {
                        f.insert(n.name.clone(), PyVal::str(&e.message));
                    }
                    self.handling.push(e);
                    let r = self.exec_block(f, &h.body);
                    self.handling.pop();
                    r
                }
            },
        };
        if !t.finalbody.is_empty() {
            match self.exec_block(f, &t.finalbody)? {
                Flow::Normal => {}
                flow => return Ok(flow),
            }
        }
        r
    }

    fn assign(&mut self, f: &mut Frame, target: &Expr, v: PyVal) -> R<()> {
        match &target.kind {
            ExprKind::Name(n) => {
                f.insert(n.clone(), v);
            }
            ExprKind::Tuple(ts) | ExprKind::List(ts)
                if ts.iter().any(|t| matches!(t.kind, ExprKind::Starred(_))) =>
            {
                // `a, *rest, z = items`
                let items = self.iterate(&v, target.span)?;
                let star = ts
                    .iter()
                    .position(|t| matches!(t.kind, ExprKind::Starred(_)))
                    .unwrap_or(0);
                let after = ts.len() - star - 1;
                if items.len() < ts.len() - 1 {
                    return Err(TraceError::new(
                        ExcKind::ValueError,
                        format!(
                            "not enough values to unpack (expected at least {}, got {})",
                            ts.len() - 1,
                            items.len()
                        ),
                        target.span,
                    ));
                }
                let mid_end = items.len() - after;
                for (t, item) in ts[..star].iter().zip(&items[..star]) {
                    self.assign(f, t, item.clone())?;
                }
                if let ExprKind::Starred(inner) = &ts[star].kind {
                    self.assign(f, inner, PyVal::list(items[star..mid_end].to_vec()))?;
                }
                for (t, item) in ts[star + 1..].iter().zip(&items[mid_end..]) {
                    self.assign(f, t, item.clone())?;
                }
            }
            ExprKind::Tuple(ts) | ExprKind::List(ts) => {
                let items = self.iterate(&v, target.span)?;
                if items.len() != ts.len() {
                    let msg = if items.len() > ts.len() {
                        format!("too many values to unpack (expected {})", ts.len())
                    } else {
                        format!(
                            "not enough values to unpack (expected {}, got {})",
                            ts.len(),
                            items.len()
                        )
                    };
                    return Err(TraceError::new(ExcKind::ValueError, msg, target.span));
                }
                for (t, item) in ts.iter().zip(items) {
                    self.assign(f, t, item)?;
                }
            }
            ExprKind::Subscript { value, index } => {
                let obj = self.eval(f, value)?;
                self.set_item(f, &obj, index, v, target.span)?;
            }
            ExprKind::Attribute { value, attr } => match self.eval(f, value)? {
                PyVal::Object(o) => {
                    o.dict.borrow_mut().insert(attr.name.clone(), v);
                }
                PyVal::Class(c) => {
                    c.attrs.borrow_mut().insert(attr.name.clone(), v);
                }
                other => {
                    return Err(TraceError::new(
                        ExcKind::AttributeError,
                        format!(
                            "'{}' object attribute '{}' is read-only",
                            other.type_name(),
                            attr.name
                        ),
                        target.span,
                    ));
                }
            },
            _ => {
                return Err(TraceError::unsupported(
                    "assignment to this target",
                    target.span,
                ));
            }
        }
        Ok(())
    }

    /// Runs `body` one Python call deeper (`RecursionError` at `span` past `MAX_DEPTH`).
    fn deeper<T>(&mut self, span: Span, body: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.depth -= 1;
            return Err(TraceError::new(
                ExcKind::RecursionError,
                "maximum recursion depth exceeded",
                span,
            ));
        }
        let r = body(self);
        self.depth -= 1;
        r
    }

    /// The element of list `l` that `index` names in `l[index] = v` or `del l[index]` (the
    /// index is evaluated first; out of range: `IndexError` at `span`).
    fn list_assign_slot(
        &mut self,
        f: &mut Frame,
        l: &RefCell<Vec<PyVal>>,
        index: &Expr,
        span: Span,
    ) -> R<usize> {
        let i = self.eval(f, index)?;
        let i = self.as_index_int(&i, index.span)?;
        let len = l.borrow().len();
        pyjit_value::ops::norm_index(i, len).ok_or_else(|| {
            TraceError::new(
                ExcKind::IndexError,
                "list assignment index out of range",
                span,
            )
        })
    }

    fn set_item(
        &mut self,
        f: &mut Frame,
        obj: &PyVal,
        index: &Expr,
        v: PyVal,
        span: Span,
    ) -> R<()> {
        match obj {
            PyVal::List(l) => {
                let j = self.list_assign_slot(f, l, index, span)?;
                l.borrow_mut()[j] = v;
                Ok(())
            }
            PyVal::Dict(d) => {
                let k = self.eval(f, index)?;
                dict_set(d, k, v);
                Ok(())
            }
            PyVal::Tensor(t) => {
                let (ix, hs) = self.tensor_indices(f, index)?;
                let target = Arg::concrete(RtValue::Tensor(t.t.clone()), vec![t.ir]);
                let idx = Arg::concrete(RtValue::Indices(ix), hs);
                let val = self.arg_of(&v, span)?;
                self.call_op_args("index_put_", vec![target, idx, val], vec![], span)?;
                Ok(())
            }
            other => Err(type_err(
                format!(
                    "'{}' object does not support item assignment",
                    other.type_name()
                ),
                span,
            )),
        }
    }

    fn aug_assign(
        &mut self,
        f: &mut Frame,
        target: &Expr,
        op: BinOp,
        value: &Expr,
        span: Span,
    ) -> R<()> {
        let cur = self.eval(f, target)?;
        let rhs = self.eval(f, value)?;
        if let PyVal::Tensor(t) = &cur
            && let Some(tg) = schema::operator_target(py_operator(op), OperatorForm::InPlace)
        {
            let lhs = Arg::concrete(RtValue::Tensor(t.t.clone()), vec![t.ir]);
            let r = self.arg_of(&rhs, span)?;
            self.call_op_args(tg.name, vec![lhs, r], vec![], span)?;
            // The target object is unchanged (written in place); rebinding it is a no-op for
            // names and an index_put_ of the same storage for subscripts, so skip it — except
            // for a NumPy element (`m[i, j] += v`), whose read was a copy: store it back.
            let numpy_element =
                self.numpy_mode && matches!(target.kind, ExprKind::Subscript { .. });
            if !numpy_element {
                return Ok(());
            }
            return self.assign(f, target, cur);
        }
        if let PyVal::List(l) = &cur
            && op == BinOp::Add
        {
            let more = self.iterate(&rhs, value.span)?;
            l.borrow_mut().extend(more);
            return Ok(());
        }
        let v = self.binop(op, cur, rhs, span)?;
        self.assign(f, target, v)
    }

    // ------------------------------------------------------------------ truthiness & guards

    pub fn truthy(&mut self, v: &PyVal, span: Span) -> R<bool> {
        if let PyVal::Sym(_) = v {
            let c = self.concrete(v.clone());
            return self.truthy(&c, span);
        }
        Ok(match v {
            PyVal::None => false,
            PyVal::Bool(b) => *b,
            PyVal::Int(i) => *i != 0,
            PyVal::Float(x) => *x != 0.0,
            PyVal::Str(s) => !s.is_empty(),
            PyVal::List(l) => !l.borrow().is_empty(),
            PyVal::Tuple(t) => !t.is_empty(),
            PyVal::Dict(d) => !d.borrow().is_empty(),
            PyVal::Tensor(t) => {
                if t.t.numel() != 1 {
                    return Err(TraceError::new(
                        ExcKind::RuntimeError,
                        "Boolean value of Tensor with more than one value is ambiguous",
                        span,
                    ));
                }
                match self.tensor_to_scalar(t, "Bool", GuardReason::Bool, span)? {
                    PyVal::Bool(b) => b,
                    _ => false,
                }
            }
            _ => true,
        })
    }

    /// `bool(t)`, `int(t)`, `float(t)` (`conv` is the op name `Bool`/`Int`/`Float`) or
    /// `t.item()` (`conv` = `item`): runs the conversion, records it, and guards its value.
    pub(crate) fn tensor_to_scalar(
        &mut self,
        t: &TVal,
        conv: &str,
        reason: GuardReason,
        span: Span,
    ) -> R<PyVal> {
        let s = t.t.item().map_err(|e| from_runtime(e, span))?;
        let (op, v, c) = match conv {
            "Bool" => ("Bool", PyVal::Bool(s.to_bool()), Const::Bool(s.to_bool())),
            "Int" => {
                if let Scalar::Float(x) = s
                    && !x.is_finite()
                {
                    return Err(TraceError::new(
                        if x.is_nan() {
                            ExcKind::ValueError
                        } else {
                            ExcKind::OverflowError
                        },
                        "cannot convert float NaN or infinity to integer",
                        span,
                    ));
                }
                ("Int", PyVal::Int(s.to_i64()), Const::Int(s.to_i64()))
            }
            "Float" => ("Float", PyVal::Float(s.to_f64()), Const::Float(s.to_f64())),
            _ => match s {
                Scalar::Bool(b) => ("Bool", PyVal::Bool(b), Const::Bool(b)),
                Scalar::Int(i) => ("Int", PyVal::Int(i), Const::Int(i)),
                Scalar::Float(x) => ("Float", PyVal::Float(x), Const::Float(x)),
            },
        };
        if let (Some(rec), Some(h)) = (self.rec.as_mut(), t.ir) {
            let id = schema::lookup(&format!("{op}.Tensor"))
                .ok_or_else(|| TraceError::unsupported("conversion op missing", span))?;
            let ty = match op {
                "Bool" => Type::Bool,
                "Int" => Type::Int,
                _ => Type::Float,
            };
            let r = rec.op1(OpKind::Tensor(id), &[h], ty, span);
            let what = self.file.slice(span).to_string();
            let rec = self.rec.as_mut().expect("checked above");
            rec.guard(r, c, reason, &what, span);
        }
        Ok(v)
    }

    /// Guards an `int` IR value computed from a tensor's shape.
    fn guard_int(&mut self, r: pyjit_ir::Value, v: i64, reason: GuardReason, span: Span) {
        self.guard_int_named(r, v, reason, self.file.slice(span).to_string(), span);
    }

    /// [`Evaluator::guard_int`] with the guarded expression spelled out (`x.shape[1]`).
    fn guard_int_named(
        &mut self,
        r: pyjit_ir::Value,
        v: i64,
        reason: GuardReason,
        what: String,
        span: Span,
    ) {
        let what = if reason == GuardReason::Iteration {
            format!("len({what})")
        } else {
            what
        };
        if let Some(rec) = self.rec.as_mut() {
            rec.guard(r, Const::Int(v), reason, &what, span);
        }
    }

    /// `x.size(d)` as a guarded Python int.
    pub fn size_of(&mut self, t: &TVal, dim: i64, reason: GuardReason, span: Span) -> R<i64> {
        let n = t.t.size(dim).map_err(|e| from_runtime(e, span))? as i64;
        if let (Some(h), true) = (t.ir, self.recording()) {
            let id = schema::lookup("size.int")
                .ok_or_else(|| TraceError::unsupported("size.int", span))?;
            let rec = self.rec.as_mut().expect("recording");
            let d = rec.builder(span).const_int(dim);
            let r = rec.op1(OpKind::Tensor(id), &[h, d], Type::Int, span);
            self.guard_int(r, n, reason, span);
        }
        Ok(n)
    }

    // ------------------------------------------------------------------ iteration

    pub fn iterate(&mut self, v: &PyVal, span: Span) -> R<Vec<PyVal>> {
        Ok(match v {
            PyVal::List(l) => l.borrow().clone(),
            PyVal::Tuple(t) => t.to_vec(),
            PyVal::Dict(d) => d.borrow().iter().map(|(k, _)| k.clone()).collect(),
            PyVal::Str(s) => s.chars().map(|c| PyVal::str(c.to_string())).collect(),
            PyVal::Range(..) => v.sequence().ok_or_else(|| {
                TraceError::new(ExcKind::MemoryError, "range too large to materialize", span)
            })?,
            PyVal::Tensor(t) => {
                if t.t.dim() == 0 {
                    return Err(type_err("iteration over a 0-d tensor", span));
                }
                let n = self.size_of(t, 0, GuardReason::Iteration, span)?;
                let mut out = Vec::with_capacity(n as usize);
                for i in 0..n {
                    let r = self.index_tensor(t, vec![TensorIndex::Int(i)], vec![], span)?;
                    // NumPy: the elements of a 1-D array are scalars (copies), rows views.
                    out.push(self.numpy_element(r, true, span)?);
                }
                out
            }
            other => {
                return Err(type_err(
                    format!("'{}' object is not iterable", other.type_name()),
                    span,
                ));
            }
        })
    }

    // ------------------------------------------------------------------ tensor ops

    /// A Python object as an op argument (tensors carry their IR values along).
    pub(crate) fn arg_of(&mut self, v: &PyVal, span: Span) -> R<Arg> {
        let mut handles = Vec::new();
        let (v, syms) = match v {
            PyVal::Sym(s) => (&s.value, vec![s.clone()]),
            other => (other, Vec::new()),
        };
        let rv = self.rt_value_of(v, &mut handles, span)?;
        Ok(Arg {
            v: rv,
            handles,
            syms,
        })
    }

    fn rt_value_of(
        &mut self,
        v: &PyVal,
        hs: &mut Vec<Option<pyjit_ir::Value>>,
        span: Span,
    ) -> R<RtValue> {
        if let Some(rv) = scalar_to_runtime(v) {
            return Ok(rv);
        }
        Ok(match v {
            PyVal::Tensor(t) => {
                hs.push(t.ir);
                RtValue::Tensor(t.t.clone())
            }
            PyVal::Sym(_) => {
                let c = self.concrete(v.clone());
                return self.rt_value_of(&c, hs, span);
            }
            PyVal::List(_) | PyVal::Tuple(_) => {
                let items = v.sequence().unwrap_or_default();
                let mut out = Vec::with_capacity(items.len());
                for i in &items {
                    out.push(self.rt_value_of(i, hs, span)?);
                }
                RtValue::List(out)
            }
            other => {
                return Err(type_err(
                    format!(
                        "a '{}' cannot be passed to a tensor operation",
                        other.type_name()
                    ),
                    span,
                ));
            }
        })
    }

    /// Calls op `name` (overloads resolved as TorchScript does) on Python objects.
    pub(crate) fn call_op(
        &mut self,
        name: &str,
        mut args: Vec<PyVal>,
        kwargs: Vec<(String, PyVal)>,
        span: Span,
    ) -> R<PyVal> {
        // Defaults of PyTorch's Python wrappers (`torch.norm(x, dim=1)` is the 2-norm).
        let mut kwargs = kwargs;
        let keys: Vec<&str> = kwargs.iter().map(|(k, _)| k.as_str()).collect();
        let add = pyjit_runtime::numpy::python_level_defaults(name, args.len(), &keys);
        crate::builtins::push_added(&mut kwargs, add);
        // `device=` arguments: the CPU is the only device.
        for (n, x) in &kwargs {
            if n == "device" {
                check_device(x, span)?;
            }
        }
        kwargs.retain(|(n, _)| n != "device");
        // `x.to(device)`, `x.to(device, dtype)`: the device part is the identity.
        if name == "to" && args.get(1).is_some_and(is_device_value) {
            check_device(&args[1], span)?;
            args.remove(1);
            if args.len() == 1 && kwargs.is_empty() {
                return Ok(args.remove(0));
            }
        }
        if name == "to" && args.len() == 1 && kwargs.is_empty() {
            return Ok(args.remove(0));
        }
        // `torch.meshgrid(a, b)`, `torch.einsum("ij,jk", a, b)`: the tensors are one list.
        let first_tensor = usize::from(name == "einsum");
        if matches!(name, "meshgrid" | "einsum")
            && args.len() > first_tensor
            && args[first_tensor..]
                .iter()
                .all(|x| matches!(x, PyVal::Tensor(_)))
        {
            let ts: Vec<PyVal> = args.drain(first_tensor..).collect();
            args.push(PyVal::List(Rc::new(std::cell::RefCell::new(ts))));
        }
        let mut a = Vec::with_capacity(args.len());
        for x in &args {
            a.push(self.arg_of(x, span)?);
        }
        let mut k = Vec::with_capacity(kwargs.len());
        for (n, x) in &kwargs {
            k.push((n.clone(), self.arg_of(x, span)?));
        }
        self.call_op_args(name, a, k, span)
    }

    pub(crate) fn call_op_args(
        &mut self,
        name: &str,
        args: Vec<Arg>,
        kwargs: Vec<(String, Arg)>,
        span: Span,
    ) -> R<PyVal> {
        let (id, bound) = schema::resolve(name, args, kwargs)
            .map_err(|e| from_runtime(pyjit_runtime::RuntimeError::Bind(e), span))?;
        let rt_args: Vec<RtValue> = bound.iter().map(|a| a.v.clone()).collect();
        let results = pyjit_runtime::call(id, &rt_args).map_err(|e| from_runtime(e, span))?;
        self.wrap_results(id, &bound, results.into_vec(), span)
    }

    fn wrap_results(
        &mut self,
        id: OpId,
        bound: &[Arg],
        results: Vec<RtValue>,
        span: Span,
    ) -> R<PyVal> {
        let s = schema::schema(id);
        // `item` returns a Python number: record the typed conversion instead.
        if s.name == "item"
            && let Some(RtValue::Tensor(t)) = bound.first().map(|a| &a.v)
        {
            let tv = TVal {
                t: t.clone(),
                ir: bound[0].handles.first().copied().flatten(),
            };
            return self.tensor_to_scalar(&tv, "item", GuardReason::Number, span);
        }
        let irs = match self.rec.as_mut() {
            Some(rec) => Some(rec.tensor_op(id, bound, span)?),
            None => None,
        };
        let mut out = Vec::with_capacity(results.len());
        for (i, r) in results.into_iter().enumerate() {
            let h = irs.as_ref().and_then(|v| v.get(i).copied());
            out.push(self.wrap_one(r, h, &s.name, span)?);
        }
        Ok(if out.len() == 1 {
            out.pop().unwrap_or(PyVal::None)
        } else {
            PyVal::tuple(out)
        })
    }

    fn wrap_one(
        &mut self,
        r: RtValue,
        h: Option<pyjit_ir::Value>,
        op: &str,
        span: Span,
    ) -> R<PyVal> {
        Ok(match r {
            RtValue::Tensor(t) => PyVal::tensor(t, h),
            RtValue::TensorList(ts) => {
                let mut items = Vec::with_capacity(ts.len());
                for (i, t) in ts.into_iter().enumerate() {
                    let eh = match (h, self.rec.as_mut()) {
                        (Some(l), Some(rec)) => {
                            let mut b = rec.builder(span);
                            let ci = b.const_int(i as i64);
                            Some(b.list_get(l, ci))
                        }
                        _ => None,
                    };
                    items.push(PyVal::tensor(t, eh));
                }
                PyVal::list(items)
            }
            RtValue::Int(n) => {
                if let Some(h) = h {
                    let reason = if matches!(op, "size" | "dim" | "numel") {
                        GuardReason::Shape
                    } else {
                        GuardReason::Int
                    };
                    self.guard_int(h, n, reason, span);
                }
                PyVal::Int(n)
            }
            RtValue::IntList(ns) => {
                if let Some(h) = h {
                    for (i, n) in ns.iter().enumerate() {
                        if let Some(rec) = self.rec.as_mut() {
                            let mut b = rec.builder(span);
                            let ci = b.const_int(i as i64);
                            let e = b.list_get(h, ci);
                            let what = format!("{}[{i}]", self.file.slice(span));
                            self.guard_int_named(e, *n, GuardReason::Shape, what, span);
                        }
                    }
                }
                PyVal::list(ns.into_iter().map(PyVal::Int).collect())
            }
            RtValue::Float(x) => {
                if let (Some(h), Some(rec)) = (h, self.rec.as_mut()) {
                    let what = self.file.slice(span).to_string();
                    rec.guard(h, Const::Float(x), GuardReason::Float, &what, span);
                }
                PyVal::Float(x)
            }
            RtValue::Bool(b) => {
                if let (Some(h), Some(rec)) = (h, self.rec.as_mut()) {
                    let what = self.file.slice(span).to_string();
                    rec.guard(h, Const::Bool(b), GuardReason::Bool, &what, span);
                }
                PyVal::Bool(b)
            }
            RtValue::None => PyVal::None,
            RtValue::Str(s) => PyVal::str(s),
            RtValue::DType(d) => PyVal::DType(d),
            RtValue::FloatList(v) => PyVal::list(v.into_iter().map(PyVal::Float).collect()),
            RtValue::BoolList(v) => PyVal::list(v.into_iter().map(PyVal::Bool).collect()),
            RtValue::List(_) | RtValue::Indices(_) => {
                return Err(TraceError::unsupported("unexpected op result", span));
            }
        })
    }

    pub(crate) fn index_tensor(
        &mut self,
        t: &TVal,
        ix: Vec<TensorIndex>,
        hs: Vec<Option<pyjit_ir::Value>>,
        span: Span,
    ) -> R<PyVal> {
        let target = Arg::concrete(RtValue::Tensor(t.t.clone()), vec![t.ir]);
        let idx = Arg::concrete(RtValue::Indices(ix), hs);
        self.call_op_args("index", vec![target, idx], vec![], span)
    }

    /// In a NumPy-style module, `r`, the result of a tensor subscript made of ints only
    /// (`ints_only`), through `np_element`: NumPy gives a scalar (a copy, so a later write to the
    /// array does not show in it) when the ints select one element, and a view when they are
    /// fewer than the dims — as the script frontend's `np_element`. Otherwise `r` itself
    /// (PyTorch: always a view).
    fn numpy_element(&mut self, r: PyVal, ints_only: bool, span: Span) -> R<PyVal> {
        if !(ints_only && self.numpy_mode) {
            return Ok(r);
        }
        let PyVal::Tensor(t) = &r else {
            return Ok(r);
        };
        let arg = Arg::concrete(RtValue::Tensor(t.t.clone()), vec![t.ir]);
        self.call_op_args("np_element", vec![arg], vec![], span)
    }

    /// The components of a tensor subscript and the IR values of index tensors among them.
    fn tensor_indices(
        &mut self,
        f: &mut Frame,
        index: &Expr,
    ) -> R<(Vec<TensorIndex>, Vec<Option<pyjit_ir::Value>>)> {
        let parts: Vec<&Expr> = match &index.kind {
            ExprKind::Tuple(items) => items.iter().collect(),
            _ => vec![index],
        };
        let mut ix = Vec::new();
        let mut hs = Vec::new();
        for p in parts {
            match &p.kind {
                ExprKind::Slice { lower, upper, step } => {
                    let mut opt = |e: &Option<Box<Expr>>, this: &mut Self| -> R<Option<i64>> {
                        match e {
                            None => Ok(None),
                            Some(e) => {
                                let v = this.eval(f, e)?;
                                match v {
                                    PyVal::None => Ok(None),
                                    v => this.as_index_int(&v, e.span).map(Some),
                                }
                            }
                        }
                    };
                    let start = opt(lower, self)?;
                    let stop = opt(upper, self)?;
                    let step = opt(step, self)?.unwrap_or(1);
                    if step == 0 {
                        return Err(TraceError::new(
                            ExcKind::ValueError,
                            "slice step cannot be zero",
                            p.span,
                        ));
                    }
                    if step < 0 {
                        return Err(TraceError::new(
                            ExcKind::ValueError,
                            "step must be greater than zero",
                            p.span,
                        ));
                    }
                    ix.push(TensorIndex::Slice { start, stop, step });
                }
                ExprKind::Ellipsis => ix.push(TensorIndex::Ellipsis),
                _ => {
                    let v = self.eval(f, p)?;
                    match v {
                        PyVal::None => ix.push(TensorIndex::None),
                        PyVal::Ellipsis => ix.push(TensorIndex::Ellipsis),
                        PyVal::Int(i) => ix.push(TensorIndex::Int(i)),
                        PyVal::Bool(b) => ix.push(TensorIndex::Int(b as i64)),
                        PyVal::Tensor(t) => {
                            hs.push(t.ir);
                            ix.push(TensorIndex::Tensor(t.t.clone()));
                        }
                        l @ (PyVal::List(_) | PyVal::Tuple(_)) => {
                            let t = self.call_op("tensor", vec![l], vec![], p.span)?;
                            if let PyVal::Tensor(t) = t {
                                hs.push(t.ir);
                                ix.push(TensorIndex::Tensor(t.t.clone()));
                            }
                        }
                        other => {
                            return Err(TraceError::new(
                                ExcKind::IndexError,
                                format!("tensors cannot be indexed with a '{}'", other.type_name()),
                                p.span,
                            ));
                        }
                    }
                }
            }
        }
        Ok((ix, hs))
    }

    /// An int usable as an index (ints, bools, one-element integer tensors).
    fn as_index_int(&mut self, v: &PyVal, span: Span) -> R<i64> {
        match v {
            PyVal::Int(i) => Ok(*i),
            PyVal::Bool(b) => Ok(*b as i64),
            PyVal::Tensor(t) if !t.t.dtype().is_float() && t.t.numel() == 1 => {
                match self.tensor_to_scalar(t, "Int", GuardReason::Int, span)? {
                    PyVal::Int(i) => Ok(i),
                    _ => Err(type_err("bad index", span)),
                }
            }
            // PyTorch's `Tensor.__index__`.
            PyVal::Tensor(_) => Err(type_err(
                "only integer tensors of a single element can be converted to an index",
                span,
            )),
            other => Err(type_err(
                format!(
                    "indices must be integers or slices, not {}",
                    other.type_name()
                ),
                span,
            )),
        }
    }

    // ------------------------------------------------------------------ expressions

    /// Evaluates an expression to a Python value (symbolic scalars become guarded constants).
    pub fn eval(&mut self, f: &mut Frame, e: &Expr) -> R<PyVal> {
        let v = grow(|| self.eval_inner(f, e))?;
        Ok(self.concrete(v))
    }

    /// Evaluates an operand that may stay a symbolic scalar (operators, tensor-op arguments).
    fn eval_sym(&mut self, f: &mut Frame, e: &Expr) -> R<PyVal> {
        grow(|| self.eval_inner(f, e))
    }

    /// The concrete value of a symbolic scalar, guarded; other values unchanged.
    pub fn concrete(&mut self, v: PyVal) -> PyVal {
        match v {
            PyVal::Sym(s) => {
                if let Some(rec) = self.rec.as_mut() {
                    rec.guard_sym(&s);
                }
                s.value.clone()
            }
            other => other,
        }
    }

    fn eval_inner(&mut self, f: &mut Frame, e: &Expr) -> R<PyVal> {
        let span = e.span;
        Ok(match &e.kind {
            ExprKind::Name(n) => self.lookup(f, n, span)?,
            ExprKind::Int(i) => PyVal::Int(i64::try_from(*i).map_err(|_| {
                TraceError::new(
                    ExcKind::OverflowError,
                    "int literal too large for a 64-bit int",
                    span,
                )
            })?),
            ExprKind::Float(x) => PyVal::Float(*x),
            ExprKind::Str(s) => PyVal::str(s),
            ExprKind::Bool(b) => PyVal::Bool(*b),
            ExprKind::None => PyVal::None,
            ExprKind::Ellipsis => PyVal::Ellipsis,
            ExprKind::FString(parts) => PyVal::str(self.fstring(f, parts)?),
            ExprKind::Tuple(items) => PyVal::tuple(self.eval_items(f, items)?),
            ExprKind::List(items) => PyVal::list(self.eval_items(f, items)?),
            ExprKind::Dict(items) => {
                let d = Rc::new(RefCell::new(Vec::new()));
                for (k, v) in items {
                    let v = self.eval(f, v)?;
                    match k {
                        Some(k) => {
                            let k = self.eval(f, k)?;
                            dict_set(&d, k, v);
                        }
                        None => match v {
                            PyVal::Dict(other) => {
                                for (k, v) in other.borrow().iter() {
                                    dict_set(&d, k.clone(), v.clone());
                                }
                            }
                            _ => return Err(type_err("'**' needs a dict", span)),
                        },
                    }
                }
                PyVal::Dict(d)
            }
            ExprKind::BinOp { left, op, right } => {
                let a = self.eval_sym(f, left)?;
                let b = self.eval_sym(f, right)?;
                self.binop(*op, a, b, span)?
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.eval(f, operand)?;
                self.unary(*op, v, span)?
            }
            ExprKind::BoolOp { op, values } => {
                let mut last = PyVal::None;
                for (i, v) in values.iter().enumerate() {
                    last = self.eval(f, v)?;
                    if i + 1 == values.len() {
                        break;
                    }
                    let t = self.truthy(&last, v.span)?;
                    match op {
                        ast::BoolOp::And if !t => return Ok(last),
                        ast::BoolOp::Or if t => return Ok(last),
                        _ => {}
                    }
                }
                last
            }
            ExprKind::Compare { left, ops } => {
                let mut a = self.eval_sym(f, left)?;
                let mut result = PyVal::Bool(true);
                for (i, (op, rhs)) in ops.iter().enumerate() {
                    let b = self.eval_sym(f, rhs)?;
                    let r = self.compare(*op, &a, &b, span)?;
                    if i + 1 == ops.len() {
                        result = r;
                    } else if !self.truthy(&r, span)? {
                        return Ok(r);
                    }
                    a = b;
                }
                result
            }
            ExprKind::IfExp { test, body, orelse } => {
                let c = self.eval(f, test)?;
                if self.truthy(&c, test.span)? {
                    self.eval(f, body)?
                } else {
                    self.eval(f, orelse)?
                }
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => self.eval_call(f, func, args, keywords, span)?,
            ExprKind::Attribute { value, attr } => {
                let v = self.eval(f, value)?;
                self.attribute(v, &attr.name, span)?
            }
            ExprKind::Subscript { value, index } => {
                let v = self.eval(f, value)?;
                self.subscript(f, v, index, span)?
            }
            ExprKind::Lambda { params, body } => {
                let defaults = self.closure_defaults(f, params)?;
                PyVal::Func(Rc::new(Callable::Closure {
                    name: "<lambda>".into(),
                    params: Rc::new((**params).clone()),
                    body: ClosureBody::Expr(Rc::new((**body).clone())),
                    env: f.clone(),
                    defaults,
                }))
            }
            ExprKind::ListComp { elt, generators } | ExprKind::GeneratorExp { elt, generators } => {
                let mut out = Vec::new();
                let mut scope = f.clone();
                self.comprehension(&mut scope, generators, 0, &mut |this, sc| {
                    out.push(this.eval(sc, elt)?);
                    Ok(())
                })?;
                PyVal::list(out)
            }
            ExprKind::DictComp {
                key,
                value,
                generators,
            } => {
                let d = Rc::new(RefCell::new(Vec::new()));
                let mut scope = f.clone();
                self.comprehension(&mut scope, generators, 0, &mut |this, sc| {
                    let k = this.eval(sc, key)?;
                    let v = this.eval(sc, value)?;
                    dict_set(&d, k, v);
                    Ok(())
                })?;
                PyVal::Dict(d)
            }
            ExprKind::NamedExpr { target, value } => {
                let v = self.eval(f, value)?;
                self.assign(f, target, v.clone())?;
                v
            }
            _ => {
                return Err(TraceError::unsupported(
                    "this expression is not supported by the eager evaluator",
                    span,
                ));
            }
        })
    }

    /// A closure's parameter defaults, evaluated where it is defined.
    fn closure_defaults(
        &mut self,
        f: &mut Frame,
        params: &ast::Parameters,
    ) -> R<HashMap<String, PyVal>> {
        let mut d = HashMap::new();
        for p in params
            .posonly
            .iter()
            .chain(&params.args)
            .chain(&params.kwonly)
        {
            if let Some(e) = &p.default {
                let v = self.eval(f, e)?;
                d.insert(p.name.name.clone(), v);
            }
        }
        Ok(d)
    }

    fn comprehension(
        &mut self,
        scope: &mut Frame,
        gens: &[ast::Comprehension],
        i: usize,
        body: &mut dyn FnMut(&mut Self, &mut Frame) -> R<()>,
    ) -> R<()> {
        let Some(g) = gens.get(i) else {
            return body(self, scope);
        };
        let it = self.eval(scope, &g.iter)?;
        for item in self.iterate(&it, g.iter.span)? {
            self.assign(scope, &g.target, item)?;
            let mut keep = true;
            for c in &g.ifs {
                let v = self.eval(scope, c)?;
                if !self.truthy(&v, c.span)? {
                    keep = false;
                    break;
                }
            }
            if keep {
                self.comprehension(scope, gens, i + 1, body)?;
            }
        }
        Ok(())
    }

    fn eval_items(&mut self, f: &mut Frame, items: &[Expr]) -> R<Vec<PyVal>> {
        let mut out = Vec::with_capacity(items.len());
        for it in items {
            if let ExprKind::Starred(inner) = &it.kind {
                let v = self.eval(f, inner)?;
                out.extend(self.iterate(&v, it.span)?);
            } else {
                out.push(self.eval(f, it)?);
            }
        }
        Ok(out)
    }

    /// Python's `str(v)` as the module's dialect shows it (NumPy's array text in a NumPy-style
    /// module, as the op `str.numpy` of script mode).
    pub(crate) fn str_of(&self, v: &PyVal) -> String {
        match self.numpy_mode {
            true => v.to_str_numpy(),
            false => v.to_str(),
        }
    }

    fn fstring(&mut self, f: &mut Frame, parts: &[ast::FStringPart]) -> R<String> {
        let mut s = String::new();
        for p in parts {
            match p {
                ast::FStringPart::Literal(l) => s.push_str(l),
                ast::FStringPart::Expr(field) => {
                    let expr = &field.expr;
                    let v = self.eval(f, expr)?;
                    let spec = self.fstring(f, &field.format_spec)?;
                    if field.debug {
                        s.push_str(self.file.slice(expr.span));
                        s.push('=');
                    }
                    let converted = match field.conversion {
                        Some('r') => Some(v.repr()),
                        Some('a') => Some(pyjit_value::format::ascii_escape(&v.repr())),
                        Some(_) => Some(v.to_str()),
                        None => None,
                    };
                    let text = match converted {
                        // `{x!r:>8}`: the converted text, formatted as a string.
                        Some(t) if spec.is_empty() => t,
                        Some(t) => {
                            pyjit_value::format::py_format(&pyjit_value::Value::str(t), &spec)
                                .map_err(|m| TraceError::new(ExcKind::ValueError, m, expr.span))?
                        }
                        None if spec.is_empty() => {
                            if field.debug {
                                v.repr()
                            } else {
                                self.str_of(&v)
                            }
                        }
                        None => {
                            let iv = crate::value::to_interp(&v)
                                .map_err(|t| type_err(format!("cannot format a {t}"), expr.span))?;
                            pyjit_value::format::py_format(&iv, &spec)
                                .map_err(|m| TraceError::new(ExcKind::ValueError, m, expr.span))?
                        }
                    };
                    s.push_str(&text);
                }
            }
        }
        Ok(s)
    }

    fn lookup(&mut self, f: &Frame, n: &str, span: Span) -> R<PyVal> {
        if let Some(v) = f.get(n) {
            return Ok(v.clone());
        }
        if let Some(v) = self.globals.get(n) {
            return Ok(v.clone());
        }
        Ok(match n {
            "int" | "float" | "bool" | "str" | "list" | "tuple" | "dict" | "object" => {
                PyVal::Type(match n {
                    "int" => "int",
                    "float" => "float",
                    "bool" => "bool",
                    "str" => "str",
                    "list" => "list",
                    "tuple" => "tuple",
                    "dict" => "dict",
                    _ => "object",
                })
            }
            "__name__" => PyVal::str("__pyjit__"),
            _ if BUILTINS.contains(&n) => PyVal::Func(Rc::new(Callable::Builtin(n.to_string()))),
            _ => {
                return Err(TraceError::new(
                    ExcKind::NameError,
                    format!("name '{n}' is not defined"),
                    span,
                ));
            }
        })
    }

    fn attribute(&mut self, v: PyVal, attr: &str, span: Span) -> R<PyVal> {
        match &v {
            PyVal::Object(o) => {
                if let Some(x) = o.dict.borrow().get(attr) {
                    return Ok(x.clone());
                }
                if let Some(def) = o.class.methods.get(attr) {
                    return Ok(PyVal::Func(Rc::new(Callable::BoundMethod {
                        def: def.clone(),
                        recv: v.clone(),
                    })));
                }
                if let Some(x) = o.class.attrs.borrow().get(attr) {
                    return Ok(x.clone());
                }
                Err(TraceError::no_attribute(&o.class.name, attr, span))
            }
            PyVal::Class(c) => c.attrs.borrow().get(attr).cloned().ok_or_else(|| {
                TraceError::new(
                    ExcKind::AttributeError,
                    format!("type object '{}' has no attribute '{attr}'", c.name),
                    span,
                )
            }),
            PyVal::Module(m) => Ok(resolve_dotted(&format!("{m}.{attr}"))),
            PyVal::Tensor(t) => match attr {
                "shape" => self.call_op("size", vec![v.clone()], vec![], span),
                "dtype" => Ok(PyVal::DType(t.t.dtype())),
                "ndim" => self.call_op("dim", vec![v.clone()], vec![], span),
                "T" => self.call_op("t", vec![v.clone()], vec![], span),
                "device" => Ok(PyVal::Device),
                "is_cuda" => Ok(PyVal::Bool(false)),
                _ => Ok(PyVal::Func(Rc::new(Callable::Method {
                    recv: v.clone(),
                    name: attr.to_string(),
                }))),
            },
            PyVal::DType(d) if attr == "is_floating_point" => Ok(PyVal::Bool(d.is_float())),
            PyVal::Device if attr == "type" => Ok(PyVal::Str(Rc::from("cpu"))),
            // The named-tuple results of `max(x, dim)`, `min`, `sort`, `topk`: (values, indices).
            PyVal::Tuple(items)
                if matches!(attr, "values" | "indices")
                    && items.len() == 2
                    && items.iter().all(|x| matches!(x, PyVal::Tensor(_))) =>
            {
                Ok(items[usize::from(attr == "indices")].clone())
            }
            _ => Ok(PyVal::Func(Rc::new(Callable::Method {
                recv: v.clone(),
                name: attr.to_string(),
            }))),
        }
    }

    fn subscript(&mut self, f: &mut Frame, v: PyVal, index: &Expr, span: Span) -> R<PyVal> {
        match &v {
            PyVal::Tensor(t) => {
                let (ix, hs) = self.tensor_indices(f, index)?;
                let ints_only = ix.iter().all(|i| matches!(i, TensorIndex::Int(_)));
                let r = self.index_tensor(t, ix, hs, span)?;
                self.numpy_element(r, ints_only, span)
            }
            PyVal::List(_) | PyVal::Tuple(_) | PyVal::Str(_) | PyVal::Range(..) => {
                let items: Vec<PyVal> = match &v {
                    PyVal::Str(s) => s.chars().map(|c| PyVal::str(c.to_string())).collect(),
                    _ => v.sequence().unwrap_or_default(),
                };
                if let ExprKind::Slice { lower, upper, step } = &index.kind {
                    let mut ev = |e: &Option<Box<Expr>>, this: &mut Self| -> R<Option<i64>> {
                        match e {
                            None => Ok(None),
                            Some(e) => {
                                let x = this.eval(f, e)?;
                                if matches!(x, PyVal::None) {
                                    Ok(None)
                                } else {
                                    this.as_index_int(&x, e.span).map(Some)
                                }
                            }
                        }
                    };
                    let (a, b, c) = (ev(lower, self)?, ev(upper, self)?, ev(step, self)?);
                    let picked = slice_items(&items, a, b, c.unwrap_or(1), span)?;
                    return Ok(match v {
                        PyVal::List(_) => PyVal::list(picked),
                        PyVal::Tuple(_) => PyVal::tuple(picked),
                        _ => PyVal::str(picked.iter().map(PyVal::to_str).collect::<String>()),
                    });
                }
                let i = self.eval(f, index)?;
                let i = self.as_index_int(&i, index.span)?;
                let Some(j) = pyjit_value::ops::norm_index(i, items.len()) else {
                    let what = match v {
                        PyVal::List(_) => "list",
                        PyVal::Tuple(_) => "tuple",
                        _ => "string",
                    };
                    return Err(TraceError::new(
                        ExcKind::IndexError,
                        format!("{what} index out of range"),
                        span,
                    ));
                };
                Ok(items[j].clone())
            }
            PyVal::Dict(d) => {
                let k = self.eval(f, index)?;
                dict_get(d, &k).ok_or_else(|| TraceError::new(ExcKind::KeyError, k.repr(), span))
            }
            // `List[int]`, `Tuple[int, int]`, `Optional[Tensor]` in annotations evaluated as values.
            PyVal::Type(_) => Ok(v.clone()),
            other => Err(type_err(
                format!("'{}' object is not subscriptable", other.type_name()),
                span,
            )),
        }
    }

    // ------------------------------------------------------------------ operators

    pub fn binop(&mut self, op: BinOp, a: PyVal, b: PyVal, span: Span) -> R<PyVal> {
        use PyVal::*;
        let (a, b) = if matches!(a, Tensor(_)) || matches!(b, Tensor(_)) {
            (a, b)
        } else {
            (self.concrete(a), self.concrete(b))
        };
        if matches!(a, Tensor(_)) || matches!(b, Tensor(_)) {
            let pop = py_operator(op);
            let (name, args) = if let Tensor(_) = a {
                let t = schema::operator_target(pop, OperatorForm::Forward)
                    .ok_or_else(|| type_err("unsupported operand", span))?;
                (t.name, if t.swap { vec![b, a] } else { vec![a, b] })
            } else {
                let t = schema::operator_target(pop, OperatorForm::Reflected).ok_or_else(|| {
                    type_err(
                        format!(
                            "unsupported operand type(s) for {}: '{}' and 'Tensor'",
                            op.symbol(),
                            a.type_name()
                        ),
                        span,
                    )
                })?;
                (t.name, if t.swap { vec![b, a] } else { vec![a, b] })
            };
            return self.call_op(name, args, vec![], span);
        }
        let unsupported = |a: &PyVal, b: &PyVal| {
            type_err(
                format!(
                    "unsupported operand type(s) for {}: '{}' and '{}'",
                    op.symbol(),
                    a.type_name(),
                    b.type_name()
                ),
                span,
            )
        };
        // Sequences and strings.
        match (&a, &b, op) {
            (Str(x), Str(y), BinOp::Add) => return Ok(PyVal::str(format!("{x}{y}"))),
            (Str(x), Int(n), BinOp::Mul) | (Int(n), Str(x), BinOp::Mul) => {
                if (x.len() as u64).saturating_mul((*n).max(0) as u64)
                    > crate::value::MAX_MATERIALIZED
                {
                    return Err(TraceError::new(ExcKind::MemoryError, "", span));
                }
                return Ok(PyVal::str(x.repeat((*n).max(0) as usize)));
            }
            (List(x), List(y), BinOp::Add) => {
                let mut v = x.borrow().clone();
                v.extend(y.borrow().iter().cloned());
                return Ok(PyVal::list(v));
            }
            (Tuple(x), Tuple(y), BinOp::Add) => {
                let mut v = x.to_vec();
                v.extend(y.iter().cloned());
                return Ok(PyVal::tuple(v));
            }
            // `x.shape[:-1] + (n,)`: a shape is a `List[int]` here (torch.Size in Python, a
            // tuple), and TorchScript accepts `List[int] + Tuple[int, ...]`.
            (List(x), Tuple(y), BinOp::Add) => {
                let mut v = x.borrow().clone();
                v.extend(y.iter().cloned());
                return Ok(PyVal::list(v));
            }
            (List(_) | Tuple(_), Int(n), BinOp::Mul) | (Int(n), List(_) | Tuple(_), BinOp::Mul) => {
                let seq = if let Int(_) = a { &b } else { &a };
                let items = seq.sequence().unwrap_or_default();
                if (items.len() as u64).saturating_mul((*n).max(0) as u64)
                    > crate::value::MAX_MATERIALIZED
                {
                    return Err(TraceError::new(ExcKind::MemoryError, "", span));
                }
                let mut v = Vec::new();
                for _ in 0..(*n).max(0) {
                    v.extend(items.iter().cloned());
                }
                return Ok(if let List(_) = seq {
                    PyVal::list(v)
                } else {
                    PyVal::tuple(v)
                });
            }
            _ => {}
        }
        let num = |v: &PyVal| -> Option<Num> {
            match v {
                Bool(b) => Some(Num::I(*b as i64)),
                Int(i) => Some(Num::I(*i)),
                Float(x) => Some(Num::F(*x)),
                _ => Option::None,
            }
        };
        let (Some(x), Some(y)) = (num(&a), num(&b)) else {
            return Err(unsupported(&a, &b));
        };
        let both_bool = matches!((&a, &b), (Bool(_), Bool(_)));
        let py = |e: pyjit_value::PyErr| TraceError::from_py(e, span);
        Ok(match (x, y) {
            (Num::I(x), Num::I(y)) => match op {
                BinOp::BitAnd if both_bool => Bool(x & y != 0),
                BinOp::BitOr if both_bool => Bool((x | y) != 0),
                BinOp::BitXor if both_bool => Bool((x ^ y) != 0),
                // `int / int` is correctly rounded true division.
                BinOp::Div => Float(scalar::int_truediv(x, y).map_err(py)?),
                // A negative exponent makes CPython's `int ** int` a float power.
                BinOp::Pow if y < 0 => Float(scalar::float_pow(x as f64, y as f64).map_err(py)?),
                _ => match pyjit_value::ops::int_operator(op) {
                    Some(o) => Int(scalar::int_bin(o, x, y).map_err(py)?),
                    Option::None => return Err(unsupported(&a, &b)),
                },
            },
            (x, y) => match pyjit_value::ops::float_operator(op) {
                Some(o) => Float(scalar::float_bin(o, x.f(), y.f()).map_err(py)?),
                Option::None => return Err(unsupported(&a, &b)),
            },
        })
    }

    fn unary(&mut self, op: ast::UnaryOp, v: PyVal, span: Span) -> R<PyVal> {
        use ast::UnaryOp as U;
        let v = self.concrete(v);
        if op == U::Not {
            return Ok(PyVal::Bool(!self.truthy(&v, span)?));
        }
        if let PyVal::Tensor(_) = v {
            let pop = match op {
                U::Neg => PyOperator::Neg,
                U::Pos => PyOperator::Pos,
                _ => PyOperator::Invert,
            };
            let t = schema::operator_target(pop, OperatorForm::Forward)
                .ok_or_else(|| type_err("bad unary operand", span))?;
            return self.call_op(t.name, vec![v], vec![], span);
        }
        Ok(match (op, &v) {
            (U::Neg, PyVal::Int(i)) => PyVal::Int(i.wrapping_neg()),
            (U::Neg, PyVal::Bool(b)) => PyVal::Int(-(*b as i64)),
            (U::Neg, PyVal::Float(x)) => PyVal::Float(-x),
            (U::Pos, PyVal::Int(_) | PyVal::Float(_)) => v.clone(),
            (U::Pos, PyVal::Bool(b)) => PyVal::Int(*b as i64),
            (U::Invert, PyVal::Int(i)) => PyVal::Int(!i),
            (U::Invert, PyVal::Bool(b)) => PyVal::Int(!(*b as i64)),
            _ => {
                return Err(type_err(
                    format!(
                        "bad operand type for unary {}: '{}'",
                        op.symbol(),
                        v.type_name()
                    ),
                    span,
                ));
            }
        })
    }

    pub fn compare(&mut self, op: CmpOp, a: &PyVal, b: &PyVal, span: Span) -> R<PyVal> {
        use PyVal::*;
        let tensor_cmp = !matches!(op, CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn)
            && (matches!(a, Tensor(_)) || matches!(b, Tensor(_)));
        let (a, b) = if tensor_cmp {
            (a.clone(), b.clone())
        } else {
            (self.concrete(a.clone()), self.concrete(b.clone()))
        };
        let (a, b) = (&a, &b);
        match op {
            CmpOp::Is | CmpOp::IsNot => {
                let same = match (a, b) {
                    (None, None) => true,
                    (None, _) | (_, None) => false,
                    (Bool(x), Bool(y)) => x == y,
                    (Tensor(x), Tensor(y)) => {
                        x.t.shares_storage(&y.t)
                            && x.t.storage_offset() == y.t.storage_offset()
                            && x.t.shape() == y.t.shape()
                            && x.t.strides() == y.t.strides()
                    }
                    (List(x), List(y)) => Rc::ptr_eq(x, y),
                    (Dict(x), Dict(y)) => Rc::ptr_eq(x, y),
                    (Type(x), Type(y)) => x == y,
                    _ => py_eq(a, b),
                };
                return Ok(Bool(same == (op == CmpOp::Is)));
            }
            CmpOp::In | CmpOp::NotIn => {
                let found = match b {
                    Dict(d) => dict_get(d, a).is_some(),
                    Str(s) => match a {
                        Str(x) => s.contains(&**x),
                        _ => {
                            return Err(type_err(
                                "'in <string>' requires string as left operand",
                                span,
                            ));
                        }
                    },
                    List(_) | Tuple(_) | Range(..) => {
                        let mut found = false;
                        for item in b.sequence().unwrap_or_default() {
                            let eq = self.compare(CmpOp::Eq, a, &item, span)?;
                            if self.truthy(&eq, span)? {
                                found = true;
                                break;
                            }
                        }
                        found
                    }
                    _ => {
                        return Err(type_err(
                            format!("argument of type '{}' is not iterable", b.type_name()),
                            span,
                        ));
                    }
                };
                return Ok(Bool(found == (op == CmpOp::In)));
            }
            _ => {}
        }
        if matches!(a, Tensor(_)) || matches!(b, Tensor(_)) {
            // `is`/`in` returned above; every other comparison is a tensor operator.
            let Some(pop) = pyjit_value::ops::tensor_comparison(op) else {
                return Err(type_err(
                    format!("'{}' is not supported on tensors", op.symbol()),
                    span,
                ));
            };
            if matches!(a, None) || matches!(b, None) {
                return Ok(Bool(op == CmpOp::NotEq));
            }
            let (form, args) = if let Tensor(_) = a {
                (OperatorForm::Forward, vec![a.clone(), b.clone()])
            } else {
                (OperatorForm::Reflected, vec![a.clone(), b.clone()])
            };
            let t = schema::operator_target(pop, form)
                .ok_or_else(|| type_err("bad comparison", span))?;
            let args = if t.swap {
                vec![args[1].clone(), args[0].clone()]
            } else {
                args
            };
            return self.call_op(t.name, args, vec![], span);
        }
        let ord = match op {
            CmpOp::Eq => return Ok(Bool(py_eq(a, b))),
            CmpOp::NotEq => return Ok(Bool(!py_eq(a, b))),
            _ => py_cmp(a, b).ok_or_else(|| {
                type_err(
                    format!(
                        "'{}' not supported between instances of '{}' and '{}'",
                        op.symbol(),
                        a.type_name(),
                        b.type_name()
                    ),
                    span,
                )
            })?,
        };
        use std::cmp::Ordering as O;
        Ok(Bool(match (op, ord) {
            (_, Option::None) => false,
            (CmpOp::Lt, Some(o)) => o == O::Less,
            (CmpOp::LtE, Some(o)) => o != O::Greater,
            (CmpOp::Gt, Some(o)) => o == O::Greater,
            (_, Some(o)) => o != O::Less,
        }))
    }

    // ------------------------------------------------------------------ calls

    fn eval_call(
        &mut self,
        f: &mut Frame,
        func: &Expr,
        args: &[Expr],
        keywords: &[ast::Keyword],
        span: Span,
    ) -> R<PyVal> {
        let callee = self.eval(f, func)?;
        // Arguments of tensor ops may stay symbolic scalars (graph inputs).
        let tensor_op = match &callee {
            PyVal::Func(c) => match &**c {
                Callable::Builtin(n) => {
                    (n.starts_with("torch.") && !n.starts_with("torch.jit."))
                        || n.starts_with("torch.nn.functional.")
                }
                Callable::Method { recv, .. } => matches!(recv, PyVal::Tensor(_)),
                _ => false,
            },
            _ => false,
        };
        let mut a = if tensor_op {
            let mut out = Vec::with_capacity(args.len());
            for it in args {
                if let ExprKind::Starred(_) = &it.kind {
                    out.extend(self.eval_items(f, std::slice::from_ref(it))?);
                } else {
                    out.push(self.eval_sym(f, it)?);
                }
            }
            out
        } else {
            self.eval_items(f, args)?
        };
        let mut kw = Vec::new();
        for k in keywords {
            let v = self.eval(f, &k.value)?;
            match &k.arg {
                Some(n) => kw.push((n.name.clone(), v)),
                None => match v {
                    PyVal::Dict(d) => {
                        for (k, v) in d.borrow().iter() {
                            kw.push((k.to_str(), v.clone()));
                        }
                    }
                    _ => return Err(type_err("argument after ** must be a mapping", k.span)),
                },
            }
        }
        // `isinstance` and `torch.jit.annotate` take a type expression.
        if let PyVal::Func(c) = &callee
            && let Callable::Builtin(n) = &**c
            && n == "torch.jit.annotate"
            && a.len() == 2
        {
            return Ok(a.pop().unwrap_or(PyVal::None));
        }
        self.call_value(&callee, a, kw, span)
    }

    pub(crate) fn call_value(
        &mut self,
        callee: &PyVal,
        args: Vec<PyVal>,
        kw: Vec<(String, PyVal)>,
        span: Span,
    ) -> R<PyVal> {
        match callee {
            PyVal::Func(c) => match &**c {
                Callable::User(n) => self.call_user(n, args, kw, span),
                Callable::Closure {
                    name,
                    params,
                    body,
                    env,
                    defaults,
                } => {
                    let mut frame = self.bind_params(
                        Callee {
                            name,
                            params,
                            env,
                            defaults,
                        },
                        args,
                        kw,
                        span,
                    )?;
                    // The closure can call itself by name (recursive nested defs).
                    frame.entry(name.clone()).or_insert_with(|| callee.clone());
                    self.deeper(span, |this| match body {
                        ClosureBody::Expr(e) => this.eval(&mut frame, e),
                        ClosureBody::Stmts(s) => {
                            grow(|| this.exec_block(&mut frame, s)).map(|fl| match fl {
                                Flow::Return(v) => v,
                                _ => PyVal::None,
                            })
                        }
                    })
                }
                Callable::Builtin(n) => crate::builtins::call_builtin(self, n, args, kw, span),
                Callable::Method { recv, name } => {
                    crate::builtins::call_method(self, recv, name, args, kw, span)
                }
                Callable::BoundMethod { def, recv } => {
                    let mut all = vec![recv.clone()];
                    all.extend(args);
                    let def = def.clone();
                    self.call_def(&def, all, kw, span)
                }
            },
            PyVal::Class(c) => {
                let obj = PyVal::Object(Rc::new(crate::value::Object {
                    class: c.clone(),
                    dict: RefCell::new(HashMap::new()),
                }));
                if let Some(init) = c.methods.get("__init__").cloned() {
                    let mut all = vec![obj.clone()];
                    all.extend(args);
                    self.call_def(&init, all, kw, span)?;
                } else if !args.is_empty() {
                    return Err(type_err(format!("{}() takes no arguments", c.name), span));
                }
                Ok(obj)
            }
            PyVal::Object(o) => match o.class.methods.get("__call__").cloned() {
                Some(def) => {
                    let mut all = vec![callee.clone()];
                    all.extend(args);
                    self.call_def(&def, all, kw, span)
                }
                None => Err(type_err(
                    format!("'{}' object is not callable", o.class.name),
                    span,
                )),
            },
            PyVal::Type(t) => crate::builtins::call_type(self, t, args, span),
            PyVal::DType(d) => crate::builtins::convert_scalar(self, *d, &args, span),
            other => Err(type_err(
                format!("'{}' object is not callable", other.type_name()),
                span,
            )),
        }
    }
}

/// Whether `except T` catches an exception of class `kind` (the builtin hierarchy, for the
/// classes the evaluator raises).
/// Whether a value names a device (`x.device`, `torch.device(...)`, `"cpu"`).
fn is_device_value(v: &PyVal) -> bool {
    match v {
        PyVal::Device => true,
        PyVal::Str(s) => matches!(
            s.split(':').next(),
            Some("cpu" | "cuda" | "mps" | "meta" | "xpu")
        ),
        _ => false,
    }
}

/// A `device=` argument: the CPU, or an error naming the device (pyjit runs on the CPU only).
pub(crate) fn check_device(v: &PyVal, span: Span) -> R<()> {
    match v {
        PyVal::Device | PyVal::None => Ok(()),
        PyVal::Str(s) if &**s == "cpu" || s.starts_with("cpu:") => Ok(()),
        PyVal::Str(s) => Err(TraceError::new(
            ExcKind::RuntimeError,
            format!("pyjit runs on the CPU only: device '{s}' is not available"),
            span,
        )),
        other => Err(type_err(
            format!(
                "device must be a torch.device or a string, not '{}'",
                other.type_name()
            ),
            span,
        )),
    }
}

fn handler_matches(h: &ast::ExceptHandler, kind: &ExcKind) -> bool {
    let Some(t) = &h.typ else { return true };
    let names: Vec<String> = match &t.kind {
        ExprKind::Tuple(items) => items.iter().filter_map(|i| i.dotted_name()).collect(),
        _ => t.dotted_name().into_iter().collect(),
    };
    names.iter().any(|n| {
        let n = n.rsplit('.').next().unwrap_or(n);
        kind.is_caught_by(&ExcKind::from_name(n))
    })
}

fn canonical_module(name: &str) -> String {
    match name {
        "np" => "numpy".into(),
        n => n.to_string(),
    }
}

#[derive(Clone, Copy)]
enum Num {
    I(i64),
    F(f64),
}

impl Num {
    fn f(self) -> f64 {
        match self {
            Num::I(i) => i as f64,
            Num::F(x) => x,
        }
    }
}

fn py_operator(op: BinOp) -> PyOperator {
    pyjit_value::ops::tensor_operator(op)
}

/// Python `==` on non-tensor values.
pub(crate) fn py_eq(a: &PyVal, b: &PyVal) -> bool {
    use PyVal::*;
    let num = |v: &PyVal| match v {
        Bool(x) => Some(*x as u8 as f64),
        Int(i) => Some(*i as f64),
        Float(x) => Some(*x),
        _ => Option::None,
    };
    match (a, b) {
        (Int(x), Int(y)) => x == y,
        (None, None) => true,
        (Str(x), Str(y)) => x == y,
        (DType(x), DType(y)) => x == y,
        (Type(x), Type(y)) => x == y,
        (List(_) | Tuple(_), List(_) | Tuple(_))
            if std::mem::discriminant(a) == std::mem::discriminant(b) =>
        {
            let (x, y) = (
                a.sequence().unwrap_or_default(),
                b.sequence().unwrap_or_default(),
            );
            x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| py_eq(p, q))
        }
        (Dict(x), Dict(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| py_eq(k, k2) && py_eq(v, v2)))
        }
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// Python ordering of non-tensor values (`None` when not comparable or unordered, e.g. NaN).
pub(crate) fn py_cmp(a: &PyVal, b: &PyVal) -> Option<Option<std::cmp::Ordering>> {
    use PyVal::*;
    match (a, b) {
        (Int(x), Int(y)) => Some(Some(x.cmp(y))),
        (Str(x), Str(y)) => Some(Some(x.cmp(y))),
        (List(_) | Tuple(_), List(_) | Tuple(_)) => {
            let (x, y) = (a.sequence()?, b.sequence()?);
            for (p, q) in x.iter().zip(&y) {
                if !py_eq(p, q) {
                    return py_cmp(p, q);
                }
            }
            Some(Some(x.len().cmp(&y.len())))
        }
        _ => {
            let num = |v: &PyVal| match v {
                Bool(x) => Some(*x as u8 as f64),
                Int(i) => Some(*i as f64),
                Float(x) => Some(*x),
                _ => Option::None,
            };
            let (x, y) = (num(a)?, num(b)?);
            Some(x.partial_cmp(&y))
        }
    }
}

pub(crate) fn dict_get(d: &RefCell<Vec<(PyVal, PyVal)>>, k: &PyVal) -> Option<PyVal> {
    d.borrow()
        .iter()
        .find(|(k2, _)| py_eq(k, k2))
        .map(|(_, v)| v.clone())
}

pub(crate) fn dict_set(d: &RefCell<Vec<(PyVal, PyVal)>>, k: PyVal, v: PyVal) {
    let mut d = d.borrow_mut();
    if let Some(slot) = d.iter_mut().find(|(k2, _)| py_eq(&k, k2)) {
        slot.1 = v;
    } else {
        d.push((k, v));
    }
}

fn slice_items(
    items: &[PyVal],
    a: Option<i64>,
    b: Option<i64>,
    step: i64,
    span: Span,
) -> R<Vec<PyVal>> {
    if step == 0 {
        return Err(TraceError::new(
            ExcKind::ValueError,
            "slice step cannot be zero",
            span,
        ));
    }
    let n = items.len() as i64;
    let norm = |x: i64, lo: i64, hi: i64| {
        let x = if x < 0 { x + n } else { x };
        x.clamp(lo, hi)
    };
    let mut out = Vec::new();
    if step > 0 {
        let start = a.map(|x| norm(x, 0, n)).unwrap_or(0);
        let stop = b.map(|x| norm(x, 0, n)).unwrap_or(n);
        let mut i = start;
        while i < stop {
            out.push(items[i as usize].clone());
            i += step;
        }
    } else {
        let start = a.map(|x| norm(x, -1, n - 1)).unwrap_or(n - 1);
        let stop = b.map(|x| norm(x, -1, n - 1)).unwrap_or(-1);
        let mut i = start;
        while i > stop {
            out.push(items[i as usize].clone());
            i += step;
        }
    }
    Ok(out)
}

fn contains_tensor(v: &PyVal) -> bool {
    match v {
        PyVal::Tensor(_) => true,
        PyVal::List(_) | PyVal::Tuple(_) => {
            v.sequence().unwrap_or_default().iter().any(contains_tensor)
        }
        PyVal::Dict(d) => d
            .borrow()
            .iter()
            .any(|(k, v)| contains_tensor(k) || contains_tensor(v)),
        _ => false,
    }
}

impl Evaluator<'_, '_> {
    /// The IR value of a Python object at the end of a trace (results, printed values): tensors
    /// are their recorded values, everything else is a constant of the trace (guards make that
    /// sound). `empty` is the element type given to empty lists.
    pub(crate) fn emit_value(&mut self, v: &PyVal, empty: &Type, span: Span) -> R<pyjit_ir::Value> {
        let rec = self
            .rec
            .as_mut()
            .ok_or_else(|| TraceError::unsupported("not recording", span))?;
        if let Some(rv) = scalar_to_runtime(v) {
            return rec.emit_const(&rv, span);
        }
        Ok(match v {
            PyVal::Tensor(t) => t.ir.ok_or_else(|| {
                TraceError::unsupported(
                    "a tensor whose computation was not recorded (a module-level tensor?)",
                    span,
                )
            })?,
            // A scalar argument that is still a graph input.
            PyVal::Sym(sym) => sym.ir,
            PyVal::Tuple(items) => {
                let inner = match empty {
                    Type::List(e) => (**e).clone(),
                    _ => Type::Int,
                };
                let mut vals = Vec::with_capacity(items.len());
                for it in items.iter() {
                    vals.push(self.emit_value(it, &inner, span)?);
                }
                self.rec
                    .as_mut()
                    .expect("recording")
                    .builder(span)
                    .tuple_new(&vals)
            }
            PyVal::List(items) => {
                let items = items.borrow().clone();
                let inner = match empty {
                    Type::List(e) => (**e).clone(),
                    _ => Type::Int,
                };
                let mut vals = Vec::with_capacity(items.len());
                for it in &items {
                    vals.push(self.emit_value(it, &Type::list(Type::Int), span)?);
                }
                let rec = self.rec.as_mut().expect("recording");
                let mut elem = inner;
                if let Some(first) = vals.first() {
                    elem = rec.func.value_type(*first).clone();
                    let same = vals
                        .iter()
                        .all(|v| rec.func.value_type(*v).is_assignable_to(&elem));
                    if !same {
                        // A heterogeneous list has no IR type; a tuple keeps every element.
                        return Err(TraceError::unsupported(
                            "a heterogeneous list cannot leave a trace (the IR's lists have one element type); return a tuple",
                            span,
                        ));
                    }
                    if elem.is_tensor() {
                        elem = Type::tensor();
                    }
                }
                rec.builder(span).list_new(elem, &vals)
            }
            other => {
                return Err(TraceError::unsupported(
                    format!("a '{}' cannot leave a trace", other.type_name()),
                    span,
                ));
            }
        })
    }

    /// Records a `print` call: tensors print their run-time values, everything else is the text
    /// it printed while tracing.
    pub(crate) fn record_print(&mut self, args: &[PyVal], sep: &str, span: Span) -> R<()> {
        let mut ops = Vec::with_capacity(args.len());
        for a in args {
            let v = if contains_tensor(a) {
                let v = self.emit_value(a, &Type::list(Type::Int), span)?;
                if self.numpy_mode {
                    let rec = self.rec.as_mut().expect("recording");
                    rec.builder(span).str_numpy(v)
                } else {
                    v
                }
            } else {
                let text = self.str_of(a);
                let rec = self.rec.as_mut().expect("recording");
                rec.builder(span).const_str(text)
            };
            ops.push(v);
        }
        let rec = self.rec.as_mut().expect("recording");
        let mut b = rec.builder(span);
        if sep == " " {
            b.print(&ops);
        } else {
            let mut parts = Vec::new();
            for (i, o) in ops.iter().enumerate() {
                if i > 0 {
                    parts.push(b.const_str(sep));
                }
                parts.push(b.str_of(*o, ""));
            }
            let line = b.str_concat(&parts);
            b.print(&[line]);
        }
        Ok(())
    }
}

/// `name = value` or `name: T = value` (one plain-name target): the bindings that class bodies and
/// the module's top level define eagerly.
fn name_binding(st: &Stmt) -> Option<(&str, &Expr)> {
    let (target, value) = match &st.kind {
        StmtKind::Assign { targets, value, .. } if targets.len() == 1 => (&targets[0], value),
        StmtKind::AnnAssign {
            target,
            value: Some(v),
            ..
        } => (target, v),
        _ => return None,
    };
    match &target.kind {
        ExprKind::Name(n) => Some((n.as_str(), value)),
        _ => None,
    }
}
