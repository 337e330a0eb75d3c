//! The printer of the IR text format (docs/ir.md describes the format).
//!
//! Printing is a pure function of the module's structure: values are numbered densely
//! (`%0`, `%1`, … in order of definition in the text; function parameters keep their names), so
//! two structurally equal modules print identically and `print(parse(print(m))) == print(m)`.

use crate::entities::{FuncId, Op, Region, Value};
use crate::function::{Function, Module};
use crate::ops::{Const, OpKind};
use crate::types::dtype_text;
use cranelift_entity::SecondaryMap;
use pyjit_syntax::SourceFile;
use std::fmt::Write;

/// The column where `# file:line:col` comments start (when the op text is shorter).
const COMMENT_COLUMN: usize = 56;

/// Prints a whole module: its functions in order, separated by blank lines. Spans are written
/// as `# file:line:col` comments when the module has a source file.
/// The deepest indentation the printer writes (see `Printer::indent`).
pub(crate) const MAX_INDENT: usize = 32;

pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    for (i, id) in m.funcs.keys().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&print_function(m, id));
    }
    out
}

/// Prints a module without span comments (for snapshot tests that should not depend on
/// source positions).
pub fn print_module_without_spans(m: &Module) -> String {
    let mut out = String::new();
    for (i, id) in m.funcs.keys().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut p = Printer::new(m, None, &m.funcs[id]);
        p.function();
        out.push_str(&p.out);
    }
    out
}

/// Prints one function of a module (the module supplies callee names and the source file).
pub fn print_function(m: &Module, id: FuncId) -> String {
    let mut p = Printer::new(m, m.source.as_deref(), &m.funcs[id]);
    p.function();
    p.out
}

/// The name each value of function `id` gets when printed (`%x`, `%3`), so that messages can
/// refer to values the way the user sees them.
pub fn printed_value_names(m: &Module, id: FuncId) -> SecondaryMap<Value, Option<String>> {
    let mut p = Printer::new(m, None, &m.funcs[id]);
    p.function();
    p.names
}

struct Printer<'a> {
    module: &'a Module,
    source: Option<&'a SourceFile>,
    f: &'a Function,
    names: SecondaryMap<Value, Option<String>>,
    next: u32,
    out: String,
}

/// Whether `s` can be written without quotes after `@` or `%`.
pub(crate) fn is_plain_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A string literal in the text format: `"`, `\` and control characters escaped.
pub(crate) fn quote(s: &str) -> String {
    pyjit_syntax::quote::double_quoted(s, |out, c| match c {
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    })
}

/// A function name after `@`.
pub(crate) fn func_name(name: &str) -> String {
    if is_plain_name(name) {
        name.to_string()
    } else {
        quote(name)
    }
}

/// A float literal that parses back to the same bits (NaN aside, which has one spelling).
pub(crate) fn float_text(v: f64) -> String {
    // `{:?}` is the shortest representation that round-trips and always shows a `.`, an
    // exponent, `inf` or `NaN`, so it never reads as an int.
    format!("{v:?}")
}

/// A constant as the text format writes it (`2`, `0.5`, `true`, `none`, `"s"`, `float32`).
pub fn const_text(c: &Const) -> String {
    match c {
        Const::Int(v) => v.to_string(),
        Const::Float(v) => float_text(*v),
        Const::Bool(v) => v.to_string(),
        Const::None => "none".to_string(),
        Const::Str(s) => quote(s),
        Const::DType(d) => dtype_text(*d).to_string(),
    }
}

impl<'a> Printer<'a> {
    fn new(module: &'a Module, source: Option<&'a SourceFile>, f: &'a Function) -> Printer<'a> {
        Printer {
            module,
            source,
            f,
            names: SecondaryMap::new(),
            next: 0,
            out: String::new(),
        }
    }

    fn define(&mut self, v: Value) -> String {
        let name = format!("%{}", self.next);
        self.next += 1;
        self.names[v] = Some(name.clone());
        name
    }

    fn use_(&self, v: Value) -> String {
        match &self.names[v] {
            Some(n) => n.clone(),
            // Only invalid IR (a use without a visible definition) gets here; the verifier
            // reports it, the printer just shows it.
            None => format!("%<undefined {v}>"),
        }
    }

    fn uses(&self, vs: &[Value]) -> String {
        vs.iter()
            .map(|&v| self.use_(v))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn typed_defs(&mut self, vs: &[Value]) -> String {
        let mut parts = Vec::with_capacity(vs.len());
        for &v in vs {
            let n = self.define(v);
            parts.push(format!("{n}: {}", self.f.values[v].ty));
        }
        parts.join(", ")
    }

    /// Ends a line, adding the span comment.
    fn end_line(&mut self, line_start: usize, span: pyjit_syntax::Span) {
        if let Some(src) = self.source {
            let width = self.out[line_start..].chars().count();
            let pad = if width + 2 <= COMMENT_COLUMN {
                COMMENT_COLUMN - width
            } else {
                2
            };
            self.out.extend(std::iter::repeat_n(' ', pad));
            let lc = src.line_col(span.start);
            let _ = write!(self.out, "# {}:{}:{}", src.name, lc.line, lc.col);
        }
        self.out.push('\n');
    }

    fn function(&mut self) {
        let f = self.f;
        let start = self.out.len();
        let mut params = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (i, &v) in f.params().iter().enumerate() {
            // Parameters keep their source names; one without a usable, unique name is numbered
            // like any other value.
            let name = match f.param_names.get(i) {
                Some(n) if is_plain_name(n) && seen.insert(n.as_str()) => {
                    let name = format!("%{n}");
                    self.names[v] = Some(name.clone());
                    name
                }
                _ => self.define(v),
            };
            params.push(format!("{name}: {}", f.values[v].ty));
        }
        let _ = write!(
            self.out,
            "func @{}({}) -> {} {{",
            func_name(&f.name),
            params.join(", "),
            f.ret
        );
        self.end_line(start, f.span);
        self.region_ops(f.body, 1);
        self.out.push_str("}\n");
    }

    fn region_ops(&mut self, r: Region, depth: usize) {
        for &op in &self.f.regions[r].ops {
            self.op(op, depth);
        }
    }

    /// Indents by nesting depth, up to [`MAX_INDENT`] levels: deeper regions (a long `elif`
    /// chain nests one level per branch) keep that indentation, so the text stays linear in the
    /// size of the function. The braces carry the structure; the parser ignores indentation.
    fn indent(&mut self, depth: usize) {
        self.out
            .extend(std::iter::repeat_n("  ", depth.min(MAX_INDENT)));
    }

    fn op(&mut self, op: Op, depth: usize) {
        pyjit_syntax::grow(|| self.op_unbounded(op, depth))
    }

    fn op_unbounded(&mut self, op: Op, depth: usize) {
        let f = self.f;
        let data = &f.ops[op];
        let start = self.out.len();
        self.indent(depth);
        // Operands first: they are defined earlier, and results must not shadow them.
        let operands = self.uses(&data.operands);
        if !data.results.is_empty() {
            let defs = self.typed_defs(&data.results);
            let _ = write!(self.out, "{defs} = ");
        }
        match &data.kind {
            OpKind::Const(c) => {
                let _ = write!(self.out, "const {}", const_text(c));
            }
            OpKind::Yield => {
                self.out.push_str("yield");
                if !operands.is_empty() {
                    let _ = write!(self.out, " {operands}");
                }
            }
            OpKind::Return => {
                let _ = write!(self.out, "return {operands}");
            }
            OpKind::Call(callee) => {
                let name = match self.module.funcs.get(*callee) {
                    Some(g) => func_name(&g.name),
                    None => format!("<undefined {callee}>"),
                };
                let _ = write!(self.out, "call @{name}({operands})");
            }
            OpKind::If => {
                let _ = write!(self.out, "if {operands} {{");
                self.end_line(start, data.span);
                let regions = data.regions.clone();
                for (i, &r) in regions.iter().enumerate() {
                    if i > 0 {
                        self.indent(depth);
                        self.out.push_str("} else {\n");
                    }
                    self.region_ops(r, depth + 1);
                }
                self.indent(depth);
                self.out.push_str("}\n");
                return;
            }
            OpKind::Loop | OpKind::Fused => {
                let _ = write!(self.out, "{}({operands})", data.kind.name());
                let regions = data.regions.clone();
                for &r in &regions {
                    let params = self.f.regions[r].params.clone();
                    let params = self.typed_defs(&params);
                    let _ = write!(self.out, " body({params}) {{");
                }
                self.end_line(start, data.span);
                for &r in &regions {
                    self.region_ops(r, depth + 1);
                }
                self.indent(depth);
                self.out.push_str("}\n");
                return;
            }
            kind => {
                self.out.push_str(&kind.name());
                let attrs = match kind {
                    OpKind::TupleGet(i) => Some(i.to_string()),
                    OpKind::StrOf(spec) if !spec.is_empty() => Some(quote(spec)),
                    OpKind::Raise(class) | OpKind::Check(class) => Some(func_name(class)),
                    OpKind::Guard { expected, message } => {
                        Some(format!("{}, {}", const_text(expected), quote(message)))
                    }
                    _ => None,
                };
                if let Some(a) = attrs {
                    let _ = write!(self.out, "[{a}]");
                }
                let _ = write!(self.out, "({operands})");
            }
        }
        self.end_line(start, data.span);
    }
}
