//! Module analysis: which imports, functions and constants a file declares (LANGUAGE.md "Module
//! level"). Everything else at top level (`if __name__ == "__main__":`, other statements) is
//! skipped, never compiled.

use crate::names::Imports;
use pyjit_syntax::ast::{BinOp, Expr, ExprKind, FunctionDef, Module, StmtKind, UnaryOp};
use pyjit_syntax::{Diagnostic, Span};
use std::collections::HashMap;

/// A compile-time constant of the module (`EPS = 1e-6`).
#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    Int(i64),
    Float(f64),
    Bool(bool),
    None,
    Tuple(Vec<Const>),
    /// A string (`reduction: str = "mean"`).
    Str(String),
    /// A dtype (`dtype: torch.dtype = torch.float32`).
    DType(pyjit_runtime::DType),
}

pub struct ModuleInfo<'a> {
    pub imports: Imports,
    /// Module functions in source order.
    pub functions: Vec<&'a FunctionDef>,
    pub fn_index: HashMap<String, usize>,
    pub constants: HashMap<String, Const>,
    /// Top-level names assigned something that is not a constant (reported if a function uses them).
    pub other_globals: HashMap<String, Span>,
}

impl ModuleInfo<'_> {
    /// A NumPy-style module (imports NumPy, not torch): array methods follow NumPy
    /// (`a.max(axis=0)` is values only, `a.std()` has `ddof=0`).
    pub fn numpy_mode(&self) -> bool {
        pyjit_runtime::numpy::numpy_mode(self.imports.bound.values().map(String::as_str))
    }
}

const ALLOWED_IMPORTS: &str = "allowed imports: `import torch`, `import math`, `import numpy as np`, \
`import torch.nn.functional as F`, `from torch import Tensor`, `from typing import List, Tuple, Optional`";

pub fn analyze<'a>(module: &'a Module, out: &mut Vec<Diagnostic>) -> ModuleInfo<'a> {
    let mut info = ModuleInfo {
        imports: Imports::default(),
        functions: Vec::new(),
        fn_index: HashMap::new(),
        constants: HashMap::new(),
        other_globals: HashMap::new(),
    };
    for s in &module.body {
        match &s.kind {
            StmtKind::Import(aliases) => {
                for a in aliases {
                    let name = a.name.name.as_str();
                    let ok = matches!(
                        name,
                        "torch" | "math" | "numpy" | "torch.nn.functional" | "typing"
                    );
                    if !ok {
                        out.push(
                            Diagnostic::error(format!("import of `{name}` is not supported"))
                                .with_primary(a.name.span, "module not available to compiled code")
                                .with_help(ALLOWED_IMPORTS),
                        );
                        continue;
                    }
                    match &a.asname {
                        Some(asn) => {
                            info.imports
                                .bound
                                .insert(asn.name.clone(), name.to_string());
                        }
                        None => {
                            // `import torch.nn.functional` binds `torch`.
                            let first = name.split('.').next().unwrap_or(name);
                            info.imports
                                .bound
                                .insert(first.to_string(), first.to_string());
                        }
                    }
                }
            }
            StmtKind::ImportFrom {
                module: m, names, ..
            } => {
                let mname = m.as_ref().map(|i| i.name.as_str()).unwrap_or("");
                if mname == "__future__" {
                    continue;
                }
                for a in names {
                    let n = a.name.name.as_str();
                    let ok = match mname {
                        "torch" => matches!(n, "Tensor"),
                        // Any `typing` name may be imported (real files import `Dict` or `Any`
                        // they do not use in compiled code); unsupported ones are reported where an
                        // annotation uses them.
                        "typing" => true,
                        "torch.nn" => n == "functional",
                        _ => false,
                    };
                    if !ok {
                        let help = if mname == "typing" {
                            "from `typing`, only `List`, `Tuple` and `Optional` are supported".to_string()
                        } else {
                            ALLOWED_IMPORTS.to_string()
                        };
                        out.push(
                            Diagnostic::error(format!(
                                "`from {mname} import {n}` is not supported"
                            ))
                            .with_primary(a.name.span, "name not available to compiled code")
                            .with_help(help),
                        );
                        continue;
                    }
                    let local = a.asname.as_ref().unwrap_or(&a.name).name.clone();
                    info.imports.bound.insert(local, format!("{mname}.{n}"));
                }
            }
            StmtKind::FunctionDef(def) => {
                for d in &def.decorators {
                    let dn = d.dotted_name();
                    let ok = matches!(dn.as_deref(), Some("torch.jit.script"));
                    if !ok {
                        let shown = dn.as_deref().unwrap_or("this decorator");
                        out.push(
                            Diagnostic::error(format!("decorator `@{shown}` is not supported"))
                                .with_primary(d.span, "unsupported decorator")
                                .with_help(
                                    "only `@torch.jit.script` is accepted (and ignored); remove the decorator",
                                ),
                        );
                    }
                }
                if let Some(&prev) = info.fn_index.get(&def.name.name) {
                    let prev_span = info.functions[prev].name.span;
                    out.push(
                        Diagnostic::error(format!("function `{}` is defined twice", def.name.name))
                            .with_primary(def.name.span, "second definition")
                            .with_secondary(prev_span, "first definition")
                            .with_help("rename one of the functions"),
                    );
                    continue;
                }
                info.fn_index
                    .insert(def.name.name.clone(), info.functions.len());
                info.functions.push(def);
            }
            StmtKind::ClassDef(c) => out.push(crate::check::traceable(
                Diagnostic::error(format!("class definition `{}` is not supported", c.name.name))
                    .with_primary(c.name.span, "class defined here")
                    .with_help(
                        "write the methods as module-level functions that take the fields as parameters",
                    ),
                "classes",
            )),
            StmtKind::Assign { targets, value, .. } => {
                for t in targets {
                    if let ExprKind::Name(n) = &t.kind {
                        match eval_const(value, &info) {
                            Some(c) if targets.len() == 1 => {
                                info.constants.insert(n.clone(), c);
                            }
                            _ => {
                                info.constants.remove(n);
                                info.other_globals.insert(n.clone(), t.span);
                            }
                        }
                    }
                }
            }
            StmtKind::AnnAssign {
                target,
                value: Some(value),
                ..
            } => {
                if let ExprKind::Name(n) = &target.kind {
                    match eval_const(value, &info) {
                        Some(c) => {
                            info.constants.insert(n.clone(), c);
                        }
                        None => {
                            info.other_globals.insert(n.clone(), target.span);
                        }
                    }
                }
            }
            // `if __name__ == "__main__":`, docstrings and other statements are skipped: they run
            // only under CPython.
            _ => {}
        }
    }
    info
}

/// Evaluates a constant expression: literals, tuples, other constants, `math.pi`/`e`/`inf`/`nan`,
/// and arithmetic on those.
pub fn eval_const(e: &Expr, info: &ModuleInfo) -> Option<Const> {
    crate::lower::with_stack(|| eval_const_inner(e, info))
}

fn eval_const_inner(e: &Expr, info: &ModuleInfo) -> Option<Const> {
    match &e.kind {
        ExprKind::Int(v) => i64::try_from(*v).ok().map(Const::Int),
        ExprKind::Float(v) => Some(Const::Float(*v)),
        ExprKind::Bool(b) => Some(Const::Bool(*b)),
        ExprKind::None => Some(Const::None),
        ExprKind::Str(s) => Some(Const::Str(s.clone())),
        // `math.log(1000.0 / 16)` & co. of constants (module constants such as torchvision's
        // `BBOX_CLIP`), computed as Python computes them.
        ExprKind::Call {
            func,
            args,
            keywords,
        } if keywords.is_empty() && args.len() == 1 => {
            let canon = info.imports.canonical(&func.dotted_name()?)?;
            let x = match eval_const(&args[0], info)? {
                Const::Int(i) => i as f64,
                Const::Float(f) => f,
                _ => return None,
            };
            let r = match canon.as_str() {
                "math.log" if x > 0.0 => x.ln(),
                "math.log2" if x > 0.0 => x.log2(),
                "math.log10" if x > 0.0 => x.log10(),
                "math.sqrt" if x >= 0.0 => x.sqrt(),
                "math.exp" => x.exp(),
                _ => return None,
            };
            r.is_finite().then_some(Const::Float(r))
        }
        ExprKind::Tuple(items) => items
            .iter()
            .map(|i| eval_const(i, info))
            .collect::<Option<Vec<_>>>()
            .map(Const::Tuple),
        ExprKind::Name(n) => info.constants.get(n).cloned(),
        ExprKind::Attribute { .. } => {
            let canon = info.imports.canonical(&e.dotted_name()?)?;
            match canon.as_str() {
                "math.pi" => Some(Const::Float(std::f64::consts::PI)),
                "math.e" => Some(Const::Float(std::f64::consts::E)),
                "math.tau" => Some(Const::Float(std::f64::consts::TAU)),
                "math.inf" => Some(Const::Float(f64::INFINITY)),
                "math.nan" => Some(Const::Float(f64::NAN)),
                other => other
                    .strip_prefix("torch.")
                    .and_then(pyjit_runtime::DType::from_name)
                    .map(Const::DType),
            }
        }
        ExprKind::UnaryOp { op, operand } => {
            let v = eval_const(operand, info)?;
            match (op, v) {
                (UnaryOp::Neg, Const::Int(i)) => Some(Const::Int(i.wrapping_neg())),
                (UnaryOp::Neg, Const::Float(f)) => Some(Const::Float(-f)),
                (UnaryOp::Pos, c @ (Const::Int(_) | Const::Float(_))) => Some(c),
                (UnaryOp::Not, Const::Bool(b)) => Some(Const::Bool(!b)),
                _ => None,
            }
        }
        ExprKind::BinOp { left, op, right } => {
            let l = eval_const(left, info)?;
            let r = eval_const(right, info)?;
            match (l, r) {
                (Const::Int(a), Const::Int(b)) => match op {
                    BinOp::Add => Some(Const::Int(a.wrapping_add(b))),
                    BinOp::Sub => Some(Const::Int(a.wrapping_sub(b))),
                    BinOp::Mul => Some(Const::Int(a.wrapping_mul(b))),
                    BinOp::Div if b != 0 => Some(Const::Float(a as f64 / b as f64)),
                    BinOp::FloorDiv if b != 0 => Some(Const::Int(floor_div(a, b))),
                    BinOp::Pow if (0..=62).contains(&b) => {
                        Some(Const::Int(a.wrapping_pow(b as u32)))
                    }
                    _ => None,
                },
                (a, b) => {
                    let fa = as_f64(&a)?;
                    let fb = as_f64(&b)?;
                    match op {
                        BinOp::Add => Some(Const::Float(fa + fb)),
                        BinOp::Sub => Some(Const::Float(fa - fb)),
                        BinOp::Mul => Some(Const::Float(fa * fb)),
                        BinOp::Div if fb != 0.0 => Some(Const::Float(fa / fb)),
                        BinOp::Pow => Some(Const::Float(fa.powf(fb))),
                        _ => None,
                    }
                }
            }
        }
        _ => None,
    }
}

fn as_f64(c: &Const) -> Option<f64> {
    match c {
        Const::Int(i) => Some(*i as f64),
        Const::Float(f) => Some(*f),
        _ => None,
    }
}

/// Python's floor division on ints (rounds towards negative infinity).
fn floor_div(a: i64, b: i64) -> i64 {
    let q = a.wrapping_div(b);
    if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// The torch creation functions whose call with constant arguments may be a parameter's default
/// (`offset: Tensor = torch.tensor(1.5)`, `w: Tensor = torch.ones(3)`). `torch.empty` is left
/// out: its contents are unspecified.
pub(crate) const TENSOR_DEFAULT_OPS: &[&str] = &[
    "tensor",
    "as_tensor",
    "scalar_tensor",
    "zeros",
    "ones",
    "full",
    "arange",
    "linspace",
    "eye",
];

/// A Tensor default argument: a call of one of [`TENSOR_DEFAULT_OPS`] whose arguments are all
/// constants (lists and tuples of constants included). `None` when `e` is not such a call;
/// `Some(Err(message))` when it is but the call fails (PyTorch would fail at `def` time too).
///
/// Python evaluates a default once, when the `def` runs; so does the facade for a call from
/// outside. Inside compiled code a call that omits the argument creates the tensor again (it
/// is a constant, so this differs only if the callee mutates it in place; see
/// docs/language.md).
pub fn tensor_default(
    e: &Expr,
    info: &ModuleInfo,
) -> Option<Result<pyjit_runtime::Tensor, String>> {
    use pyjit_runtime::value::Value as Rt;
    let ExprKind::Call {
        func,
        args,
        keywords,
    } = &e.kind
    else {
        return None;
    };
    let canon = info.imports.canonical(&func.dotted_name()?)?;
    let op = canon.strip_prefix("torch.")?;
    if !TENSOR_DEFAULT_OPS.contains(&op) {
        return None;
    }
    fn arg(e: &Expr, info: &ModuleInfo) -> Option<Rt> {
        if let ExprKind::List(items) | ExprKind::Tuple(items) = &e.kind {
            return items
                .iter()
                .map(|i| arg(i, info))
                .collect::<Option<Vec<_>>>()
                .map(Rt::List);
        }
        fn rt(c: Const) -> Rt {
            match c {
                Const::Int(i) => Rt::Int(i),
                Const::Float(f) => Rt::Float(f),
                Const::Bool(b) => Rt::Bool(b),
                Const::None => Rt::None,
                Const::Str(s) => Rt::Str(s),
                Const::DType(d) => Rt::DType(d),
                Const::Tuple(items) => Rt::List(items.into_iter().map(rt).collect()),
            }
        }
        eval_const(e, info).map(rt)
    }
    let positional = args
        .iter()
        .map(|a| arg(a, info))
        .collect::<Option<Vec<_>>>()?;
    let mut named = Vec::new();
    for k in keywords {
        named.push((k.arg.as_ref()?.name.clone(), arg(&k.value, info)?));
    }
    Some(
        match pyjit_runtime::dispatch::call_by_name(op, positional, named) {
            Ok(mut out) => match out.pop() {
                Some(Rt::Tensor(t)) if out.is_empty() => Ok(t),
                _ => Err(format!("`torch.{op}` does not return one tensor")),
            },
            Err(e) => Err(e.to_string()),
        },
    )
}
