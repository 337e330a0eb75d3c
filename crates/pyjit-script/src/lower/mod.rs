//! The lowering of one function's AST to IR: environments, SSA construction into structured
//! control flow, and the exit transforms.
//!
//! ## SSA construction
//! The environment ([`State`]) maps each variable to its current SSA value and static type.
//! An `if` lowers both branches from a copy of the environment, then every variable whose value
//! differs between the branches becomes a result of the `if` (each region yields its value);
//! a variable defined in only one branch becomes undefined, with the reason kept for the error
//! if it is used. A loop carries every variable that is assigned in its body and defined before
//! it (region parameters of the body, results of the loop).
//!
//! ## Exit transforms
//! `return`, `break` and `continue` set flags instead of jumping (TorchScript's exit_transforms):
//! [`Flag`] tracks each flag statically (`Off`/`On`) for as long as possible and as an SSA `bool`
//! once it depends on control flow. Statements after one that may have set a flag are wrapped in
//! `if not (flags) { … }`; statements after one that certainly did are dead and not emitted.
//! A loop's continuation condition includes `not (break or return)`; `continue` only skips the rest
//! of the body. The returned value is carried in a pseudo-variable until the function's single
//! final `return`.

mod expr;
mod stmt;
mod tensor;

use crate::module::{Const as MConst, ModuleInfo};
use crate::ty::Ty;
use pyjit_ir::{Function, FunctionBuilder, Region, Type, Value};
use pyjit_syntax::ast::{BinOp, FunctionDef, Stmt};
use pyjit_syntax::{Diagnostic, SourceFile, Span};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

/// An error value of the lowering: the diagnostic, or [`Diagnostic::reported_elsewhere`] for an
/// error already reported elsewhere (a callee whose return type could not be inferred).
pub(crate) type R<T> = Result<T, Diagnostic>;

/// Runs `f` with at least 128 KiB of stack left, growing it (by 4 MiB segments) when needed: the
/// lowering recurses over the AST.
pub(crate) fn with_stack<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, f)
}

/// The IR type of a frontend type.
pub fn ir_type(t: &Ty) -> Type {
    match t {
        Ty::Tensor => Type::tensor(),
        Ty::Int => Type::Int,
        Ty::Float => Type::Float,
        Ty::Bool => Type::Bool,
        Ty::Str => Type::Str,
        Ty::None => Type::None,
        Ty::DType => Type::DType,
        Ty::Device => Type::Str,
        Ty::Tuple(ts) => Type::Tuple(ts.iter().map(ir_type).collect()),
        Ty::List(t) => Type::list(ir_type(t)),
        Ty::Dict(k, v) => Type::dict(ir_type(k), ir_type(v)),
        Ty::Optional(t) => Type::optional(ir_type(t)),
    }
}

/// The frontend type of an IR type (tensor refinements dropped).
pub fn from_ir_type(t: &Type) -> Ty {
    match t {
        Type::Tensor(_) => Ty::Tensor,
        Type::Int => Ty::Int,
        Type::Float => Ty::Float,
        Type::Bool => Ty::Bool,
        Type::Str => Ty::Str,
        Type::None => Ty::None,
        Type::DType => Ty::DType,
        Type::Tuple(ts) => Ty::Tuple(ts.iter().map(from_ir_type).collect()),
        Type::List(t) => Ty::list(from_ir_type(t)),
        Type::Dict(k, v) => Ty::Dict(Box::new(from_ir_type(k)), Box::new(from_ir_type(v))),
        Type::Optional(t) => Ty::Optional(Box::new(from_ir_type(t))),
        // Subscript components never reach a variable.
        Type::Index => Ty::None,
    }
}

/// One parameter of a module function's signature.
#[derive(Clone, Debug)]
pub(crate) struct ParamSig {
    pub name: String,
    pub ty: Ty,
    pub default: Option<MConst>,
    /// A Tensor default (`offset: Tensor = torch.tensor(1.5)`, see
    /// [`crate::module::tensor_default`]): lowered again at each call that omits the argument.
    pub tensor_default: Option<pyjit_syntax::ast::Expr>,
    pub kwonly: bool,
    /// False when the type is the unannotated-parameter default (`Tensor`).
    pub annotated: bool,
    /// Unannotated, and typed by a call's argument (NumPy-style modules, see
    /// [`crate::ArgTypes`]).
    pub from_call: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub(crate) struct Sig {
    pub name: String,
    pub params: Vec<ParamSig>,
    pub name_span: Span,
}

#[derive(Clone, Debug)]
pub(crate) enum RetState {
    Declared(Ty),
    Unknown,
    /// Being inferred; the type of the first `return` seen so far, for recursive calls.
    InProgress(Option<Ty>),
    Inferred(Ty),
    Failed,
}

/// What the lowering of every function shares: the module's names and every signature.
pub(crate) struct ModCtx<'a> {
    pub file: &'a SourceFile,
    pub info: ModuleInfo<'a>,
    pub sigs: Vec<Option<Sig>>,
    pub rets: RefCell<Vec<RetState>>,
    /// Errors found while inferring return types (reported once).
    pub infer_errors: RefCell<Vec<Diagnostic>>,
    pub func_ids: Vec<pyjit_ir::FuncId>,
    /// In a NumPy-style module: the scalar types that calls pass to unannotated parameters
    /// (still `Tensor`s in this run), per callee and parameter index. Scripting runs again with
    /// them as the callee's argument types (see `crate::script_module_typed`), as Numba types a
    /// helper by its call.
    pub call_types: RefCell<crate::ArgTypes>,
}

impl ModCtx<'_> {
    /// Notes that a call passes a value of type `got` to parameter `i` of `sig`: a scalar type
    /// for an unannotated parameter of a NumPy-style module (a `Tensor` so far, or typed by an
    /// earlier run's calls) is the type the next run gives it ([`crate::merge_call_type`]).
    pub(crate) fn note_call_type(&self, sig: &Sig, i: usize, got: &Ty) {
        let p = &sig.params[i];
        if (p.annotated && !p.from_call) || !self.info.numpy_mode() {
            return;
        }
        let t = match got {
            Ty::Int => pyjit_ir::Type::Int,
            Ty::Float => pyjit_ir::Type::Float,
            Ty::Bool => pyjit_ir::Type::Bool,
            _ => return,
        };
        let mut all = self.call_types.borrow_mut();
        let slots = all.entry(sig.name.clone()).or_default();
        if slots.len() < sig.params.len() {
            slots.resize(sig.params.len(), None);
        }
        crate::merge_call_type(&mut slots[i], t);
    }

    /// The return type of module function `idx`, inferring it (by lowering the function into a
    /// scratch IR function) when it is not annotated.
    pub(crate) fn ret_type(&self, idx: usize, call_span: Span) -> R<Ty> {
        let state = self.rets.borrow()[idx].clone();
        match state {
            RetState::Declared(t) | RetState::Inferred(t) => Ok(t),
            RetState::InProgress(Some(t)) => Ok(t),
            RetState::InProgress(None) => {
                let name = &self.info.functions[idx].name;
                Err(Diagnostic::error(format!(
                    "cannot infer the return type of recursive function `{}`",
                    name.name
                ))
                .with_primary(
                    call_span,
                    "recursive call before any `return` gives its type",
                )
                .with_secondary(name.span, "function defined here")
                .with_help(format!(
                    "annotate the return type: `def {}(...) -> int:` (or the type it returns)",
                    name.name
                )))
            }
            RetState::Failed => Err(Diagnostic::reported_elsewhere()),
            RetState::Unknown => {
                self.rets.borrow_mut()[idx] = RetState::InProgress(None);
                let Some(sig) = self.sigs[idx].as_ref() else {
                    self.rets.borrow_mut()[idx] = RetState::Failed;
                    return Err(Diagnostic::reported_elsewhere());
                };
                let def = self.info.functions[idx];
                let params: Vec<(&str, Type)> = sig
                    .params
                    .iter()
                    .map(|p| (p.name.as_str(), ir_type(&p.ty)))
                    .collect();
                let mut scratch = Function::new(&sig.name, &params, Type::None, def.name.span);
                let result = lower_function(self, idx, def, &mut scratch, None);
                match result {
                    Ok(Some(t)) => {
                        self.rets.borrow_mut()[idx] = RetState::Inferred(t.clone());
                        Ok(t)
                    }
                    Ok(None) | Err(_) => {
                        if let Err(errs) = result {
                            self.infer_errors.borrow_mut().extend(errs);
                        }
                        self.rets.borrow_mut()[idx] = RetState::Failed;
                        Err(Diagnostic::reported_elsewhere())
                    }
                }
            }
        }
    }

    /// Records a return type seen while inferring `idx` (the first one is what recursive calls see).
    fn note_return(&self, idx: usize, t: &Ty) {
        let mut rets = self.rets.borrow_mut();
        if let RetState::InProgress(None) = rets[idx] {
            rets[idx] = RetState::InProgress(Some(t.clone()));
        }
    }
}

/// A flag of the exit transforms, known statically as long as possible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flag {
    Off,
    On,
    Dyn(Value),
}

/// The binding of a variable.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Binding {
    /// `ty` is the variable's declared type. `refined` is set when `ty` is `Optional[T]` but the
    /// value is known not to be `None` here (an `is not None` test, an `assert`, an assignment of a
    /// `T`): reads then unwrap it (at the use, so the unwrap never runs on a path where it is None).
    Val { v: Value, ty: Ty, refined: bool },
    /// Not defined on every path here; `reason` says which path misses it.
    Undef { ty: Option<Ty>, reason: Undefined },
}

/// Why a variable is not defined here.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Undefined {
    /// Which path misses it (the note of the diagnostic of a use).
    Because(String),
    /// It was assigned by a statement that failed to compile: its uses report nothing more.
    Poisoned,
}

impl std::fmt::Display for Undefined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Undefined::Because(why) => f.write_str(why),
            Undefined::Poisoned => f.write_str("it is assigned by a statement with an error"),
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct State {
    pub vars: BTreeMap<String, Binding>,
    pub ret: Flag,
    pub brk: Flag,
    pub cont: Flag,
    /// The value to return once `ret` is set (not tracked while inferring return types).
    pub retv: Option<Value>,
    /// After a `raise` (or an `if` whose branches all raise): nothing more runs here.
    pub unreachable: bool,
}

/// A lowered expression: an SSA value and its static type.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub v: Value,
    pub ty: Ty,
}

/// The lowering of one function.
pub(crate) struct Lower<'m, 'a, 'f> {
    pub m: &'m ModCtx<'a>,
    pub idx: usize,
    pub b: FunctionBuilder<'f>,
    pub st: State,
    /// The declared or inferred return type; `None` while inferring it.
    pub ret_ty: Option<Ty>,
    /// Types of the `return`s seen while inferring.
    pub returns_seen: Vec<(Ty, Span)>,
    /// Unannotated parameters and their initial values (for the "no annotation, so it is a Tensor"
    /// help).
    pub unannotated: HashMap<String, Value>,
    pub loop_depth: u32,
    /// Every name assigned anywhere in the function (to tell "used before assignment" apart from
    /// "undefined").
    pub assigned_anywhere: Vec<String>,
    /// Errors of statements that failed; lowering goes on with the next statement so that one
    /// run reports every independent error.
    pub errors: Vec<Diagnostic>,
    /// The spans of the `return` statements lowered.
    pub return_spans: Vec<Span>,
}

/// Lowers function `idx` into `func` (whose parameters are already declared). `ret` is the return
/// type (declared or inferred); `None` means "infer it": the IR built is scratch and the inferred
/// type is returned.
pub(crate) fn lower_function(
    m: &ModCtx,
    idx: usize,
    def: &FunctionDef,
    func: &mut Function,
    ret: Option<Ty>,
) -> Result<Option<Ty>, Vec<Diagnostic>> {
    let Some(sig) = m.sigs[idx].as_ref() else {
        return Err(vec![]);
    };
    let mut b = FunctionBuilder::new(func);
    b.set_span(def.name.span);
    let mut vars = BTreeMap::new();
    let mut unannotated = HashMap::new();
    for (i, p) in sig.params.iter().enumerate() {
        let v = b.param(i);
        vars.insert(
            p.name.clone(),
            Binding::Val {
                v,
                ty: p.ty.clone(),
                refined: false,
            },
        );
        if !p.annotated {
            unannotated.insert(p.name.clone(), v);
        }
    }
    let mut lw = Lower {
        m,
        idx,
        b,
        st: State {
            vars,
            ret: Flag::Off,
            brk: Flag::Off,
            cont: Flag::Off,
            retv: None,
            unreachable: false,
        },
        ret_ty: ret,
        returns_seen: Vec::new(),
        unannotated,
        loop_depth: 0,
        assigned_anywhere: crate::analysis::assigned_names(&def.body),
        errors: Vec::new(),
        return_spans: Vec::new(),
    };
    let body = skip_docstring(&def.body);
    let r = lw.block(body);
    let mut errors = std::mem::take(&mut lw.errors);
    if let Err(d) = r {
        errors.push(d);
    }
    if !errors.is_empty() {
        // The end-of-function checks would only repeat what the errors already say.
        return Err(errors);
    }
    lw.finish(def).map_err(|d| vec![d])
}

fn skip_docstring(body: &[Stmt]) -> &[Stmt] {
    use pyjit_syntax::ast::{ExprKind, StmtKind};
    match body.first() {
        Some(Stmt {
            kind: StmtKind::Expr(e),
            ..
        }) if matches!(e.kind, ExprKind::Str(_)) => &body[1..],
        _ => body,
    }
}

impl Lower<'_, '_, '_> {
    pub fn set_span(&mut self, s: Span) {
        self.b.set_span(s);
    }

    /// The function's end: the single `return` of the body (or, while inferring, the return type).
    fn finish(&mut self, def: &FunctionDef) -> R<Option<Ty>> {
        self.set_span(def.name.span);
        let falls_through = !self.st.unreachable && self.st.ret != Flag::On;
        let Some(ret_ty) = self.ret_ty.clone() else {
            // Inference: the returns must agree; falling off the end returns None.
            let mut seen = std::mem::take(&mut self.returns_seen);
            if falls_through {
                seen.push((Ty::None, def.name.span));
            }
            return self.unify_returns(&seen).map(Some);
        };
        if self.st.unreachable {
            if !self.b.is_terminated() {
                let u = self.b.undef(ir_type(&ret_ty));
                self.b.return_(u);
            }
            return Ok(None);
        }
        match self.st.ret {
            Flag::On => {
                let v = self.retv_or_undef(&ret_ty);
                // The single `return` points at the function's only `return` statement if it has
                // one (else at the function).
                if let [one] = self.return_spans.as_slice() {
                    self.set_span(*one);
                }
                self.b.return_(v);
            }
            Flag::Off | Flag::Dyn(_) => {
                let none_ok = matches!(ret_ty, Ty::None | Ty::Optional(_));
                if !none_ok {
                    return Err(Diagnostic::error(format!(
                        "function `{}` can reach its end without returning a value",
                        def.name.name
                    ))
                    .with_primary(
                        def.name.span,
                        format!("must return `{ret_ty}` on every path"),
                    )
                    .with_help("add a `return` statement at the end of the function"));
                }
                let v = match (self.st.ret, &ret_ty) {
                    (_, Ty::None) => self.b.const_none(),
                    (Flag::Dyn(flag), Ty::Optional(inner)) => {
                        let retv = self.retv_or_undef(&ret_ty);
                        let inner = ir_type(inner);
                        let then_r = self.b.new_region(&[]);
                        self.b.build_in(then_r, |b| b.yield_(&[retv]));
                        let else_r = self.b.new_region(&[]);
                        self.b.build_in(else_r, |b| {
                            let n = b.opt_none(inner);
                            b.yield_(&[n])
                        });
                        let op = self.b.if_(flag, then_r, else_r, &[ir_type(&ret_ty)]);
                        self.b.result(op)
                    }
                    (_, Ty::Optional(inner)) => self.b.opt_none(ir_type(inner)),
                    _ => self.b.const_none(),
                };
                self.b.return_(v);
            }
        }
        Ok(None)
    }

    /// Ends a region that control never leaves normally (its paths all raise, but through nested
    /// ops) with a `yield` of placeholders, as the verifier wants every region terminated.
    pub(crate) fn seal_unreachable(&mut self, r: Region, types: &[Type]) {
        let saved = self.b.position_at_end(r);
        if !self.b.is_terminated() {
            let vs: Vec<Value> = types.iter().map(|t| self.b.undef(t.clone())).collect();
            self.b.yield_(&vs);
        }
        self.b.set_insert_point(saved);
    }

    fn retv_or_undef(&mut self, ret_ty: &Ty) -> Value {
        match self.st.retv {
            Some(v) => v,
            None => self.b.undef(ir_type(ret_ty)),
        }
    }

    /// The one type all `return`s agree on: equal types; `None` with `T` gives `Optional[T]`;
    /// `int` with `float` gives `float`.
    fn unify_returns(&self, seen: &[(Ty, Span)]) -> R<Ty> {
        let mut acc: Option<(Ty, Span)> = None;
        for (t, span) in seen {
            acc = Some(match acc {
                None => (t.clone(), *span),
                Some((a, aspan)) => match unify(&a, t) {
                    Some(u) => (u, aspan),
                    None => {
                        let lc = self.m.file.line_col(aspan.start);
                        return Err(Diagnostic::error(format!(
                            "return statements disagree: this one returns `{t}`, an earlier one returns `{a}`"
                        ))
                        .with_primary(*span, format!("returns `{t}`"))
                        .with_secondary(aspan, format!("returns `{a}` (line {})", lc.line))
                        .with_help("return values of one type, or annotate the return type"));
                    }
                },
            });
        }
        Ok(acc.map(|(t, _)| t).unwrap_or(Ty::None))
    }

    // ---- flags ----

    /// Whether an exit flag is set: `On` if certainly, `Dyn(v)` if maybe (v = any flag set).
    pub(crate) fn exit_status(&mut self) -> Flag {
        let flags = [self.st.ret, self.st.brk, self.st.cont];
        if flags.contains(&Flag::On) {
            return Flag::On;
        }
        let dyns: Vec<Value> = flags
            .iter()
            .filter_map(|f| match f {
                Flag::Dyn(v) => Some(*v),
                _ => None,
            })
            .collect();
        match dyns.split_first() {
            None => Flag::Off,
            Some((&first, rest)) => {
                let mut acc = first;
                for &v in rest {
                    acc = self.b.bool_bin(pyjit_ir::BoolBinOp::Or, acc, v);
                }
                Flag::Dyn(acc)
            }
        }
    }

    pub(crate) fn flag_value(&mut self, f: Flag) -> Value {
        match f {
            Flag::Off => self.b.const_bool(false),
            Flag::On => self.b.const_bool(true),
            Flag::Dyn(v) => v,
        }
    }

    // ---- structured if with SSA merge ----

    /// Emits Python's `for i in range(n)` without `break`: a `loop` whose body (`each`, given the
    /// iteration's index) always continues.
    pub(crate) fn for_range(
        &mut self,
        n: Value,
        mut each: impl FnMut(&mut Self, Value) -> R<()>,
    ) -> R<()> {
        let t = self.b.const_bool(true);
        let body = self.b.new_region(&[Type::Int]);
        let i = self.b.func.region_params(body)[0];
        let saved = self.b.position_at_end(body);
        each(self, i)?;
        let go = self.b.const_bool(true);
        self.b.yield_(&[go]);
        self.b.set_insert_point(saved);
        self.b.loop_(n, t, &[], body);
        Ok(())
    }

    /// Raises `exc` with the message `msg` builds when `cond` holds (a failing path that ends
    /// in the raise, and an empty passing path).
    pub(crate) fn raise_if(
        &mut self,
        cond: Value,
        exc: &str,
        mut msg: impl FnMut(&mut Self) -> R<Value>,
    ) -> R<()> {
        self.lower_if(
            cond,
            &mut |s| {
                let m = msg(s)?;
                s.b.raise(exc, m);
                s.st.unreachable = true;
                Ok(())
            },
            &mut |_| Ok(()),
            ("failing path", "passing path"),
        )
    }

    /// Emits `if cond { then } else { else }`, merging the environments. `names` names the two
    /// paths in "not defined" reasons (`"true branch"`, `"false branch"`).
    pub(crate) fn lower_if(
        &mut self,
        cond: Value,
        then_f: &mut dyn FnMut(&mut Self) -> R<()>,
        else_f: &mut dyn FnMut(&mut Self) -> R<()>,
        names: (&str, &str),
    ) -> R<()> {
        let span = self.b.span();
        let outer = self.b.insert_point();
        let before = self.st.clone();
        let then_r = self.b.new_region(&[]);
        self.b.position_at_end(then_r);
        let r1 = then_f(self);
        let st_then = std::mem::replace(&mut self.st, before.clone());
        let else_r = self.b.new_region(&[]);
        self.b.position_at_end(else_r);
        let r2 = else_f(self);
        let st_else = std::mem::replace(&mut self.st, before.clone());
        self.b.set_insert_point(outer);
        r1?;
        r2?;
        self.b.set_span(span);
        self.merge(&before, st_then, st_else, then_r, else_r, cond, names)
    }

    #[allow(clippy::too_many_arguments)]
    fn merge(
        &mut self,
        before: &State,
        st_then: State,
        st_else: State,
        then_r: Region,
        else_r: Region,
        cond: Value,
        names: (&str, &str),
    ) -> R<()> {
        let span = self.b.span();
        // A branch that raised contributes nothing: the other one's environment flows out.
        match (st_then.unreachable, st_else.unreachable) {
            (true, true) => {
                self.seal_unreachable(then_r, &[]);
                self.seal_unreachable(else_r, &[]);
                self.b.if_(cond, then_r, else_r, &[]);
                self.st = before.clone();
                self.st.unreachable = true;
                return Ok(());
            }
            (true, false) | (false, true) => {
                let (live, live_r, dead_r) = if st_then.unreachable {
                    (st_else, else_r, then_r)
                } else {
                    (st_then, then_r, else_r)
                };
                let mut out_names = Vec::new();
                let mut yields = Vec::new();
                let mut types = Vec::new();
                let mut new_state = before.clone();
                for (name, _) in live.vars.iter() {
                    let Some(bnd) = live.vars.get(name).cloned() else {
                        continue;
                    };
                    if before.vars.get(name) == Some(&bnd) {
                        continue;
                    }
                    match bnd {
                        Binding::Val { v, ty, refined } => {
                            out_names.push((name.clone(), ty.clone(), refined));
                            yields.push(v);
                            types.push(ir_type(&ty));
                        }
                        u @ Binding::Undef { .. } => {
                            new_state.vars.insert(name.clone(), u);
                        }
                    }
                }
                // Flags and the return value flow from the live branch as they are.
                let mut flag_slots = Vec::new();
                for (i, f) in [live.ret, live.brk, live.cont].into_iter().enumerate() {
                    if let Flag::Dyn(v) = f {
                        yields.push(v);
                        types.push(Type::Bool);
                        flag_slots.push(i);
                    }
                    set_flag(&mut new_state, i, f);
                }
                let retv_slot = match live.retv {
                    Some(v) if before.retv != Some(v) => {
                        yields.push(v);
                        types.push(self.b.value_type(v).clone());
                        true
                    }
                    _ => false,
                };
                new_state.retv = live.retv;
                self.b.build_in(live_r, |b| b.yield_(&yields));
                self.seal_unreachable(dead_r, &types);
                let op = self.b.if_(cond, then_r, else_r, &types);
                let results = self.b.results(op);
                let mut k = 0;
                for (name, ty, refined) in out_names {
                    new_state.vars.insert(
                        name,
                        Binding::Val {
                            v: results[k],
                            ty,
                            refined,
                        },
                    );
                    k += 1;
                }
                for i in flag_slots {
                    set_flag(&mut new_state, i, Flag::Dyn(results[k]));
                    k += 1;
                }
                if retv_slot {
                    new_state.retv = Some(results[k]);
                }
                self.st = new_state;
                return Ok(());
            }
            (false, false) => {}
        }

        let mut new_state = before.clone();
        let mut then_y = Vec::new();
        let mut else_y = Vec::new();
        let mut types = Vec::new();
        let mut outs: Vec<Out> = Vec::new();
        let mut all_names: Vec<&String> = st_then.vars.keys().collect();
        for n in st_else.vars.keys() {
            if !st_then.vars.contains_key(n) {
                all_names.push(n);
            }
        }
        all_names.sort();
        for name in all_names {
            let bt = st_then.vars.get(name).cloned();
            let be = st_else.vars.get(name).cloned();
            // The same value on both paths (refined only if refined on both).
            if let (
                Some(Binding::Val {
                    v: v1,
                    ty,
                    refined: r1,
                }),
                Some(Binding::Val {
                    v: v2, refined: r2, ..
                }),
            ) = (&bt, &be)
                && v1 == v2
            {
                let b = Binding::Val {
                    v: *v1,
                    ty: ty.clone(),
                    refined: *r1 && *r2,
                };
                if before.vars.get(name) != Some(&b) {
                    new_state.vars.insert(name.clone(), b);
                }
                continue;
            }
            if bt == be {
                if let Some(b) = bt
                    && before.vars.get(name) != Some(&b)
                {
                    new_state.vars.insert(name.clone(), b);
                }
                continue;
            }
            match (bt, be) {
                (
                    Some(Binding::Val {
                        v: v1,
                        ty: t1,
                        refined: r1,
                    }),
                    Some(Binding::Val {
                        v: v2,
                        ty: t2,
                        refined: r2,
                    }),
                ) => {
                    if t1 != t2 {
                        return Err(Diagnostic::error(format!(
                            "`{name}` is set to type {t1} in the {} and type {t2} in the {}",
                            names.0, names.1
                        ))
                        .with_primary(span, format!("`{name}` has different types after this"))
                        .with_help(format!(
                            "give `{name}` one type on every path (convert with `float(...)`, or use another variable)"
                        )));
                    }
                    then_y.push(v1);
                    else_y.push(v2);
                    types.push(ir_type(&t1));
                    // `if x is None: x = default` leaves `x` known to hold a value.
                    outs.push(Out::Var(name.clone(), t1, r1 && r2));
                }
                (Some(Binding::Val { ty, .. }), other) => {
                    new_state
                        .vars
                        .insert(name.clone(), one_sided(name, ty, other, names.1));
                }
                (other, Some(Binding::Val { ty, .. })) => {
                    new_state
                        .vars
                        .insert(name.clone(), one_sided(name, ty, other, names.0));
                }
                (Some(u @ Binding::Undef { .. }), _) | (None, Some(u @ Binding::Undef { .. })) => {
                    new_state.vars.insert(name.clone(), u);
                }
                (None, None) => {}
            }
        }
        // Flags.
        let flags_t = [st_then.ret, st_then.brk, st_then.cont];
        let flags_e = [st_else.ret, st_else.brk, st_else.cont];
        let mut then_consts = Vec::new();
        let mut else_consts = Vec::new();
        for i in 0..3 {
            let (a, b) = (flags_t[i], flags_e[i]);
            if a == b {
                set_flag(&mut new_state, i, a);
                continue;
            }
            // A flag set on exactly one path is the condition itself (or its negation).
            match (a, b) {
                (Flag::On, Flag::Off) => {
                    set_flag(&mut new_state, i, Flag::Dyn(cond));
                    continue;
                }
                (Flag::Off, Flag::On) => {
                    let n = self.b.not(cond);
                    set_flag(&mut new_state, i, Flag::Dyn(n));
                    continue;
                }
                _ => {}
            }
            then_consts.push(a);
            else_consts.push(b);
            types.push(Type::Bool);
            outs.push(Out::Flag(i));
        }
        // Return value.
        let retv = if st_then.retv != st_else.retv {
            let ty = st_then
                .retv
                .or(st_else.retv)
                .map(|v| self.b.value_type(v).clone())
                .unwrap_or(Type::None);
            types.push(ty.clone());
            outs.push(Out::Retv);
            Some((st_then.retv, st_else.retv, ty))
        } else {
            new_state.retv = st_then.retv;
            None
        };
        for (region, ys, consts, rv) in [
            (
                then_r,
                then_y,
                then_consts,
                retv.as_ref().map(|r| (r.0, r.2.clone())),
            ),
            (
                else_r,
                else_y,
                else_consts,
                retv.as_ref().map(|r| (r.1, r.2.clone())),
            ),
        ] {
            self.b.build_in(region, |b| {
                let mut ys = ys;
                for f in consts {
                    ys.push(match f {
                        Flag::Off => b.const_bool(false),
                        Flag::On => b.const_bool(true),
                        Flag::Dyn(v) => v,
                    });
                }
                if let Some((v, ty)) = rv {
                    ys.push(match v {
                        Some(v) => v,
                        None => b.undef(ty),
                    });
                }
                b.yield_(&ys)
            });
        }
        // An `if` that computes nothing (both regions just `yield`) is left out.
        let trivial = types.is_empty()
            && self.b.func.region_ops(then_r).len() == 1
            && self.b.func.region_ops(else_r).len() == 1;
        if trivial {
            self.st = new_state;
            return Ok(());
        }
        let op = self.b.if_(cond, then_r, else_r, &types);
        let results = self.b.results(op);
        for (out, &r) in outs.into_iter().zip(&results) {
            match out {
                Out::Var(name, ty, refined) => {
                    new_state
                        .vars
                        .insert(name, Binding::Val { v: r, ty, refined });
                }
                Out::Flag(i) => set_flag(&mut new_state, i, Flag::Dyn(r)),
                Out::Retv => new_state.retv = Some(r),
            }
        }
        self.st = new_state;
        Ok(())
    }
}

/// The binding after an `if` of a variable defined (with type `ty`) on one path only.
fn one_sided(name: &str, ty: Ty, other: Option<Binding>, missing_path: &str) -> Binding {
    let reason = match other {
        Some(Binding::Undef { reason, .. }) => reason,
        _ => Undefined::Because(format!("`{name}` is not defined in the {missing_path}")),
    };
    Binding::Undef {
        ty: Some(ty),
        reason,
    }
}

enum Out {
    /// A variable (and whether it is a refined `Optional` on both paths).
    Var(String, Ty, bool),
    Flag(usize),
    Retv,
}

fn set_flag(st: &mut State, i: usize, f: Flag) {
    match i {
        0 => st.ret = f,
        1 => st.brk = f,
        _ => st.cont = f,
    }
}

/// `a OP b` on operand types `OP` does not take (`span`: the whole operation).
pub(crate) fn unsupported_operands(op: BinOp, l: &Ty, r: &Ty, span: Span) -> Diagnostic {
    Diagnostic::error(format!(
        "unsupported operand types for `{}`: `{l}` and `{r}`",
        op.symbol()
    ))
    .with_primary(span, format!("`{l}` {} `{r}`", op.symbol()))
}

/// The common type of two types for `return`s and ternaries.
pub(crate) fn unify(a: &Ty, b: &Ty) -> Option<Ty> {
    if a == b {
        return Some(a.clone());
    }
    match (a, b) {
        (Ty::Int, Ty::Float) | (Ty::Float, Ty::Int) => Some(Ty::Float),
        (Ty::None, Ty::Optional(_)) => Some(b.clone()),
        (Ty::Optional(_), Ty::None) => Some(a.clone()),
        (Ty::None, t) | (t, Ty::None) => Some(Ty::optional(t.clone())),
        (Ty::Optional(x), t) | (t, Ty::Optional(x)) if t.is_subtype_of(x) => {
            Some(a.clone().max_opt(b))
        }
        _ => None,
    }
}

impl Ty {
    /// Of two types where one is `Optional` of the other, the `Optional` one.
    fn max_opt(self, other: &Ty) -> Ty {
        if matches!(self, Ty::Optional(_)) {
            self
        } else {
            other.clone()
        }
    }
}
