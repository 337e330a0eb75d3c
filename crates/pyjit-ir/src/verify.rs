//! The verifier. It checks these invariants (each error carries the span of the op it is about):
//!
//! 1. **Structure.** Every op in a region's op list has that region as its parent and appears in
//!    one list only; every region owned by an op has that op as its parent and is owned once; the
//!    body region has no parent op. An op owns exactly as many regions as its kind needs (`if`: 2,
//!    `loop`: 1, others: 0).
//! 2. **Single definition.** Every value is defined exactly once: its recorded definition
//!    (op result or region parameter, with index) is the place that lists it.
//! 3. **Scope (dominance in structured form).** A value used by an op is defined earlier in the
//!    same region (as a parameter or a result of an earlier op) or in an enclosing region before
//!    the op owning the region. An op's own results are not visible inside its regions.
//! 4. **Terminators.** Every region is non-empty and ends with a terminator; terminators appear
//!    only last. A function body ends with `return` or `raise`; an `if`/`loop` region ends with
//!    `yield` or `raise`; `return` appears only in a function body, `yield` only in `if`/`loop`
//!    regions.
//! 5. **Well-formed types.** Tensor types with known dims have a matching rank; parameter names
//!    match the parameters; function names in a module are unique.
//! 6. **Op signatures.** Every op has the operand and result counts and types its kind requires
//!    (`int.add` takes two ints and gives an int; `const` gives its constant's type; `tuple.get`
//!    indexes within the tuple; `list.*`, `opt.*`, `str.*` as documented in docs/ir.md). Types
//!    match by [`Type::is_assignable_to`]: tensor refinements must be compatible, nothing converts
//!    implicitly.
//! 7. **`if`.** The condition is a `bool`; both regions have no parameters; each `yield` gives
//!    exactly the `if`'s results (count and types).
//! 8. **`loop`.** Operands are `(int max_trip, bool cond, carried...)`; the body's parameters are
//!    `(int, carried...)` with the carried inits assignable to them; the results have the carried
//!    parameters' types; the body yields `(bool, carried...)`.
//! 9. **`fused`.** One tensor result; the body's parameters have the operands' types; the body
//!    holds only `const` ops and fusable tensor ops (`pyjit_runtime::ops::fused::fusable`)
//!    whose operands are defined inside the body (it sees nothing of the enclosing regions),
//!    and yields one value assignable to the result.
//! 10. **`return`.** One operand, assignable to the function's return type.
//! 11. **`call`.** The callee exists; the arguments match its parameters in count and type; the
//!     single result has its return type.
//! 12. **Tensor ops.** The operands match the schema's parameters in number and kind; the results
//!     match its returns in number and are tensors where the schema returns tensors.
//! 13. **Guards.** The expected constant is an `int`, `float` or `bool` of the guarded value's type.

use crate::entities::{Op, Region, Value};
use crate::function::{Function, Module, ValueDef};
use crate::ops::{Const, OpKind};
use crate::schema;
use crate::types::Type;
use cranelift_entity::SecondaryMap;
use pyjit_syntax::Span;
use std::fmt;

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct VerifyError {
    /// The function it was found in.
    pub func: String,
    /// The span of the offending op (the function's span for function-level errors).
    pub span: Span,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in @{}: {}", self.func, self.message)
    }
}

/// Verifies every function of a module; returns all errors found.
pub fn verify_module(m: &Module) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (id, f) in &m.funcs {
        if !names.insert(f.name.as_str()) {
            errors.push(VerifyError {
                func: f.name.clone(),
                span: f.span,
                message: format!("function name `{}` is defined twice", f.name),
            });
        }
        if let Err(e) = verify_function(m, id) {
            errors.extend(e);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Verifies one function of a module (the module supplies callee signatures).
pub fn verify_function(m: &Module, id: crate::FuncId) -> Result<(), Vec<VerifyError>> {
    let f = &m.funcs[id];
    let mut v = Verifier {
        m,
        f,
        errors: Vec::new(),
        visible: SecondaryMap::new(),
        defined: SecondaryMap::new(),
        op_seen: SecondaryMap::new(),
        region_seen: SecondaryMap::new(),
        names: std::cell::OnceCell::new(),
        id,
    };
    v.function();
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

struct Verifier<'a> {
    m: &'a Module,
    f: &'a Function,
    errors: Vec<VerifyError>,
    /// Values in scope at the current point of the walk.
    visible: SecondaryMap<Value, bool>,
    /// Values whose definition has been seen (to detect double definitions).
    defined: SecondaryMap<Value, bool>,
    op_seen: SecondaryMap<Op, bool>,
    region_seen: SecondaryMap<Region, bool>,
    /// How the printer names each value, for messages; computed on the first error only, since
    /// the verifier runs after every pass and valid IR needs no names.
    names: std::cell::OnceCell<SecondaryMap<Value, Option<String>>>,
    id: crate::FuncId,
}

/// An op kind's name for a message, spelled only when a message is formatted: the verifier runs
/// over every op several times per compile, and valid IR needs no names.
struct KindName<'a>(&'a OpKind);

impl fmt::Display for KindName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.name())
    }
}

/// Where a region sits, which decides its terminators.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RegionRole {
    Body,
    Nested,
}

impl Verifier<'_> {
    fn err(&mut self, span: Span, message: impl Into<String>) {
        self.errors.push(VerifyError {
            func: self.f.name.clone(),
            span,
            message: message.into(),
        });
    }

    /// A value as the printer shows it (`%3`), or its arena name when it is not printed.
    fn name(&self, v: Value) -> String {
        let names = self
            .names
            .get_or_init(|| crate::print::printed_value_names(self.m, self.id));
        match &names[v] {
            Some(n) => n.clone(),
            None => format!("{v} (not printed)"),
        }
    }

    fn ty(&self, v: Value) -> &Type {
        &self.f.values[v].ty
    }

    fn function(&mut self) {
        let f = self.f;
        if f.param_names.len() != f.params().len() {
            self.err(
                f.span,
                format!(
                    "function has {} parameter names for {} parameters",
                    f.param_names.len(),
                    f.params().len()
                ),
            );
        }
        if !f.ret.is_well_formed() {
            self.err(f.span, format!("malformed return type {}", f.ret));
        }
        if f.regions[f.body].parent.is_some() {
            self.err(f.span, "the body region is owned by an op");
        }
        self.region(f.body, RegionRole::Body, f.span);
    }

    /// Checks a region and everything in it; `span` is the owner's (for errors about the region).
    fn region(&mut self, r: Region, role: RegionRole, span: Span) {
        pyjit_syntax::grow(|| self.region_unbounded(r, role, span))
    }

    fn region_unbounded(&mut self, r: Region, role: RegionRole, span: Span) {
        let f = self.f;
        if self.region_seen[r] {
            self.err(span, format!("{r} is owned by more than one op"));
            return;
        }
        self.region_seen[r] = true;
        let data = &f.regions[r];
        let mut scope: Vec<Value> = Vec::new();
        for (i, &p) in data.params.iter().enumerate() {
            self.define(p, ValueDef::Param(r, i as u32), span);
            scope.push(p);
        }
        if data.ops.is_empty() {
            self.err(span, "region is empty (it needs a terminator)");
        }
        let last = data.ops.len().saturating_sub(1);
        for (i, &op) in data.ops.iter().enumerate() {
            let od = &f.ops[op];
            if self.op_seen[op] {
                self.err(od.span, format!("{op} appears in more than one region"));
                continue;
            }
            self.op_seen[op] = true;
            if od.parent != Some(r) {
                self.err(
                    od.span,
                    format!("{op}'s parent is not the region that lists it"),
                );
            }
            let term = od.kind.is_terminator();
            if term && i != last {
                self.err(
                    od.span,
                    format!("`{}` must be the last op of its region", od.kind.name()),
                );
            }
            if i == last && !term {
                self.err(
                    od.span,
                    format!(
                        "region does not end with a terminator (last op is `{}`)",
                        od.kind.name()
                    ),
                );
            }
            match (&od.kind, role) {
                (OpKind::Return, RegionRole::Nested) => self.err(
                    od.span,
                    "`return` outside the function body (early returns must be rewritten to flags)",
                ),
                (OpKind::Yield, RegionRole::Body) => {
                    self.err(od.span, "`yield` in a function body (use `return`)")
                }
                _ => {}
            }
            self.op(op);
            for (j, &res) in od.results.iter().enumerate() {
                self.define(res, ValueDef::Result(op, j as u32), od.span);
                scope.push(res);
            }
        }
        for v in scope {
            self.visible[v] = false;
        }
    }

    fn define(&mut self, v: Value, expected: ValueDef, span: Span) {
        if self.defined[v] {
            let n = self.name(v);
            self.err(span, format!("value {n} is defined more than once"));
        }
        self.defined[v] = true;
        self.visible[v] = true;
        let vd = &self.f.values[v];
        if vd.def != expected {
            self.err(
                span,
                format!(
                    "value {} records its definition as {:?}, but is defined by {expected:?}",
                    self.name(v),
                    vd.def
                ),
            );
        }
        if !vd.ty.is_well_formed() {
            self.err(span, format!("malformed type {}", vd.ty));
        }
    }

    fn op(&mut self, op: Op) {
        let f = self.f;
        let od = &f.ops[op];
        let name = KindName(&od.kind);
        let span = od.span;
        for (i, &v) in od.operands.iter().enumerate() {
            if f.values.get(v).is_none() {
                self.err(
                    span,
                    format!("`{name}` operand {i} is not a value of this function"),
                );
                return;
            }
            if !self.visible[v] {
                self.err(
                    span,
                    format!(
                        "`{name}` operand {i} ({}) is used where its definition is not in scope",
                        self.name(v)
                    ),
                );
            }
        }
        let want_regions = od.kind.region_count();
        if od.regions.len() != want_regions {
            self.err(
                span,
                format!(
                    "`{name}` owns {} regions, expected {want_regions}",
                    od.regions.len()
                ),
            );
            return;
        }
        for &r in &od.regions {
            if f.regions[r].parent != Some(op) {
                self.err(span, format!("{r}'s parent is not the op that owns it"));
            }
        }
        self.signature(op);
        for &r in &od.regions {
            self.region(r, RegionRole::Nested, span);
        }
    }

    fn count(&mut self, op: Op, operands: usize, results: usize) -> bool {
        let od = &self.f.ops[op];
        let name = KindName(&od.kind);
        let mut ok = true;
        if od.operands.len() != operands {
            self.err(
                od.span,
                format!(
                    "`{name}` takes {operands} operands, got {}",
                    od.operands.len()
                ),
            );
            ok = false;
        }
        if od.results.len() != results {
            self.err(
                od.span,
                format!("`{name}` has {results} results, got {}", od.results.len()),
            );
            ok = false;
        }
        ok
    }

    /// Checks operand `i` of `op` against `expected`.
    fn operand(&mut self, op: Op, i: usize, expected: &Type) {
        self.slot(op, i, expected, false);
    }

    /// Checks result `i` of `op` against `expected` (the value must fit where `expected` is).
    fn result(&mut self, op: Op, i: usize, expected: &Type) {
        self.slot(op, i, expected, true);
    }

    /// Checks operand or (`result`) result `i` of `op` against `expected`: an operand must fit
    /// where `expected` is, `expected` where a result is.
    fn slot(&mut self, op: Op, i: usize, expected: &Type, result: bool) {
        let od = &self.f.ops[op];
        let values = if result { &od.results } else { &od.operands };
        let Some(&v) = values.get(i) else { return };
        let got = self.ty(v);
        let fits = if result {
            expected.is_assignable_to(got)
        } else {
            got.is_assignable_to(expected)
        };
        if !fits {
            let what = if result { "result" } else { "operand" };
            let msg = format!(
                "`{}` {what} {i} has type {got}, expected {expected}",
                od.kind.name()
            );
            self.err(od.span, msg);
        }
    }

    fn signature(&mut self, op: Op) {
        let f = self.f;
        let od = &f.ops[op];
        let span = od.span;
        let name = KindName(&od.kind);
        let operand_ty = |i: usize| od.operands.get(i).map(|&v| f.values[v].ty.clone());
        match &od.kind {
            OpKind::Const(c) => {
                if self.count(op, 0, 1) {
                    self.result(op, 0, &c.ty());
                }
            }
            OpKind::IntBin(_) => self.fixed(op, &[Type::Int, Type::Int], &[Type::Int]),
            OpKind::IntUn(_) => self.fixed(op, &[Type::Int], &[Type::Int]),
            OpKind::IntTrueDiv => self.fixed(op, &[Type::Int, Type::Int], &[Type::Float]),
            OpKind::FloatBin(_) => self.fixed(op, &[Type::Float, Type::Float], &[Type::Float]),
            OpKind::FloatUn(_) => self.fixed(op, &[Type::Float], &[Type::Float]),
            OpKind::IntCmp(_) => self.fixed(op, &[Type::Int, Type::Int], &[Type::Bool]),
            OpKind::FloatCmp(_) => self.fixed(op, &[Type::Float, Type::Float], &[Type::Bool]),
            OpKind::BoolCmp(_) | OpKind::BoolBin(_) => {
                self.fixed(op, &[Type::Bool, Type::Bool], &[Type::Bool])
            }
            OpKind::Not => self.fixed(op, &[Type::Bool], &[Type::Bool]),
            OpKind::Cast(c) => {
                use crate::ops::CastOp::*;
                let (from, to) = match c {
                    IntToFloat => (Type::Int, Type::Float),
                    IntToBool => (Type::Int, Type::Bool),
                    FloatToInt => (Type::Float, Type::Int),
                    FloatToBool => (Type::Float, Type::Bool),
                    BoolToInt => (Type::Bool, Type::Int),
                    BoolToFloat => (Type::Bool, Type::Float),
                };
                self.fixed(op, &[from], &[to]);
            }
            OpKind::Math(m) => {
                let (n, ret) = m.signature();
                self.fixed(op, &vec![Type::Float; n], &[ret]);
            }
            OpKind::Elem(f, _) => self.fixed(op, &vec![Type::Float; f.arity()], &[Type::Float]),
            OpKind::Select => {
                if self.count(op, 3, 1) {
                    self.operand(op, 0, &Type::Bool);
                    let t = operand_ty(1).unwrap_or(Type::None);
                    self.operand(op, 2, &t);
                    self.result(op, 0, &t);
                }
            }
            OpKind::Index(k) => self.fixed(op, &k.operands(), &[Type::Index]),
            OpKind::TensorLoad | OpKind::TensorStore => {
                let store = od.kind == OpKind::TensorStore;
                let n = od.operands.len();
                let n_idx = n.saturating_sub(1 + store as usize);
                if n < 1 + store as usize {
                    self.err(span, format!("`{name}` needs a tensor operand"));
                    return;
                }
                if !self.count(op, n, if store { 0 } else { 1 }) {
                    return;
                }
                let tt = match operand_ty(0) {
                    Some(Type::Tensor(tt)) => tt,
                    Some(t) => {
                        self.err(
                            span,
                            format!("`{name}` operand 0 has type {t}, expected a tensor"),
                        );
                        return;
                    }
                    None => return,
                };
                if let Some(r) = tt.rank
                    && r as usize != n_idx
                {
                    self.err(
                        span,
                        format!("`{name}` has {n_idx} indices for a tensor of rank {r}"),
                    );
                }
                for i in 1..=n_idx {
                    self.operand(op, i, &Type::Int);
                }
                let scalar = if store {
                    operand_ty(n - 1)
                } else {
                    od.results.first().map(|&v| f.values[v].ty.clone())
                };
                match (scalar, tt.dtype) {
                    (Some(t), _) if !t.is_scalar() => self.err(
                        span,
                        format!("`{name}` element has type {t}, expected int, float or bool"),
                    ),
                    (Some(t), Some(d)) if !store && t != Type::element_of(d) => self.err(
                        span,
                        format!(
                            "`{name}` of a {} tensor gives {}, not {t}",
                            d.name(),
                            Type::element_of(d)
                        ),
                    ),
                    _ => {}
                }
            }
            OpKind::Tensor(id) => self.tensor_op(op, *id),
            OpKind::TupleNew => {
                if self.count(op, od.operands.len(), 1) {
                    let t = Type::Tuple(
                        od.operands
                            .iter()
                            .map(|&v| f.values[v].ty.clone())
                            .collect(),
                    );
                    self.result(op, 0, &t);
                }
            }
            OpKind::TupleGet(i) => {
                if self.count(op, 1, 1) {
                    match operand_ty(0) {
                        Some(Type::Tuple(ts)) => match ts.get(*i as usize) {
                            Some(t) => self.result(op, 0, t),
                            None => self.err(
                                span,
                                format!(
                                    "`tuple.get` index {i} is out of range for a {}-tuple",
                                    ts.len()
                                ),
                            ),
                        },
                        Some(t) => self.err(
                            span,
                            format!("`tuple.get` operand 0 has type {t}, expected a tuple"),
                        ),
                        None => {}
                    }
                }
            }
            OpKind::ListNew => {
                if self.count(op, od.operands.len(), 1) {
                    match f.values[od.results[0]].ty.clone() {
                        Type::List(elem) => {
                            for i in 0..od.operands.len() {
                                self.operand(op, i, &elem);
                            }
                        }
                        t => self.err(
                            span,
                            format!("`list.new` result has type {t}, expected a list"),
                        ),
                    }
                }
            }
            OpKind::ListGet | OpKind::ListSet | OpKind::ListAppend | OpKind::ListLen => {
                let (n_operands, n_results) = match od.kind {
                    OpKind::ListGet => (2, 1),
                    OpKind::ListSet => (3, 0),
                    OpKind::ListAppend => (2, 0),
                    _ => (1, 1),
                };
                if !self.count(op, n_operands, n_results) {
                    return;
                }
                let elem = match operand_ty(0) {
                    Some(Type::List(e)) => *e,
                    Some(t) => {
                        self.err(
                            span,
                            format!("`{name}` operand 0 has type {t}, expected a list"),
                        );
                        return;
                    }
                    None => return,
                };
                match od.kind {
                    OpKind::ListGet => {
                        self.operand(op, 1, &Type::Int);
                        self.result(op, 0, &elem);
                    }
                    OpKind::ListSet => {
                        self.operand(op, 1, &Type::Int);
                        self.operand(op, 2, &elem);
                    }
                    OpKind::ListAppend => self.operand(op, 1, &elem),
                    _ => self.result(op, 0, &Type::Int),
                }
            }
            OpKind::DictNew => {
                if self.count(op, od.operands.len(), 1) {
                    match f.values[od.results[0]].ty.clone() {
                        Type::Dict(k, v) if od.operands.len().is_multiple_of(2) => {
                            for i in 0..od.operands.len() {
                                self.operand(op, i, if i % 2 == 0 { &k } else { &v });
                            }
                        }
                        Type::Dict(..) => self.err(
                            span,
                            "`dict.new` takes key/value pairs (an even number of operands)",
                        ),
                        t => self.err(
                            span,
                            format!("`dict.new` result has type {t}, expected a dict"),
                        ),
                    }
                }
            }
            OpKind::DictGet
            | OpKind::DictSet
            | OpKind::DictContains
            | OpKind::DictLen
            | OpKind::DictKeys
            | OpKind::DictValues
            | OpKind::DictItems => {
                let (n_operands, n_results) = match od.kind {
                    OpKind::DictGet | OpKind::DictContains => (2, 1),
                    OpKind::DictSet => (3, 0),
                    _ => (1, 1),
                };
                if !self.count(op, n_operands, n_results) {
                    return;
                }
                let (k, v) = match operand_ty(0) {
                    Some(Type::Dict(k, v)) => (*k, *v),
                    Some(t) => {
                        self.err(
                            span,
                            format!("`{name}` operand 0 has type {t}, expected a dict"),
                        );
                        return;
                    }
                    None => return,
                };
                match od.kind {
                    OpKind::DictGet => {
                        self.operand(op, 1, &k);
                        self.result(op, 0, &v);
                    }
                    OpKind::DictSet => {
                        self.operand(op, 1, &k);
                        self.operand(op, 2, &v);
                    }
                    OpKind::DictContains => {
                        self.operand(op, 1, &k);
                        self.result(op, 0, &Type::Bool);
                    }
                    OpKind::DictLen => self.result(op, 0, &Type::Int),
                    OpKind::DictKeys => self.result(op, 0, &Type::list(k)),
                    OpKind::DictValues => self.result(op, 0, &Type::list(v)),
                    _ => self.result(op, 0, &Type::list(Type::Tuple(vec![k, v]))),
                }
            }
            OpKind::OptNone => {
                if self.count(op, 0, 1) && !matches!(f.values[od.results[0]].ty, Type::Optional(_))
                {
                    let t = &f.values[od.results[0]].ty;
                    self.err(
                        span,
                        format!("`opt.none` result has type {t}, expected an Optional"),
                    );
                }
            }
            OpKind::OptWrap => {
                if self.count(op, 1, 1) {
                    let t = Type::optional(operand_ty(0).unwrap_or(Type::None));
                    self.result(op, 0, &t);
                }
            }
            OpKind::OptUnwrap | OpKind::OptIsNone => {
                if !self.count(op, 1, 1) {
                    return;
                }
                match operand_ty(0) {
                    Some(Type::Optional(inner)) => {
                        if od.kind == OpKind::OptUnwrap {
                            self.result(op, 0, &inner);
                        } else {
                            self.result(op, 0, &Type::Bool);
                        }
                    }
                    Some(t) => self.err(
                        span,
                        format!("`{name}` operand 0 has type {t}, expected an Optional"),
                    ),
                    None => {}
                }
            }
            OpKind::StrOf(_) | OpKind::StrNumPy => {
                if self.count(op, 1, 1) {
                    self.result(op, 0, &Type::Str);
                }
            }
            OpKind::StrConcat => {
                let n = od.operands.len();
                self.fixed(op, &vec![Type::Str; n], &[Type::Str]);
            }
            OpKind::Undef => {
                self.count(op, 0, 1);
            }
            OpKind::If => self.if_op(op),
            OpKind::Loop => self.loop_op(op),
            OpKind::Fused => self.fused_op(op),
            OpKind::Yield => self.yield_op(op),
            OpKind::Return => {
                if self.count(op, 1, 0) {
                    let ret = f.ret.clone();
                    self.operand(op, 0, &ret);
                }
            }
            OpKind::Raise(_) => self.fixed(op, &[Type::Str], &[]),
            OpKind::Check(_) => self.fixed(op, &[Type::Bool, Type::Str], &[]),
            OpKind::Guard { expected, .. } => {
                if !matches!(expected, Const::Int(_) | Const::Float(_) | Const::Bool(_)) {
                    self.err(span, "`guard` expects an int, float or bool constant");
                } else {
                    self.fixed(op, &[expected.ty()], &[]);
                }
            }
            OpKind::Print => {
                self.count(op, od.operands.len(), 0);
            }
            OpKind::Call(callee) => {
                let Some(g) = self.m.funcs.get(*callee) else {
                    self.err(
                        span,
                        format!("`call` of {callee}, which is not in the module"),
                    );
                    return;
                };
                let params = g.param_types();
                let ret = g.ret.clone();
                let callee_name = g.name.clone();
                if od.operands.len() != params.len() {
                    self.err(
                        span,
                        format!(
                            "`call @{callee_name}` passes {} arguments, the function takes {}",
                            od.operands.len(),
                            params.len()
                        ),
                    );
                    return;
                }
                if self.count(op, params.len(), 1) {
                    for (i, p) in params.iter().enumerate() {
                        self.operand(op, i, p);
                    }
                    self.result(op, 0, &ret);
                }
            }
        }
    }

    /// Fixed operand and result types.
    fn fixed(&mut self, op: Op, operands: &[Type], results: &[Type]) {
        if self.count(op, operands.len(), results.len()) {
            for (i, t) in operands.iter().enumerate() {
                self.operand(op, i, t);
            }
            for (i, t) in results.iter().enumerate() {
                self.result(op, i, t);
            }
        }
    }

    fn tensor_op(&mut self, op: Op, id: crate::OpId) {
        let f = self.f;
        let od = &f.ops[op];
        let sch = schema::schema(id);
        if !self.count(op, sch.params.len(), sch.returns.len()) {
            return;
        }
        for (i, p) in sch.params.iter().enumerate() {
            let got = &f.values[od.operands[i]].ty;
            if !schema::accepts(&p.ty, got) {
                self.err(
                    od.span,
                    format!(
                        "`{}` operand {i} (`{}`) has type {got}, which the schema's `{}` does not accept",
                        od.kind.name(),
                        p.name,
                        p.ty
                    ),
                );
            }
        }
        for (i, r) in sch.returns.iter().enumerate() {
            match schema::ir_type(&r.ty) {
                Some(t) => self.result(op, i, &t),
                None => self.err(
                    od.span,
                    format!(
                        "`{}` returns `{}`, which has no IR type (use `tensor.Int.Tensor`, \
                         `tensor.Float.Tensor` or `tensor.Bool.Tensor`)",
                        od.kind.name(),
                        r.ty
                    ),
                ),
            }
        }
    }

    fn if_op(&mut self, op: Op) {
        let f = self.f;
        let od = &f.ops[op];
        if od.operands.len() != 1 {
            self.err(
                od.span,
                format!("`if` takes 1 operand, got {}", od.operands.len()),
            );
        } else {
            self.operand(op, 0, &Type::Bool);
        }
        let results: Vec<Type> = od.results.iter().map(|&v| f.values[v].ty.clone()).collect();
        for (k, &r) in od.regions.iter().enumerate() {
            let branch = if k == 0 { "then" } else { "else" };
            if !f.regions[r].params.is_empty() {
                self.err(
                    od.span,
                    format!("the {branch} region of `if` has parameters"),
                );
            }
            self.check_yield(r, &results, &format!("the {branch} region of `if`"));
        }
    }

    fn loop_op(&mut self, op: Op) {
        let f = self.f;
        let od = &f.ops[op];
        if od.operands.len() < 2 {
            self.err(
                od.span,
                format!(
                    "`loop` takes (max_trip, cond, carried...), got {} operands",
                    od.operands.len()
                ),
            );
            return;
        }
        self.operand(op, 0, &Type::Int);
        self.operand(op, 1, &Type::Bool);
        let carried = od.operands.len() - 2;
        let body = od.regions[0];
        let params: Vec<Type> = f.regions[body]
            .params
            .iter()
            .map(|&v| f.values[v].ty.clone())
            .collect();
        if params.len() != carried + 1 {
            self.err(
                od.span,
                format!(
                    "`loop` body has {} parameters, expected {} (the iteration index and {carried} carried values)",
                    params.len(),
                    carried + 1
                ),
            );
            return;
        }
        if params[0] != Type::Int {
            self.err(
                od.span,
                format!(
                    "`loop` body parameter 0 (the iteration index) has type {}, expected int",
                    params[0]
                ),
            );
        }
        for i in 0..carried {
            self.operand(op, i + 2, &params[i + 1]);
        }
        if od.results.len() != carried {
            self.err(
                od.span,
                format!(
                    "`loop` has {} results, expected {carried} (one per carried value)",
                    od.results.len()
                ),
            );
        } else {
            for i in 0..carried {
                self.result(op, i, &params[i + 1]);
            }
        }
        let mut yields = vec![Type::Bool];
        yields.extend_from_slice(&params[1..]);
        self.check_yield(body, &yields, "the `loop` body");
    }

    fn fused_op(&mut self, op: Op) {
        let f = self.f;
        let od = &f.ops[op];
        let body = od.regions[0];
        let params = f.regions[body].params.clone();
        if params.len() != od.operands.len() {
            self.err(
                od.span,
                format!(
                    "`fused` body has {} parameters, expected {} (one per operand)",
                    params.len(),
                    od.operands.len()
                ),
            );
            return;
        }
        for (i, &p) in params.iter().enumerate() {
            let t = f.values[p].ty.clone();
            self.operand(op, i, &t);
        }
        if od.results.len() != 1 || !matches!(f.values[od.results[0]].ty, Type::Tensor(_)) {
            self.err(od.span, "`fused` has one tensor result");
            return;
        }
        let inside: std::collections::HashSet<Value> = params
            .iter()
            .copied()
            .chain(
                f.regions[body]
                    .ops
                    .iter()
                    .flat_map(|&o| f.ops[o].results.iter().copied()),
            )
            .collect();
        for &o in &f.regions[body].ops {
            let d = &f.ops[o];
            let ok = match &d.kind {
                OpKind::Const(_) | OpKind::Yield => true,
                OpKind::Tensor(id) => pyjit_runtime::ops::fused::fusable(*id),
                _ => false,
            };
            if !ok {
                self.err(
                    d.span,
                    format!(
                        "`{}` inside a `fused` body (only `const` and fusable tensor ops: elementwise, and reductions over dims)",
                        d.kind.name()
                    ),
                );
            }
            if let Some(&v) = d.operands.iter().find(|v| !inside.contains(v)) {
                let n = self.name(v);
                self.err(
                    d.span,
                    format!(
                        "`fused` body uses {n}, which is defined outside it (pass it as an operand)"
                    ),
                );
            }
        }
        let t = f.values[od.results[0]].ty.clone();
        self.check_yield(body, &[t], "the `fused` body");
    }

    /// Checks that region `r`'s `yield` (if it ends with one) gives values of `types`.
    fn check_yield(&mut self, r: Region, types: &[Type], what: &str) {
        let f = self.f;
        let Some(&last) = f.regions[r].ops.last() else {
            return;
        };
        let od = &f.ops[last];
        if od.kind != OpKind::Yield {
            return;
        }
        if od.operands.len() != types.len() {
            self.err(
                od.span,
                format!(
                    "{what} yields {} values, expected {}",
                    od.operands.len(),
                    types.len()
                ),
            );
            return;
        }
        for (i, t) in types.iter().enumerate() {
            // The yield's operands are checked for existence when the yield itself is visited.
            let Some(got) = f.values.get(od.operands[i]).map(|d| &d.ty) else {
                continue;
            };
            if !got.is_assignable_to(t) {
                self.err(
                    od.span,
                    format!("{what} yields {got} as value {i}, expected {t}"),
                );
            }
        }
    }

    fn yield_op(&mut self, op: Op) {
        let od = &self.f.ops[op];
        if !od.results.is_empty() {
            self.err(od.span, "`yield` has results");
        }
    }
}
