//! The IR printed back as Python (TorchScript's `.code`): [`to_python`] writes a function of a
//! module (usually the specialized, optimized one the backends run) and every function it calls
//! as a Python module that CPython + torch runs and that pyjit scripts again with the same
//! results (`pyjit compile --emit python`).
//!
//! The mapping, op by op (docs/guide.md shows an example):
//! - every op result is a variable `_N` (parameters keep their names); constants, subscript
//!   components, messages (`str.of`/`str.concat` as f-strings), `None`/`opt.wrap` and lists or
//!   tuples used once are written inline where they are used;
//! - an `if` with results assigns them in both branches (a branch ending in `raise` assigns
//!   nothing); a `loop` is a `for _i in range(n):` (with `break` when its condition can turn
//!   false) or, for `while` loops, a `while` on a condition variable; the carried values are
//!   variables assigned before the loop and at the end of its body; an `undef()` placeholder is
//!   a dummy value of its type (it is never read);
//! - scalar ops are Python's operators, builtins and `math` functions; tensor ops are
//!   `torch.NAME(...)`, `x.NAME(...)` or `F.NAME(...)`, as the op-schema table says Python spells
//!   them, with the arguments equal to the schema's defaults left out, so the call binds the
//!   same overload again; `x[...]` and `x[...] = v` are subscripts, `int(t)`/`float(t)`/`bool(t)`
//!   the tensor-to-scalar conversions;
//! - a `fastmath` fast form prints as the function it approximates (`tensor.tanh_fast` as
//!   `torch.tanh`): the printed program computes the exact function;
//! - `opt.unwrap(o)` is `assert o is not None` followed by a read (TorchScript's refinement);
//!   a tracer's `guard` is an `assert` (a failed guard re-traces in pyjit; the printed program
//!   raises instead);
//! - `int` arithmetic in the IR wraps at 64 bits, Python's does not: results agree where no
//!   int overflows.
//!
//! Nesting deeper than Python's 100 indentation levels (a very long `elif` chain) prints, but
//! CPython (and pyjit) reject the text.

use pyjit_ir::schema::{ArgType, FAST_MATH_FORMS, OpSchema};
use pyjit_ir::{
    BoolBinOp, CastOp, CmpOp, Const, DType, FloatBinOp, FloatUnOp, FuncId, Function, IndexKind,
    IntBinOp, IntUnOp, MathFn, Module, Op, OpKind, Region, SecondaryMap, Type, Value, ValueDef,
};
use pyjit_syntax::quote;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write;

/// The op kinds whose result is always written where it is used, never bound to a variable (a
/// pattern, so that the matches using it stay exhaustive).
macro_rules! always_inline {
    () => {
        OpKind::Const(_)
            | OpKind::Index(_)
            | OpKind::StrOf(_)
            | OpKind::StrConcat
            | OpKind::Undef
            | OpKind::OptNone
            | OpKind::OptWrap
    };
}

/// Names the printed module must not give a variable or a function: Python keywords, the
/// builtins and modules the printed code calls.
const RESERVED: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "torch", "math", "F", "Tensor", "List", "Tuple", "Optional", "int", "float",
    "bool", "str", "len", "range", "print", "abs", "round", "format", "max", "min",
];

/// Prints function `entry` of `m` and the functions it calls (transitively) as a Python module.
/// The entry keeps its user-facing name (`NAME.specialized` is printed as `NAME`); `defaults`
/// are Python expressions for the entry's parameter defaults (`None` where there is none; may be
/// shorter than the parameter list).
pub fn to_python(m: &Module, entry: FuncId, defaults: &[Option<String>]) -> String {
    // The entry and every function it reaches, callees first (as a reader expects).
    let mut order = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![entry];
    seen.insert(entry);
    while let Some(id) = stack.pop() {
        order.push(id);
        let Some(f) = m.funcs.get(id) else { continue };
        f.walk(&mut |op| {
            if let OpKind::Call(callee) = f.ops[op].kind
                && m.funcs.get(callee).is_some()
                && seen.insert(callee)
            {
                stack.push(callee);
            }
        });
    }
    let mut names: HashMap<FuncId, String> = HashMap::new();
    let mut taken: HashSet<String> = HashSet::new();
    let entry_name = user_name(&m.funcs[entry].name);
    let entry_name = identifier(&entry_name);
    taken.insert(entry_name.clone());
    names.insert(entry, entry_name);
    for &id in &order[1..] {
        let base = identifier(&m.funcs[id].name);
        let mut name = base.clone();
        let mut k = 1;
        while !taken.insert(name.clone()) {
            name = format!("{base}_{k}");
            k += 1;
        }
        names.insert(id, name);
    }
    let mut out = String::from(
        "import math\nimport torch\nimport torch.nn.functional as F\nfrom torch import Tensor\n\
         from typing import Dict, List, Optional, Tuple\n",
    );
    for &id in order.iter().rev() {
        out.push_str("\n\n");
        let defs = if id == entry { defaults } else { &[] };
        let mut p = Printer::new(&m.funcs[id], &names);
        p.function(&names[&id], defs);
        out.push_str(&p.out);
    }
    out
}

/// The name a user knows a function by (`f.specialized` is `f`).
fn user_name(name: &str) -> String {
    name.strip_suffix(".specialized")
        .unwrap_or(name)
        .to_string()
}

/// `name` as a Python identifier that is not reserved.
fn identifier(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if RESERVED.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// A Python annotation of an IR type.
fn annotation(t: &Type) -> String {
    match t {
        Type::Int => "int".into(),
        Type::Float => "float".into(),
        Type::Bool => "bool".into(),
        Type::None => "None".into(),
        Type::Str => "str".into(),
        Type::DType => "torch.dtype".into(),
        Type::Tensor(_) => "Tensor".into(),
        // Never a parameter or a variable of the printed code (subscripts are written inline).
        Type::Index => "Tensor".into(),
        Type::Tuple(ts) if ts.is_empty() => "Tuple[()]".into(),
        Type::Tuple(ts) => format!(
            "Tuple[{}]",
            ts.iter().map(annotation).collect::<Vec<_>>().join(", ")
        ),
        Type::List(t) => format!("List[{}]", annotation(t)),
        Type::Dict(k, v) => format!("Dict[{}, {}]", annotation(k), annotation(v)),
        Type::Optional(t) => format!("Optional[{}]", annotation(t)),
    }
}

/// A Python string literal.
fn py_str(s: &str) -> String {
    quote::double_quoted(s, py_control)
}

/// `c` as it stands inside a Python string literal in double quotes.
fn push_escaped(out: &mut String, c: char) {
    quote::push_escaped(out, c, py_control);
}

/// Python's escape for a control character other than a newline.
fn py_control(out: &mut String, c: char) {
    match c {
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
    }
}

fn dtype_expr(d: DType) -> String {
    format!("torch.{}", d.name())
}

fn float_expr(v: f64) -> String {
    if v.is_nan() {
        "math.nan".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "math.inf".into()
        } else {
            "-math.inf".into()
        }
    } else {
        format!("{v:?}")
    }
}

/// A constant as a Python expression.
fn const_expr(c: &Const) -> String {
    match c {
        Const::Int(i64::MIN) => "(-9223372036854775807 - 1)".into(),
        Const::Int(v) => v.to_string(),
        Const::Float(v) => float_expr(*v),
        Const::Bool(true) => "True".into(),
        Const::Bool(false) => "False".into(),
        Const::None => "None".into(),
        Const::Str(s) => py_str(s),
        Const::DType(d) => dtype_expr(*d),
    }
}

/// A value of type `t` for an `undef()` placeholder, which is never read.
fn placeholder(t: &Type) -> String {
    match t {
        Type::Int => "0".into(),
        Type::Float => "0.0".into(),
        Type::Bool => "False".into(),
        Type::Str => "\"\"".into(),
        Type::DType => "torch.float32".into(),
        Type::Tensor(_) | Type::Index => "torch.empty(0)".into(),
        Type::Tuple(ts) if ts.len() == 1 => format!("({},)", placeholder(&ts[0])),
        Type::Tuple(ts) => format!(
            "({})",
            ts.iter().map(placeholder).collect::<Vec<_>>().join(", ")
        ),
        Type::List(_) => "[]".into(),
        Type::Dict(..) => "{}".into(),
        Type::None | Type::Optional(_) => "None".into(),
    }
}

fn int_bin(op: IntBinOp) -> &'static str {
    match op {
        IntBinOp::Add => "+",
        IntBinOp::Sub => "-",
        IntBinOp::Mul => "*",
        IntBinOp::FloorDiv => "//",
        IntBinOp::Mod => "%",
        IntBinOp::Pow => "**",
        IntBinOp::BitAnd => "&",
        IntBinOp::BitOr => "|",
        IntBinOp::BitXor => "^",
        IntBinOp::Shl => "<<",
        IntBinOp::Shr => ">>",
    }
}

fn float_bin(op: FloatBinOp) -> &'static str {
    match op {
        FloatBinOp::Add => "+",
        FloatBinOp::Sub => "-",
        FloatBinOp::Mul => "*",
        FloatBinOp::Div => "/",
        FloatBinOp::FloorDiv => "//",
        FloatBinOp::Mod => "%",
        FloatBinOp::Pow => "**",
    }
}

fn cmp(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// The annotation a variable of type `t` is assigned with (`Optional`/`List` types, whose
/// `None` and `[]` do not say it).
fn needs_annotation(t: &Type) -> Option<String> {
    matches!(t, Type::Optional(_) | Type::List(_) | Type::Dict(..)).then(|| annotation(t))
}

/// Whether `text` mentions identifier `name` (as a whole word).
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == name)
}

struct Printer<'a> {
    f: &'a Function,
    funcs: &'a HashMap<FuncId, String>,
    names: SecondaryMap<Value, Option<String>>,
    uses: SecondaryMap<Value, u32>,
    /// Values a `str.of` formats: lists and tuples stay variables (an f-string field cannot
    /// hold their quotes).
    formatted: SecondaryMap<Value, bool>,
    /// Names given before the definition: a value an `if` branch computes only to yield it
    /// is assigned to the `if`'s result variable directly.
    preset: SecondaryMap<Value, Option<String>>,
    taken: BTreeSet<String>,
    next: u32,
    out: String,
}

impl<'a> Printer<'a> {
    fn new(f: &'a Function, funcs: &'a HashMap<FuncId, String>) -> Self {
        let mut formatted = SecondaryMap::new();
        f.walk(&mut |op| {
            if let OpKind::StrOf(_) = f.ops[op].kind {
                for &v in &f.ops[op].operands {
                    formatted[v] = true;
                }
            }
        });
        Printer {
            f,
            funcs,
            formatted,
            preset: SecondaryMap::new(),
            names: SecondaryMap::new(),
            uses: f.use_counts(),
            taken: funcs.values().cloned().collect(),
            next: 0,
            out: String::new(),
        }
    }

    /// A fresh variable name.
    fn fresh(&mut self) -> String {
        loop {
            let n = format!("_{}", self.next);
            self.next += 1;
            if self.taken.insert(n.clone()) {
                return n;
            }
        }
    }

    fn define(&mut self, v: Value) -> String {
        if let Some(n) = self.preset[v].take() {
            self.names[v] = Some(n.clone());
            return n;
        }
        let n = self.fresh();
        self.names[v] = Some(n.clone());
        n
    }

    fn line(&mut self, depth: usize, text: &str) {
        self.out.extend(std::iter::repeat_n("    ", depth));
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// The op defining `v`; for a parameter of a `fused` body, the one defining the group's
    /// operand it stands for (the body is written inline, so its operands are what it reads).
    fn def_op(&self, v: Value) -> Option<&'a pyjit_ir::OpData> {
        match self.f.values.get(v)?.def {
            ValueDef::Result(op, _) => self.f.ops.get(op),
            ValueDef::Param(r, i) => {
                let owner = self.f.ops.get(self.f.regions.get(r)?.parent?)?;
                match owner.kind {
                    OpKind::Fused => self.def_op(*owner.operands.get(i as usize)?),
                    _ => None,
                }
            }
        }
    }

    fn const_of(&self, v: Value) -> Option<&'a Const> {
        match &self.def_op(v)?.kind {
            OpKind::Const(c) => Some(c),
            _ => None,
        }
    }

    /// Whether the value is written where it is used instead of being a variable.
    fn is_inline(&self, v: Value) -> bool {
        let Some(d) = self.def_op(v) else {
            return false;
        };
        match &d.kind {
            always_inline!() => true,
            OpKind::ListNew => {
                matches!(&self.f.values[v].ty, Type::List(t) if **t == Type::Index)
                    || (self.uses[v] == 1 && !self.formatted[v])
            }
            OpKind::TupleNew => self.uses[v] == 1 && !self.formatted[v],
            _ => false,
        }
    }

    /// The Python expression of a value.
    fn expr(&self, v: Value) -> String {
        pyjit_syntax::grow(|| self.expr_unbounded(v))
    }

    fn expr_unbounded(&self, v: Value) -> String {
        if let Some(n) = &self.names[v] {
            return n.clone();
        }
        let Some(d) = self.def_op(v) else {
            return format!("_undefined_{}", v.as_u32());
        };
        let ops = &d.operands;
        match &d.kind {
            OpKind::Const(c) => const_expr(c),
            OpKind::Index(_) => self.index_component(v),
            OpKind::ListNew if matches!(&self.f.values[v].ty, Type::List(t) if **t == Type::Index) => {
                self.subscript(v)
            }
            OpKind::ListNew => format!("[{}]", self.exprs(ops)),
            OpKind::TupleNew if ops.len() == 1 => format!("({},)", self.expr(ops[0])),
            OpKind::TupleNew => format!("({})", self.exprs(ops)),
            OpKind::StrOf(_) | OpKind::StrConcat => self.fstring(v),
            OpKind::Undef => placeholder(&self.f.values[v].ty),
            OpKind::OptNone => "None".into(),
            OpKind::OptWrap => self.expr(ops[0]),
            _ => format!("_undefined_{}", v.as_u32()),
        }
    }

    /// The expression of an operator's operand (a negative literal parenthesized).
    fn operand(&self, v: Value) -> String {
        let e = self.expr(v);
        if e.starts_with('-') {
            format!("({e})")
        } else {
            e
        }
    }

    fn exprs(&self, vs: &[Value]) -> String {
        vs.iter()
            .map(|&v| self.expr(v))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The text between the brackets of a subscript whose components are the list `v`.
    fn subscript(&self, v: Value) -> String {
        let Some(d) = self.def_op(v) else {
            return self.expr(v);
        };
        if !matches!(d.kind, OpKind::ListNew) {
            return self.expr(v);
        }
        match d.operands.as_slice() {
            // `x[()]`: no components.
            [] => "()".into(),
            [one] => self.index_component(*one),
            many => many
                .iter()
                .map(|&c| self.index_component(c))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    fn index_component(&self, v: Value) -> String {
        let Some(d) = self.def_op(v) else {
            return self.expr(v);
        };
        let OpKind::Index(k) = d.kind else {
            return self.expr(v);
        };
        match k {
            IndexKind::Int | IndexKind::Tensor => self.expr(d.operands[0]),
            IndexKind::None => "None".into(),
            IndexKind::Ellipsis => "...".into(),
            IndexKind::Slice => {
                let bound = |b: Value| -> String {
                    if matches!(self.const_of(b), Some(Const::None))
                        || matches!(self.def_op(b).map(|d| &d.kind), Some(OpKind::OptNone))
                    {
                        String::new()
                    } else {
                        self.expr(b)
                    }
                };
                let (start, stop) = (bound(d.operands[0]), bound(d.operands[1]));
                match self.const_of(d.operands[2]) {
                    Some(Const::Int(1)) => format!("{start}:{stop}"),
                    _ => format!("{start}:{stop}:{}", self.expr(d.operands[2])),
                }
            }
        }
    }

    /// A message (`str.of`, `str.concat`, a string constant or variable) as an f-string.
    fn fstring(&self, v: Value) -> String {
        let mut body = String::new();
        self.fstring_parts(v, &mut body);
        format!("f\"{body}\"")
    }

    fn fstring_parts(&self, v: Value, out: &mut String) {
        let d = self.def_op(v);
        match d.map(|d| &d.kind) {
            Some(OpKind::Const(Const::Str(s))) if self.names[v].is_none() => {
                for c in s.chars() {
                    match c {
                        '{' => out.push_str("{{"),
                        '}' => out.push_str("}}"),
                        c => push_escaped(out, c),
                    }
                }
            }
            Some(OpKind::StrConcat) if self.names[v].is_none() => {
                for &p in &d.map(|d| d.operands.clone()).unwrap_or_default() {
                    self.fstring_parts(p, out);
                }
            }
            Some(OpKind::StrOf(spec)) if self.names[v].is_none() => {
                let inner = d.map(|d| d.operands[0]);
                if spec.is_empty()
                    && let Some(i) = inner
                    && matches!(self.const_of(i), Some(Const::Str(_)))
                {
                    self.fstring_parts(i, out);
                    return;
                }
                let e = inner.map(|i| self.expr(i)).unwrap_or_default();
                // A leading conversion (`!r`, `!r:>8`) is already the f-string's own suffix.
                let conversion = ["!r", "!a", "!s"]
                    .iter()
                    .any(|c| spec == c || spec.starts_with(&format!("{c}:")));
                if spec.is_empty() {
                    let _ = write!(out, "{{{e}}}");
                } else if conversion {
                    let _ = write!(out, "{{{e}{spec}}}");
                } else {
                    let _ = write!(out, "{{{e}:{spec}}}");
                }
            }
            _ => {
                let _ = write!(out, "{{{}}}", self.expr(v));
            }
        }
    }

    fn function(&mut self, name: &str, defaults: &[Option<String>]) {
        let f = self.f;
        let mut params = Vec::new();
        for (i, &v) in f.params().iter().enumerate() {
            let base = identifier(f.param_names.get(i).map(String::as_str).unwrap_or("arg"));
            let mut n = base.clone();
            let mut k = 1;
            while !self.taken.insert(n.clone()) {
                n = format!("{base}_{k}");
                k += 1;
            }
            self.names[v] = Some(n.clone());
            let mut p = format!("{n}: {}", annotation(&f.values[v].ty));
            if let Some(Some(d)) = defaults.get(i) {
                let _ = write!(p, " = {d}");
            }
            params.push(p);
        }
        let head = format!(
            "def {name}({}) -> {}:",
            params.join(", "),
            annotation(&f.ret)
        );
        self.line(0, &head);
        let before = self.out.len();
        self.region(f.body, 1, &[], &[]);
        if self.out.len() == before {
            self.line(1, "pass");
        }
    }

    /// Prints the ops of region `r`; a `yield` assigns its values to `targets`.
    fn region(&mut self, r: Region, depth: usize, targets: &[String], types: &[Type]) {
        let ops = self.f.regions[r].ops.clone();
        let before = self.out.len();
        for op in ops {
            pyjit_syntax::grow(|| self.op(op, depth, targets, types));
        }
        if self.out.len() == before {
            self.line(depth, "pass");
        }
    }

    /// Assigns `values` to `targets` (variables of types `types`), in parallel: through
    /// temporaries when a later value reads an earlier target. A variable of an `Optional` or
    /// `List` type is annotated, so that `None` and `[]` get its type.
    fn assign(&mut self, depth: usize, targets: &[String], types: &[Type], values: &[String]) {
        let pairs: Vec<(String, Option<String>, String)> = targets
            .iter()
            .zip(types)
            .zip(values)
            .filter(|((t, _), v)| t != v)
            .map(|((t, ty), v)| (t.clone(), needs_annotation(ty), v.clone()))
            .collect();
        let sequential_ok = pairs
            .iter()
            .enumerate()
            .all(|(i, p)| pairs[i + 1..].iter().all(|(_, _, v)| !mentions(v, &p.0)));
        let line = |t: &str, ann: &Option<String>, v: &str| match ann {
            Some(a) => format!("{t}: {a} = {v}"),
            None => format!("{t} = {v}"),
        };
        if sequential_ok {
            for (t, ann, v) in &pairs {
                self.line(depth, &line(t, ann, v));
            }
        } else {
            let temps: Vec<String> = pairs.iter().map(|_| self.fresh()).collect();
            for ((_, ann, v), tmp) in pairs.iter().zip(&temps) {
                self.line(depth, &line(tmp, ann, v));
            }
            for ((t, ann, _), tmp) in pairs.iter().zip(&temps) {
                self.line(depth, &line(t, ann, tmp));
            }
        }
    }

    fn types_of(&self, vs: &[Value]) -> Vec<Type> {
        vs.iter().map(|&v| self.f.values[v].ty.clone()).collect()
    }

    fn op(&mut self, op: Op, depth: usize, targets: &[String], types: &[Type]) {
        let f = self.f;
        let d = &f.ops[op];
        let results = d.results.clone();
        let ops = d.operands.clone();
        if results.len() == 1 && self.is_inline(results[0]) {
            return;
        }
        let e = |p: &Self, i: usize| p.operand(ops[i]);
        let rhs: String = match &d.kind {
            OpKind::Yield => {
                let values: Vec<String> = ops.iter().map(|&v| self.expr(v)).collect();
                self.assign(depth, targets, types, &values);
                return;
            }
            OpKind::Return => {
                let v = ops.first().map(|&v| self.expr(v)).unwrap_or("None".into());
                self.line(depth, &format!("return {v}"));
                return;
            }
            OpKind::Raise(class) => {
                // `raise KeyError(k)` is scripted as `raise[KeyError](str.of["!r"](k))` (Python
                // shows a KeyError's argument as its repr): print the argument itself.
                let arg = ops.first().map(|&v| match self.def_op(v) {
                    Some(d) if class == "KeyError" && d.kind == OpKind::StrOf("!r".into()) => {
                        d.operands[0]
                    }
                    _ => v,
                });
                let msg = arg.map(|v| self.message(v)).unwrap_or_default();
                self.line(depth, &format!("raise {}({msg})", identifier(class)));
                return;
            }
            OpKind::Check(class) => {
                let c = e(self, 0);
                let msg = self.message(ops[1]);
                if class == "AssertionError" {
                    self.line(depth, &format!("assert {c}, {msg}"));
                } else {
                    self.line(depth, &format!("if not {c}:"));
                    self.line(depth + 1, &format!("raise {}({msg})", identifier(class)));
                }
                return;
            }
            OpKind::Guard { expected, message } => {
                let v = e(self, 0);
                let test = match expected {
                    Const::Float(x) if x.is_nan() => format!("math.isnan({v})"),
                    c => format!("{v} == {}", const_expr(c)),
                };
                let msg = py_str(&format!("guard: {message}"));
                self.line(depth, &format!("assert {test}, {msg}"));
                return;
            }
            OpKind::Print => {
                let args: Vec<String> = ops.iter().map(|&v| self.print_arg(v)).collect();
                self.line(depth, &format!("print({})", args.join(", ")));
                return;
            }
            OpKind::If => {
                self.if_op(op, depth);
                return;
            }
            OpKind::Loop => {
                self.loop_op(op, depth);
                return;
            }
            // A fused group is its body's ops, written one after the other (unfused Python).
            OpKind::Fused => {
                let body = d.regions[0];
                for (&p, &v) in f.regions[body].params.iter().zip(&ops) {
                    self.names[p] = Some(self.expr(v));
                }
                let n = self.define(results[0]);
                let ty = self.types_of(&results);
                self.region(body, depth, &[n], &ty);
                return;
            }
            OpKind::ListSet => {
                let line = format!("{}[{}] = {}", e(self, 0), e(self, 1), e(self, 2));
                self.line(depth, &line);
                return;
            }
            OpKind::ListAppend => {
                let line = format!("{}.append({})", e(self, 0), e(self, 1));
                self.line(depth, &line);
                return;
            }
            OpKind::TensorStore => {
                let n = ops.len();
                let idx: Vec<String> = (1..n.saturating_sub(1)).map(|i| e(self, i)).collect();
                let line = format!(
                    "{}[{}] = {}",
                    e(self, 0),
                    element_subscript(&idx),
                    e(self, n - 1)
                );
                self.line(depth, &line);
                return;
            }
            OpKind::TensorLoad => {
                let idx: Vec<String> = (1..ops.len()).map(|i| e(self, i)).collect();
                let conv = match &f.values[results[0]].ty {
                    Type::Int => "int",
                    Type::Bool => "bool",
                    _ => "float",
                };
                format!("{conv}({}[{}])", e(self, 0), element_subscript(&idx))
            }
            OpKind::OptUnwrap => {
                // `assert o is not None` refines a variable; reads of it are then unwrapped.
                let n = self.define(results[0]);
                let o = e(self, 0);
                self.line(depth, &format!("{n} = {o}"));
                self.line(depth, &format!("assert {n} is not None"));
                return;
            }
            OpKind::Tensor(id) => match self.tensor_op(op, id.schema(), depth) {
                Some(rhs) => rhs,
                None => return,
            },
            OpKind::IntBin(b) => format!("{} {} {}", e(self, 0), int_bin(*b), e(self, 1)),
            OpKind::IntUn(IntUnOp::Neg) => format!("-{}", e(self, 0)),
            OpKind::IntUn(IntUnOp::Invert) => format!("~{}", e(self, 0)),
            OpKind::IntUn(IntUnOp::Abs) | OpKind::FloatUn(FloatUnOp::Abs) => {
                format!("abs({})", e(self, 0))
            }
            OpKind::IntTrueDiv => format!("{} / {}", e(self, 0), e(self, 1)),
            // The exported program is PyTorch code: `str` shows the arrays as tensors there.
            OpKind::StrNumPy => format!("str({})", e(self, 0)),
            OpKind::FloatBin(b) => format!("{} {} {}", e(self, 0), float_bin(*b), e(self, 1)),
            OpKind::FloatUn(FloatUnOp::Neg) => format!("-{}", e(self, 0)),
            OpKind::IntCmp(c) | OpKind::FloatCmp(c) | OpKind::BoolCmp(c) => {
                format!("{} {} {}", e(self, 0), cmp(*c), e(self, 1))
            }
            OpKind::BoolBin(b) => {
                let o = match b {
                    BoolBinOp::And => "&",
                    BoolBinOp::Or => "|",
                    BoolBinOp::Xor => "^",
                };
                format!("{} {o} {}", e(self, 0), e(self, 1))
            }
            OpKind::Not => format!("not {}", e(self, 0)),
            OpKind::Cast(c) => {
                let f = match c {
                    CastOp::IntToFloat | CastOp::BoolToFloat => "float",
                    CastOp::IntToBool | CastOp::FloatToBool => "bool",
                    CastOp::FloatToInt | CastOp::BoolToInt => "int",
                };
                format!("{f}({})", e(self, 0))
            }
            OpKind::Math(MathFn::Round) => format!("round({})", e(self, 0)),
            OpKind::Math(m) => format!("math.{}({})", m.name(), self.exprs(&ops)),
            OpKind::Elem(fe, p) => {
                // One element of the tensor op, on 0-d tensors of the precision.
                let dt = match p {
                    pyjit_ir::Prec::F32 => "torch.float32",
                    pyjit_ir::Prec::F64 => "torch.float64",
                };
                let t = |s: &mut Self, i: usize| format!("torch.tensor({}, dtype={dt})", e(s, i));
                let body = match (fe, fe.arity()) {
                    (pyjit_ir::ElemFn::Cast, _) => t(self, 0),
                    (_, 2) => format!("torch.{}({}, {})", fe.name(), t(self, 0), t(self, 1)),
                    _ => format!("torch.{}({})", fe.name(), t(self, 0)),
                };
                format!("float({body})")
            }
            OpKind::Select => format!("{} if {} else {}", e(self, 1), e(self, 0), e(self, 2)),
            OpKind::TupleNew if ops.len() == 1 => format!("({},)", e(self, 0)),
            OpKind::TupleNew => format!("({})", self.exprs(&ops)),
            OpKind::TupleGet(i) => format!("{}[{i}]", e(self, 0)),
            OpKind::ListNew => {
                let n = self.define(results[0]);
                let ty = annotation(&f.values[results[0]].ty);
                let line = format!("{n}: {ty} = [{}]", self.exprs(&ops));
                self.line(depth, &line);
                return;
            }
            OpKind::ListGet => format!("{}[{}]", e(self, 0), e(self, 1)),
            OpKind::ListLen => format!("len({})", e(self, 0)),
            OpKind::DictNew => {
                let n = self.define(results[0]);
                let ty = annotation(&f.values[results[0]].ty);
                let pairs: Vec<String> = ops
                    .chunks(2)
                    .map(|kv| format!("{}: {}", self.expr(kv[0]), self.expr(kv[kv.len() - 1])))
                    .collect();
                let line = format!("{n}: {ty} = {{{}}}", pairs.join(", "));
                self.line(depth, &line);
                return;
            }
            OpKind::DictGet => format!("{}[{}]", e(self, 0), e(self, 1)),
            OpKind::DictSet => format!("{}[{}] = {}", e(self, 0), e(self, 1), self.expr(ops[2])),
            OpKind::DictContains => format!("{} in {}", e(self, 1), e(self, 0)),
            OpKind::DictLen => format!("len({})", e(self, 0)),
            OpKind::DictKeys => format!("list({}.keys())", e(self, 0)),
            OpKind::DictValues => format!("list({}.values())", e(self, 0)),
            OpKind::DictItems => format!("list({}.items())", e(self, 0)),
            OpKind::OptIsNone => format!("{} is None", e(self, 0)),
            OpKind::Call(callee) => {
                let name = self
                    .funcs
                    .get(callee)
                    .cloned()
                    .unwrap_or_else(|| format!("_undefined_function_{}", callee.as_u32()));
                format!("{name}({})", self.exprs(&ops))
            }
            // Written inline (only reached when a result count is unusual).
            always_inline!() => return,
        };
        self.bind(depth, &results, &rhs);
    }

    /// `results = rhs` (an expression statement when there are none).
    fn bind(&mut self, depth: usize, results: &[Value], rhs: &str) {
        match results {
            [] => self.line(depth, rhs),
            [one] => {
                let n = self.define(*one);
                self.line(depth, &format!("{n} = {rhs}"));
            }
            many => {
                let ns: Vec<String> = many.iter().map(|&v| self.define(v)).collect();
                self.line(depth, &format!("{} = {rhs}", ns.join(", ")));
            }
        }
    }

    /// A message operand: a string variable, or an f-string.
    fn message(&self, v: Value) -> String {
        match self.def_op(v).map(|d| &d.kind) {
            Some(OpKind::Const(Const::Str(s))) => py_str(s),
            Some(OpKind::StrOf(_) | OpKind::StrConcat) => self.fstring(v),
            _ => self.expr(v),
        }
    }

    /// An operand of `print`: strings as they are, other values as Python prints them.
    fn print_arg(&self, v: Value) -> String {
        self.message(v)
    }

    fn if_op(&mut self, op: Op, depth: usize) {
        let d = &self.f.ops[op];
        let cond = self.expr(d.operands[0]);
        let results = d.results.clone();
        let regions = d.regions.clone();
        let targets: Vec<String> = results.iter().map(|&v| self.define(v)).collect();
        let types = self.types_of(&results);
        for &r in &regions {
            self.preset_yielded(r, &targets);
        }
        // A branch that does nothing (yields no values) is left out.
        let empty = |p: &Self, r: Region| {
            let ops = &p.f.regions[r].ops;
            ops.len() == 1
                && matches!(p.f.ops[ops[0]].kind, OpKind::Yield)
                && p.f.ops[ops[0]].operands.is_empty()
        };
        if empty(self, regions[0]) && !empty(self, regions[1]) {
            self.line(depth, &format!("if not {}:", self.operand(d.operands[0])));
            self.region(regions[1], depth + 1, &targets, &types);
            return;
        }
        self.line(depth, &format!("if {cond}:"));
        self.region(regions[0], depth + 1, &targets, &types);
        if !empty(self, regions[1]) {
            self.line(depth, "else:");
            self.region(regions[1], depth + 1, &targets, &types);
        }
    }

    /// Names the values region `r` computes only to yield them after the `if`'s `targets`.
    fn preset_yielded(&mut self, r: Region, targets: &[String]) {
        let Some(y) = self.f.terminator(r) else {
            return;
        };
        if !matches!(self.f.ops[y].kind, OpKind::Yield) {
            return;
        }
        let operands = self.f.ops[y].operands.clone();
        for (k, &v) in operands.iter().enumerate() {
            // Not an unwrapped optional: its variable holds the optional (refined by an assert).
            let own = matches!(self.f.values[v].def, ValueDef::Result(..))
                && !matches!(self.def_op(v).map(|d| &d.kind), Some(OpKind::OptUnwrap))
                && !self.is_inline(v)
                && self.names[v].is_none()
                && self.uses[v] == 1
                && operands.iter().filter(|&&o| o == v).count() == 1;
            if own && let Some(t) = targets.get(k) {
                self.preset[v] = Some(t.clone());
            }
        }
    }

    fn loop_op(&mut self, op: Op, depth: usize) {
        let f = self.f;
        let d = &f.ops[op];
        let (max_trip, cond0, inits) = (d.operands[0], d.operands[1], d.operands[2..].to_vec());
        let body = d.regions[0];
        let params = f.regions[body].params.clone();
        let results = d.results.clone();
        // The carried values: variables assigned before the loop; the results are their final
        // values, so they share the names.
        let carried: Vec<String> = params[1..].iter().map(|&v| self.define(v)).collect();
        for (r, n) in results.iter().zip(&carried) {
            self.names[*r] = Some(n.clone());
        }
        let init_exprs: Vec<String> = inits.iter().map(|&v| self.expr(v)).collect();
        let types = self.types_of(&params[1..]);
        self.assign(depth, &carried, &types, &init_exprs);
        let yield_op = f.terminator(body);
        let yield_cond = yield_op.and_then(|y| f.ops[y].operands.first().copied());
        let always = |p: &Self, v: Option<Value>| {
            v.is_some_and(|v| matches!(p.const_of(v), Some(Const::Bool(true))))
        };
        let cond_true = always(self, Some(cond0));
        let yield_true = always(self, yield_cond);
        let counter_used = self.uses[params[0]] > 0;
        let unbounded = matches!(self.const_of(max_trip), Some(Const::Int(i64::MAX)));
        if unbounded && !counter_used {
            // `while c:`: the condition is a variable the body's yield updates.
            let c = self.fresh();
            let first = self.expr(cond0);
            self.line(depth, &format!("{c} = {first}"));
            self.line(depth, &format!("while {c}:"));
            let mut targets = vec![c];
            targets.extend(carried);
            let mut all_types = vec![Type::Bool];
            all_types.extend(types);
            self.region(body, depth + 1, &targets, &all_types);
            return;
        }
        let mut depth = depth;
        if !cond_true {
            let c = self.expr(cond0);
            self.line(depth, &format!("if {c}:"));
            depth += 1;
        }
        let i = self.define(params[0]);
        let n = self.expr(max_trip);
        self.line(depth, &format!("for {i} in range({n}):"));
        // The body's yield: the carried values, then `break` when the condition went false.
        let ops = f.regions[body].ops.clone();
        let before = self.out.len();
        for &o in &ops {
            if Some(o) == yield_op {
                continue;
            }
            pyjit_syntax::grow(|| self.op(o, depth + 1, &[], &[]));
        }
        if let Some(y) = yield_op {
            let vals: Vec<String> = f.ops[y].operands[1..]
                .iter()
                .map(|&v| self.expr(v))
                .collect();
            let mut c = (!yield_true)
                .then_some(yield_cond)
                .flatten()
                .map(|c| self.expr(c));
            // A condition that reads a carried variable is taken before that is reassigned.
            if let Some(t) = &c
                && carried.iter().any(|n| mentions(t, n))
            {
                let tmp = self.fresh();
                self.line(depth + 1, &format!("{tmp} = {t}"));
                c = Some(tmp);
            }
            self.assign(depth + 1, &carried, &types, &vals);
            if let Some(c) = c {
                self.line(depth + 1, &format!("if not {c}:"));
                self.line(depth + 2, "break");
            }
        }
        if self.out.len() == before {
            self.line(depth + 1, "pass");
        }
    }

    /// A tensor op: the right-hand side of its assignment, or `None` after printing a statement
    /// itself (an index assignment).
    fn tensor_op(&mut self, op: Op, s: &OpSchema, depth: usize) -> Option<String> {
        // A fast form (`fastmath`) has no Python spelling: it prints as the function it
        // approximates (the same operands), which CPython + torch computes exactly.
        let exact: Option<&'static OpSchema> = FAST_MATH_FORMS
            .iter()
            .find(|(_, fast)| *fast == s.name)
            .and_then(|&(exact, _)| pyjit_ir::schema::lookup(exact))
            .map(pyjit_ir::schema::schema);
        let s = exact.unwrap_or(s);
        let d = &self.f.ops[op];
        let ops = d.operands.clone();
        let results = d.results.clone();
        let e = |p: &Self, i: usize| p.expr(ops[i]);
        let name = s.name.as_str();
        let q = s.qualified_name();
        let simple = match q.as_str() {
            "index" => Some(format!("{}[{}]", e(self, 0), self.subscript(ops[1]))),
            "index_put_" | "index_put_.Scalar" => {
                let target = e(self, 0);
                let line = format!("{target}[{}] = {}", self.subscript(ops[1]), e(self, 2));
                self.line(depth, &line);
                if let [r] = results.as_slice()
                    && self.uses[*r] > 0
                {
                    self.bind(depth, &results, &target);
                }
                return None;
            }
            // NumPy's int subscript: a copy when it is one element, the view otherwise.
            "np_element" => {
                let x = e(self, 0);
                Some(format!("({x}.clone() if {x}.dim() == 0 else {x})"))
            }
            "Float.Tensor" => Some(format!("float({})", e(self, 0))),
            "Int.Tensor" => Some(format!("int({})", e(self, 0))),
            "Bool.Tensor" => Some(format!("bool({})", e(self, 0))),
            "dtype" => Some(format!("{}.dtype", e(self, 0))),
            "size" => Some(format!("{}.size()", e(self, 0))),
            "size.int" => Some(format!("{}.size({})", e(self, 0), e(self, 1))),
            "dim" => Some(format!("{}.dim()", e(self, 0))),
            "eq.str" | "eq.ScalarType" => Some(format!("{} == {}", e(self, 0), e(self, 1))),
            "ne.str" | "ne.ScalarType" => Some(format!("{} != {}", e(self, 0), e(self, 1))),
            "rdiv.Scalar" => Some(format!("{} / {}", e(self, 1), e(self, 0))),
            "rfloordiv.Scalar" => Some(format!("{} // {}", e(self, 1), e(self, 0))),
            "tolist_int" | "tolist_float" => {
                // The element type comes from the annotation, as in the source.
                let n = self.define(results[0]);
                let ty = annotation(&self.f.values[results[0]].ty);
                let line = format!("{n}: {ty} = {}.tolist()", e(self, 0));
                self.line(depth, &line);
                return None;
            }
            _ => None,
        };
        if let Some(s) = simple {
            return Some(s);
        }
        // Arguments: positional until the first one that has a default or is keyword-only;
        // then by keyword, leaving out those equal to their default.
        let mut args = Vec::new();
        let mut by_keyword = false;
        let method = !s.spelling.torch && s.spelling.method || s.inplace;
        for (i, p) in s.params.iter().enumerate() {
            let Some(&v) = ops.get(i) else { break };
            if method && i == 0 {
                continue;
            }
            if p.default.is_some() || p.kwarg_only {
                by_keyword = true;
            }
            if let Some(dflt) = &p.default
                && self.equals_default(v, dflt, &p.ty)
            {
                continue;
            }
            let x = self.expr(v);
            if by_keyword {
                args.push(format!("{}={x}", p.name));
            } else {
                args.push(x);
            }
        }
        let args = args.join(", ");
        Some(if method {
            format!("{}.{name}({args})", e(self, 0))
        } else if s.spelling.torch {
            format!("torch.{name}({args})")
        } else if s.spelling.functional {
            format!("F.{name}({args})")
        } else {
            format!("torch.ops.aten.{}({args})", q)
        })
    }

    /// Whether operand `v` is the schema default `d`.
    fn equals_default(&self, v: Value, d: &pyjit_ir::schema::DefaultValue, ty: &ArgType) -> bool {
        use pyjit_ir::schema::DefaultValue as D;
        if let Some(op) = self.def_op(v) {
            match (&op.kind, d) {
                (OpKind::OptNone, D::None) => return true,
                (OpKind::ListNew, D::IntList(want)) => {
                    return op.operands.len() == want.len()
                        && op.operands.iter().zip(want).all(
                            |(&o, w)| matches!(self.const_of(o), Some(Const::Int(x)) if x == w),
                        );
                }
                _ => {}
            }
        }
        let Some(c) = self.const_of(v) else {
            return false;
        };
        // An int where a float is declared converts; the value still has to be the same.
        match (c, d) {
            (Const::None, D::None) => true,
            (Const::Bool(a), D::Bool(b)) => a == b,
            (Const::Int(a), D::Int(b)) => a == b,
            (Const::Float(a), D::Float(b)) => a.to_bits() == b.to_bits(),
            (Const::Int(a), D::Float(b)) => matches!(ty, ArgType::Float) && (*a as f64) == *b,
            (Const::Str(a), D::Str(b)) => a == b,
            // `Scalar alpha=1` passed as `1.0` binds a float: not the default's type.
            _ => false,
        }
    }
}

/// The subscript of one element: `i, j`, or `()` for a 0-d tensor.
fn element_subscript(idx: &[String]) -> String {
    if idx.is_empty() {
        "()".to_string()
    } else {
        idx.join(", ")
    }
}
