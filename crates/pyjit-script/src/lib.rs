//! Scripting: AST → IR.
//!
//! This layer reads a parsed module and, without ever running it, produces one generic IR function
//! per `def`: it checks the module's imports and decorators, rejects every construct the language
//! does not accept with a diagnostic that names it (see [`check`]), resolves names (locals, module
//! functions and constants, `torch.*`, `torch.nn.functional`, `math.*`, `np.*`, tensor methods),
//! types every value per LANGUAGE.md, builds SSA straight into structured control flow (`if` results
//! and loop-carried values), and rewrites `break`, `continue` and `return` into boolean flags
//! (TorchScript's exit transforms) so the IR needs no gotos. The conventions of the IR it emits are
//! in docs/ir.md, "Scripted IR conventions".
//!
//! It must never run user code, never panic on any AST (every problem is a [`Diagnostic`] with a
//! span), and never hand out IR that the IR verifier rejects.
//!
//! Entry points: [`script_module`] (a parsed module → a verified [`pyjit_ir::Module`], one function
//! per `def` in source order, or every diagnostic found), [`script_source`] (parse + script),
//! [`function_names`] (what `pyjit run -f` chooses among). [`module::analyze`] and
//! [`module::eval_const`] expose the module-level analysis (imports, functions, constants) and
//! [`ty`] the annotation parser, for tools that bind arguments to parameters.

pub(crate) mod analysis;
pub mod check;
mod lower;
pub mod module;
pub mod names;
pub mod ty;

pub use lower::{from_ir_type, ir_type};
pub use pyjit_syntax::Diagnostic;

use lower::{ModCtx, ParamSig, RetState, Sig};
use pyjit_ir::{FuncId, Module};
use pyjit_syntax::ast::{self, FunctionDef};
use pyjit_syntax::{SourceFile, Span};
use std::cell::RefCell;
use std::sync::Arc;
use ty::Ty;

/// Scripts every function of a parsed module into one IR module (functions in source order).
/// Reports every error it can find (each function is checked on its own), not just the first.
pub fn script_module(file: &SourceFile, module: &ast::Module) -> Result<Module, Vec<Diagnostic>> {
    script_module_typed(file, module, &ArgTypes::new())
}

/// The types that a call's arguments give to unannotated parameters, per function name and
/// parameter index (`None`: keep the parameter's own rule). Only NumPy-style modules
/// ([`module::ModuleInfo::numpy_mode`]) use them, as Numba's dispatcher does: `def f(n)` called
/// with an `int` is compiled with `n: int`.
pub type ArgTypes = std::collections::HashMap<String, Vec<Option<pyjit_ir::Type>>>;

/// Whether unannotated parameters of this module take their types from the call's arguments
/// (a NumPy-style module) instead of being `Tensor`s (TorchScript's rule).
pub fn types_from_arguments(module: &ast::Module) -> bool {
    module::analyze(module, &mut Vec::new()).numpy_mode()
}

/// Which parameters of function `name` take their type from the call's argument when it is an
/// `int`, `float` or `bool` (see [`ArgTypes`]): in a NumPy-style module, the parameters with
/// neither an annotation nor a default (and no type comment on the function). All `false` in a
/// torch-style module; empty when there is no such function. With each parameter's name.
pub fn argument_typed_params(module: &ast::Module, name: &str) -> Vec<(String, bool)> {
    let info = module::analyze(module, &mut Vec::new());
    let Some(def) = info.functions.iter().find(|d| d.name.name == name) else {
        return Vec::new();
    };
    let numpy = info.numpy_mode() && def.type_comment.is_none();
    def.params
        .posonly
        .iter()
        .chain(&def.params.args)
        .chain(&def.params.kwonly)
        .map(|p| {
            let typed = numpy && p.annotation.is_none() && p.default.is_none();
            (p.name.name.clone(), typed)
        })
        .collect()
}

/// [`script_module`] with the unannotated parameters of a NumPy-style module typed by `args`
/// (see [`ArgTypes`]); in a torch-style module `args` is ignored.
pub fn script_module_typed(
    file: &SourceFile,
    module: &ast::Module,
    args: &ArgTypes,
) -> Result<Module, Vec<Diagnostic>> {
    let m = script_module_unverified_typed(file, module, args)?;
    if let Err(verr) = pyjit_ir::verify_module(&m) {
        return Err(verr
            .into_iter()
            .map(|e| {
                Diagnostic::error(format!(
                    "internal compiler error: the scripted IR does not verify: {}",
                    e.message
                ))
                .with_primary(e.span, format!("in function `{}`", e.func))
                .with_note("this is a bug in pyjit-script; please report it with this program")
            })
            .collect());
    }
    Ok(m)
}

/// [`script_module`] without the final verification: for looking at the IR of a frontend bug.
#[doc(hidden)]
pub fn script_module_unverified(
    file: &SourceFile,
    module: &ast::Module,
) -> Result<Module, Vec<Diagnostic>> {
    script_module_unverified_typed(file, module, &ArgTypes::new())
}

fn script_module_unverified_typed(
    file: &SourceFile,
    module: &ast::Module,
    args: &ArgTypes,
) -> Result<Module, Vec<Diagnostic>> {
    // In a NumPy-style module a helper's unannotated parameters take the scalar types its calls
    // pass (noted by the run that failed on them): run again with those as its argument types
    // until no parameter gains a type. A parameter typed so that a later call passes a `float`
    // where it was an `int` becomes a `float`. Each run types a parameter or widens one, so the
    // runs are at most twice the parameters. The functions the caller's `args` type (the one
    // being called) keep exactly those types: their calls inside the module do not retype them.
    let given = args;
    let mut args = args.clone();
    loop {
        let (result, noted) = script_once(file, module, &args);
        if result.is_ok() {
            return result;
        }
        let mut gained = false;
        for (name, types) in noted {
            if given.contains_key(&name) {
                continue;
            }
            let slots = args.entry(name).or_default();
            if slots.len() < types.len() {
                slots.resize(types.len(), None);
            }
            for (slot, t) in slots.iter_mut().zip(types) {
                if let Some(t) = t {
                    gained |= merge_call_type(slot, t);
                }
            }
        }
        if !gained {
            return result;
        }
    }
}

/// Merges the type `t` a call passes into what a parameter has so far: the first type decides,
/// except that an `int` and a `float` make a `float` (an `int` argument converts). Whether the
/// slot changed.
pub(crate) fn merge_call_type(slot: &mut Option<pyjit_ir::Type>, t: pyjit_ir::Type) -> bool {
    use pyjit_ir::Type;
    match slot {
        None => {}
        Some(Type::Int) if t == Type::Float => {}
        Some(_) => return false,
    }
    *slot = Some(t);
    true
}

/// One scripting run, and the argument types calls passed to unannotated parameters (see
/// `ModCtx::call_types`).
fn script_once(
    file: &SourceFile,
    module: &ast::Module,
    args: &ArgTypes,
) -> (Result<Module, Vec<Diagnostic>>, ArgTypes) {
    let mut errors = Vec::new();
    let info = module::analyze(module, &mut errors);
    let no_types = Vec::new();
    let n = info.functions.len();
    let mut sigs = Vec::with_capacity(n);
    let mut rets = Vec::with_capacity(n);
    let mut broken = vec![false; n];
    for (i, def) in info.functions.iter().enumerate() {
        let before = errors.len();
        check::check_function(def, &file.text, &mut errors);
        let arg_types = match info.numpy_mode() {
            true => args.get(&def.name.name).unwrap_or(&no_types),
            false => &no_types,
        };
        match signature(def, &info, arg_types, &mut errors) {
            Some((sig, ret)) => {
                sigs.push(Some(sig));
                rets.push(match ret {
                    Some(t) => RetState::Declared(t),
                    None => RetState::Unknown,
                });
            }
            None => {
                sigs.push(None);
                rets.push(RetState::Failed);
            }
        }
        broken[i] = errors.len() > before;
        if broken[i] {
            rets[i] = RetState::Failed;
        }
    }
    let ctx = ModCtx {
        file,
        info,
        sigs,
        rets: RefCell::new(rets),
        infer_errors: RefCell::new(Vec::new()),
        func_ids: (0..n).map(|i| FuncId::from_u32(i as u32)).collect(),
        call_types: RefCell::new(ArgTypes::new()),
    };
    // Return types first (inference lowers into scratch functions), so that every function can be
    // declared, and calls (recursion included) refer to callees by id.
    for (i, &is_broken) in broken.iter().enumerate() {
        if !is_broken {
            let span = ctx.info.functions[i].name.span;
            let _ = ctx.ret_type(i, span);
        }
    }
    let mut m = Module::with_source(Arc::new(file.clone()));
    for i in 0..n {
        let def = ctx.info.functions[i];
        let params: Vec<(&str, pyjit_ir::Type)> = match &ctx.sigs[i] {
            Some(s) => s
                .params
                .iter()
                .map(|p| (p.name.as_str(), ir_type(&p.ty)))
                .collect(),
            None => Vec::new(),
        };
        let ret = match &ctx.rets.borrow()[i] {
            RetState::Declared(t) | RetState::Inferred(t) => ir_type(t),
            _ => pyjit_ir::Type::None,
        };
        let id = m.declare_function(def.name.name.clone(), &params, ret, def.name.span);
        debug_assert_eq!(id, ctx.func_ids[i]);
    }
    for i in 0..n {
        let ret = match &ctx.rets.borrow()[i] {
            RetState::Declared(t) | RetState::Inferred(t) => Some(t.clone()),
            _ => None,
        };
        let Some(ret) = ret else { continue };
        let def = ctx.info.functions[i];
        if let Err(errs) =
            lower::lower_function(&ctx, i, def, m.func_mut(ctx.func_ids[i]), Some(ret))
        {
            errors.extend(errs);
        }
    }
    errors.extend(ctx.infer_errors.borrow_mut().drain(..));
    errors.retain(|d| !d.reported_elsewhere);
    dedup(&mut errors);
    let noted = ctx.call_types.take();
    if !errors.is_empty() {
        return (Err(errors), noted);
    }
    (Ok(m), noted)
}

/// Parses and scripts a source file.
pub fn script_source(file: &SourceFile) -> Result<Module, Vec<Diagnostic>> {
    let module = pyjit_syntax::parse_module(file)?;
    script_module(file, &module)
}

/// The names of the module's functions, in source order (what `pyjit run -f` chooses among).
pub fn function_names(module: &ast::Module) -> Vec<String> {
    module
        .body
        .iter()
        .filter_map(|s| match &s.kind {
            ast::StmtKind::FunctionDef(def) => Some(def.name.name.clone()),
            _ => None,
        })
        .collect()
}

fn dedup(errors: &mut Vec<Diagnostic>) {
    let mut seen: Vec<(String, Option<Span>)> = Vec::new();
    errors.retain(|d| {
        let key = (d.message.clone(), d.primary_span());
        if seen.contains(&key) {
            false
        } else {
            seen.push(key);
            true
        }
    });
}

/// A function's signature from its annotations or its `# type:` comment; `None` when it has errors
/// (reported).
fn signature(
    def: &FunctionDef,
    info: &module::ModuleInfo,
    arg_types: &[Option<pyjit_ir::Type>],
    errors: &mut Vec<Diagnostic>,
) -> Option<(Sig, Option<Ty>)> {
    let all: Vec<(&ast::Param, bool)> = def
        .params
        .posonly
        .iter()
        .chain(&def.params.args)
        .map(|p| (p, false))
        .chain(def.params.kwonly.iter().map(|p| (p, true)))
        .collect();
    let mut ok = true;
    let comment = match &def.type_comment {
        Some(tc) => match ty::parse_fn_type_comment(&tc.text, tc.span, &info.imports) {
            Ok(c) => {
                if c.params.len() != all.len() {
                    errors.push(
                        Diagnostic::error(format!(
                            "the type comment lists {} parameter types but `{}` has {} parameters",
                            c.params.len(),
                            def.name.name,
                            all.len()
                        ))
                        .with_primary(tc.span, "type comment")
                        .with_secondary(def.name.span, "function defined here")
                        .with_help("list one type per parameter: `# type: (T1, T2) -> R`"),
                    );
                    return None;
                }
                Some(c)
            }
            Err(d) => {
                errors.push(d);
                return None;
            }
        },
        None => None,
    };
    let mut params = Vec::new();
    for (i, (p, kwonly)) in all.iter().enumerate() {
        let mut from_call = false;
        let (ty, annotated) = match (&p.annotation, &comment) {
            (Some(a), _) => match ty::parse_annotation(a, &info.imports) {
                Ok(t) => (t, true),
                Err(d) => {
                    errors.push(d);
                    ok = false;
                    (Ty::Tensor, true)
                }
            },
            (None, Some(c)) => (c.params[i].clone(), true),
            // A parameter with a default keeps the default's type (below).
            (None, None) => match arg_types.get(i).cloned().flatten() {
                Some(t) if p.default.is_none() => {
                    from_call = true;
                    (from_ir_type(&t), true)
                }
                _ => (Ty::Tensor, false),
            },
        };
        let mut tensor_default = None;
        let default = match &p.default {
            None => None,
            Some(d) => match module::eval_const(d, info) {
                Some(c) => Some(c),
                None => match module::tensor_default(d, info) {
                    Some(Ok(_)) => {
                        tensor_default = Some(d.clone());
                        None
                    }
                    Some(Err(msg)) => {
                        errors.push(
                            Diagnostic::error(format!(
                                "default value of parameter `{}` fails: {msg}",
                                p.name.name
                            ))
                            .with_primary(d.span, "this tensor default")
                            .with_help("fix the constructor's arguments"),
                        );
                        ok = false;
                        None
                    }
                    None => {
                        let dtype_default = d.dotted_name().is_some();
                        errors.push(
                            Diagnostic::error(format!(
                                "default value of parameter `{}` must be a constant",
                                p.name.name
                            ))
                            .with_primary(
                                d.span,
                                if dtype_default {
                                    "not a constant the compiler knows"
                                } else {
                                    "not a constant"
                                },
                            )
                            .with_help(format!(
                                "use an int, float, bool, str, dtype, None, a tuple of them, or a tensor made by `torch.{{{}}}` of constants",
                                module::TENSOR_DEFAULT_OPS.join(",")
                            )),
                        );
                        ok = false;
                        None
                    }
                },
            },
        };
        // `def f(x, alpha=0.5)`: without an annotation the type comes from the default, as
        // TorchScript does.
        let (ty, annotated) = match (&default, annotated) {
            (Some(c), false) => (const_type(c), true),
            (None, false) if tensor_default.is_some() => (Ty::Tensor, true),
            _ => (ty, annotated),
        };
        params.push(ParamSig {
            name: p.name.name.clone(),
            ty,
            default,
            tensor_default,
            kwonly: *kwonly,
            annotated,
            from_call,
            span: p.span,
        });
    }
    let ret = match (&def.returns, &comment) {
        (Some(r), _) => match ty::parse_annotation(r, &info.imports) {
            Ok(t) => Some(t),
            Err(d) => {
                errors.push(d);
                ok = false;
                None
            }
        },
        (None, Some(c)) => Some(c.ret.clone()),
        (None, None) => None,
    };
    ok.then(|| {
        (
            Sig {
                name: def.name.name.clone(),
                params,
                name_span: def.name.span,
            },
            ret,
        )
    })
}

fn const_type(c: &module::Const) -> Ty {
    match c {
        module::Const::Int(_) => Ty::Int,
        module::Const::Float(_) => Ty::Float,
        module::Const::Bool(_) => Ty::Bool,
        module::Const::None => Ty::optional(Ty::Tensor),
        module::Const::Tuple(items) => Ty::Tuple(items.iter().map(const_type).collect()),
        module::Const::Str(_) => Ty::Str,
        module::Const::DType(_) => Ty::DType,
    }
}
