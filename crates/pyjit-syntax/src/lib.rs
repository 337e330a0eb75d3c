//! The syntax layer of pyjit: source text to an AST with byte spans.
//!
//! It holds the logos lexer, the layer that turns indentation into `INDENT`/`DEDENT`/`NEWLINE`,
//! the lalrpop grammar, the AST, the source map (byte offset ↔ line:col), the unparser, and the one
//! [`Diagnostic`] type that every later layer reports errors with.
//!
//! This layer must never panic on any input, never overflow the stack on deep nesting, and never
//! decide what the compiler accepts: it parses a wide Python so later layers can name what they
//! reject.
//!
//! Entry points: [`parse_module`], [`parse_expr`], [`unparse`], [`dump`], and
//! [`strip_spans`] for comparing trees regardless of positions.
//!
//! Pipeline: [`lexer::RawTok`] (logos) → [`lexer::Layout`] (indentation, brackets, literal
//! decoding, f-string fields parsed by the same grammar, nesting limits) → the lalrpop grammar
//! (`grammar.lalrpop`, checks it cannot express in `actions.rs`) → type comments attached to the
//! tree. A syntax error is re-explained from the full token list (`parser.rs`) in words a Python
//! user knows; the first error stops parsing, as in CPython.
//!
//! Limits that keep every recursive walk of a tree shallow: [`MAX_BRACKET_DEPTH`] open brackets,
//! [`MAX_INDENT_DEPTH`] nested blocks and [`MAX_EXPR_NESTING`] operators deep per statement.
//! Beyond them the input gets a "too deeply nested" diagnostic, never a stack overflow.

mod actions;
pub mod ast;
pub mod diagnostic;
mod dump;
pub mod lexer;
mod normalize;
mod parser;
pub mod quote;
mod render;
pub mod span;
pub mod token;
mod unparse;

pub use diagnostic::{Diagnostic, Label, Severity};
pub use dump::{dump, dump_expr};
pub use lexer::{MAX_BRACKET_DEPTH, MAX_EXPR_NESTING, MAX_INDENT_DEPTH};
pub use normalize::{strip_spans, strip_spans_expr};
pub use span::{LineCol, SourceFile, Span};
pub use unparse::{unparse, unparse_expr};

/// Runs `f` with at least 64 KiB of stack left, growing it onto the heap (1 MiB at a time) if
/// needed. Every recursive walk whose depth follows the user's nesting (the AST here, regions in
/// the IR layers: a 100,000-branch `elif` chain nests that deep) calls it once per level, so no
/// input overflows the native stack, whatever thread runs the compiler.
pub fn grow<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, f)
}

/// Parses a whole file into a module. On failure, the diagnostics (currently the first syntax
/// error) each carry a primary span inside the file.
pub fn parse_module(file: &SourceFile) -> Result<ast::Module, Vec<Diagnostic>> {
    parser::parse_module(file)
}

/// Parses the whole of `file` as one expression (top-level commas make a tuple; newlines are
/// insignificant, as inside brackets).
pub fn parse_expr(file: &SourceFile) -> Result<ast::Expr, Vec<Diagnostic>> {
    parser::parse_expr_range(&file.text, 0..file.text.len(), MAX_EXPR_NESTING, 0)
}
