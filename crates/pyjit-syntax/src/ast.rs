//! The abstract syntax tree of (a large part of) Python, with a byte span on every node.
//!
//! The tree is deliberately wider than the language the compiler accepts: constructs that scripting
//! rejects (classes, `with`, `try`, comprehensions, `lambda`, …) still parse into it, so that later
//! layers can name them in a precise diagnostic, and so that the tracer's eager evaluator can run
//! them. Node shapes follow CPython's `ast` module where that is convenient.

use crate::span::Span;

/// A name with its span (function names, parameters, attributes, import aliases).
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub body: Vec<Stmt>,
    pub span: Span,
}

impl Drop for Module {
    /// Takes nested blocks apart with a work list before they are dropped: the compiler's drop
    /// glue recurses once per nesting level, and an `elif` chain of 100,000 branches nests that
    /// deep (no indentation limit applies to it).
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.body);
        while let Some(mut s) = stack.pop() {
            for block in s.kind.blocks_mut() {
                stack.append(block);
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

impl StmtKind {
    /// The statement's nested blocks in source order: a `def`'s or `class`'s body; the body and
    /// `else` block of `for`, `while` and `if` (an `elif` is an `if` in the `else` block); a
    /// `with` body; a `try` body, its handlers' bodies, its `else` and `finally` blocks.
    pub(crate) fn blocks_mut(&mut self) -> Vec<&mut Vec<Stmt>> {
        match self {
            StmtKind::FunctionDef(def) => vec![&mut def.body],
            StmtKind::ClassDef(def) => vec![&mut def.body],
            StmtKind::For(For { body, orelse, .. })
            | StmtKind::While { body, orelse, .. }
            | StmtKind::If { body, orelse, .. } => vec![body, orelse],
            StmtKind::With { body, .. } => vec![body],
            StmtKind::Try(t) => {
                let mut blocks = vec![&mut t.body];
                blocks.extend(t.handlers.iter_mut().map(|h| &mut h.body));
                blocks.push(&mut t.orelse);
                blocks.push(&mut t.finalbody);
                blocks
            }
            _ => Vec::new(),
        }
    }
}

/// A `# type: ...` comment attached to a `def` (the line after the header) or an assignment.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeComment {
    /// The text after `type:`, trimmed.
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    FunctionDef(Box<FunctionDef>),
    ClassDef(Box<ClassDef>),
    Return(Option<Expr>),
    /// `a = b = value`: every target, in source order.
    Assign {
        targets: Vec<Expr>,
        value: Expr,
        type_comment: Option<TypeComment>,
    },
    /// `target op= value`; `op` is the binary operator (`+=` is `BinOp::Add`).
    AugAssign {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    /// `target: annotation [= value]`
    AnnAssign {
        target: Expr,
        annotation: Expr,
        value: Option<Expr>,
    },
    For(For),
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `elif` chains are nested `If`s in `orelse`, as in CPython.
    If {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    With {
        items: Vec<WithItem>,
        body: Vec<Stmt>,
        is_async: bool,
    },
    Raise {
        exc: Option<Expr>,
        cause: Option<Expr>,
    },
    Try(Try),
    Assert {
        test: Expr,
        msg: Option<Expr>,
    },
    /// `import a.b as c, d`
    Import(Vec<Alias>),
    /// `from ..a.b import c as d, e` (`module` is `None` for `from . import x`; `*` is an alias named `*`)
    ImportFrom {
        module: Option<Ident>,
        names: Vec<Alias>,
        level: u32,
    },
    Global(Vec<Ident>),
    Nonlocal(Vec<Ident>),
    Del(Vec<Expr>),
    Expr(Expr),
    Pass,
    Break,
    Continue,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub name: Ident,
    pub params: Parameters,
    pub returns: Option<Expr>,
    pub body: Vec<Stmt>,
    pub decorators: Vec<Expr>,
    pub is_async: bool,
    /// A `# type: (int, Tensor) -> Tensor` comment on the line after the header.
    pub type_comment: Option<TypeComment>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    pub name: Ident,
    pub bases: Vec<Expr>,
    pub keywords: Vec<Keyword>,
    pub body: Vec<Stmt>,
    pub decorators: Vec<Expr>,
}

/// A parameter list, split as Python does: `def f(a, /, b, *args, c, **kw)`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Parameters {
    pub posonly: Vec<Param>,
    pub args: Vec<Param>,
    pub vararg: Option<Param>,
    pub kwonly: Vec<Param>,
    pub kwarg: Option<Param>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub annotation: Option<Expr>,
    pub default: Option<Expr>,
    pub span: Span,
}

/// `[async] for target in iter: body [else: orelse]`
#[derive(Clone, Debug, PartialEq)]
pub struct For {
    pub target: Expr,
    pub iter: Expr,
    pub body: Vec<Stmt>,
    pub orelse: Vec<Stmt>,
    pub is_async: bool,
}

/// `try: body` with its `except` handlers, `else: orelse` and `finally: finalbody` (each may be
/// empty, but not the handlers and `finally` both).
#[derive(Clone, Debug, PartialEq)]
pub struct Try {
    pub body: Vec<Stmt>,
    pub handlers: Vec<ExceptHandler>,
    pub orelse: Vec<Stmt>,
    pub finalbody: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WithItem {
    pub context: Expr,
    pub vars: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExceptHandler {
    pub typ: Option<Expr>,
    pub name: Option<Ident>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// `name as asname` in an import; `name` may be dotted (`torch.nn.functional`).
#[derive(Clone, Debug, PartialEq)]
pub struct Alias {
    pub name: Ident,
    pub asname: Option<Ident>,
}

/// The names of an import as written: `a, b.c as d` (what `dump` and `unparse` print).
pub(crate) fn aliases_text(names: &[Alias]) -> String {
    names
        .iter()
        .map(|a| match &a.asname {
            Some(s) => format!("{} as {}", a.name.name, s.name),
            None => a.name.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What follows `from` in an `ImportFrom`: `..pkg import a, b as c`.
pub(crate) fn import_from_text(module: &Option<Ident>, level: u32, names: &[Alias]) -> String {
    let m = module.as_ref().map(|m| m.name.as_str()).unwrap_or("");
    let dots = ".".repeat(level as usize);
    format!("{dots}{m} import {}", aliases_text(names))
}

/// Names separated by `, ` (`global a, b`).
pub(crate) fn idents_text(names: &[Ident]) -> String {
    names
        .iter()
        .map(|n| n.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Name(String),
    /// Integer literal value (Python ints are unbounded; literals beyond `i128` are a lex error).
    Int(i128),
    Float(f64),
    /// Imaginary literal `2j` (value of the imaginary part).
    Imag(f64),
    /// A string literal after escape processing; adjacent literals are concatenated.
    Str(String),
    Bytes(Vec<u8>),
    /// An f-string (adjacent plain strings merged into its parts).
    FString(Vec<FStringPart>),
    Bool(bool),
    None,
    /// `...`
    Ellipsis,
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Set(Vec<Expr>),
    /// `{k: v, **m}`: a `None` key is a `**` spread.
    Dict(Vec<(Option<Expr>, Expr)>),
    /// `*x` in a call, display or assignment target.
    Starred(Box<Expr>),
    BinOp {
        left: Box<Expr>,
        op: BinOp,
        right: Box<Expr>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    /// `a and b and c` is one node with three values.
    BoolOp {
        op: BoolOp,
        values: Vec<Expr>,
    },
    /// `a < b <= c`: `left` then `(op, right)` pairs.
    Compare {
        left: Box<Expr>,
        ops: Vec<(CmpOp, Expr)>,
    },
    /// `body if test else orelse`
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        keywords: Vec<Keyword>,
    },
    Attribute {
        value: Box<Expr>,
        attr: Ident,
    },
    /// `value[index]`; several indices (`x[1, :]`) are a `Tuple` index.
    Subscript {
        value: Box<Expr>,
        index: Box<Expr>,
    },
    /// `lower:upper:step`, only inside a subscript.
    Slice {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    Lambda {
        params: Box<Parameters>,
        body: Box<Expr>,
    },
    ListComp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    SetComp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    DictComp {
        key: Box<Expr>,
        value: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    GeneratorExp {
        elt: Box<Expr>,
        generators: Vec<Comprehension>,
    },
    /// `target := value`
    NamedExpr {
        target: Box<Expr>,
        value: Box<Expr>,
    },
    Await(Box<Expr>),
    Yield(Option<Box<Expr>>),
    YieldFrom(Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum FStringPart {
    Literal(String),
    Expr(FormattedValue),
}

/// A replacement field of an f-string: `{expr=!conversion:format_spec}`.
#[derive(Clone, Debug, PartialEq)]
pub struct FormattedValue {
    pub expr: Box<Expr>,
    /// `!r`, `!s`, `!a`
    pub conversion: Option<char>,
    /// The format spec after `:`, itself possibly containing replacement fields.
    pub format_spec: Vec<FStringPart>,
    /// `f"{x=}"`
    pub debug: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Keyword {
    /// `None` for `**kwargs`.
    pub arg: Option<Ident>,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    pub target: Expr,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
    pub is_async: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    MatMul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    BitOr,
    BitXor,
    BitAnd,
}

impl BinOp {
    /// The operator as written in Python (`+`, `//`, `@`, …).
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::MatMul => "@",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::BitAnd => "&",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `not`
    Not,
    /// unary `-`
    Neg,
    /// unary `+`
    Pos,
    /// `~`
    Invert,
}

impl UnaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Not => "not",
            UnaryOp::Neg => "-",
            UnaryOp::Pos => "+",
            UnaryOp::Invert => "~",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    Is,
    IsNot,
    In,
    NotIn,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// The dotted name this expression spells, if it is one (`torch.nn.functional.relu`).
    pub fn dotted_name(&self) -> Option<String> {
        match &self.kind {
            ExprKind::Name(n) => Some(n.clone()),
            ExprKind::Attribute { value, attr } => {
                let mut base = value.dotted_name()?;
                base.push('.');
                base.push_str(&attr.name);
                Some(base)
            }
            _ => None,
        }
    }
}
