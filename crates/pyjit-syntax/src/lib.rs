//! The syntax layer of pyjit: source text to an AST with byte spans.
//!
//! It holds the logos lexer, the layer that turns indentation into `INDENT`/`DEDENT`/`NEWLINE`,
//! the lalrpop grammar, the AST, the source map (byte offset ↔ line:col), the unparser, and the one
//! [`Diagnostic`] type that every later layer reports errors with.
//!
//! This layer must never panic on any input, never overflow the stack on deep nesting, and never
//! decide what the compiler accepts: it parses a wide Python so later layers can name what they
//! reject.

pub mod ast;
pub mod diagnostic;
mod render;
pub mod span;

pub use diagnostic::{Diagnostic, Label, Severity};
pub use span::{LineCol, SourceFile, Span};
