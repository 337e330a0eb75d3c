//! Run-time errors of interpreted programs: a Python exception class, a message, and the source
//! span of the op that failed, with the chain of call sites that led there.

use pyjit_syntax::{Diagnostic, SourceFile, Span};
use std::fmt;

/// The class the interpreter uses for a failed tracer guard: not a user-visible exception but a
/// request to re-trace (see [`InterpError::is_guard_failure`]).
pub const GUARD_FAILURE: &str = "GuardFailure";

/// The class of errors that mean the IR itself is malformed (a verifier bug or an IR built by
/// hand without verifying). Never produced by verified IR.
pub const INTERNAL_ERROR: &str = "InternalError";

/// One call site on the way to an error.
#[derive(Clone, Debug, PartialEq)]
pub struct CallSite {
    /// The calling function.
    pub function: String,
    /// The span of the `call` op.
    pub span: Span,
}

/// A Python exception raised by an interpreted program (or a runtime error inside a tensor op).
#[derive(Clone, Debug, PartialEq)]
pub struct InterpError {
    /// The Python exception class: `RuntimeError`, `IndexError`, `ZeroDivisionError`,
    /// `AssertionError`, `RecursionError`, the class named in a `raise` …
    pub kind: String,
    pub message: String,
    /// The span of the failing op.
    pub span: Span,
    /// The function containing the failing op.
    pub function: String,
    /// Call sites from the innermost caller outwards.
    pub call_stack: Vec<CallSite>,
    /// Whether the program raised it itself (`raise`, `assert`): then the message is the
    /// program's own text, not the runtime's wording of a failure.
    pub raised_by_program: bool,
}

impl InterpError {
    pub fn new(kind: impl Into<String>, message: impl Into<String>, span: Span) -> InterpError {
        InterpError {
            kind: kind.into(),
            message: message.into(),
            span,
            function: String::new(),
            call_stack: Vec::new(),
            raised_by_program: false,
        }
    }

    /// An exception raised by the program's own `raise`/`assert`.
    pub fn raised(kind: impl Into<String>, message: impl Into<String>, span: Span) -> InterpError {
        InterpError {
            raised_by_program: true,
            ..InterpError::new(kind, message, span)
        }
    }

    /// Whether this is a failed tracer guard (the caller should re-trace, not report).
    pub fn is_guard_failure(&self) -> bool {
        self.kind == GUARD_FAILURE
    }

    /// The diagnostic that reports the error at its source location: the exception line as
    /// the message, a caret under the failing op, and the call sites as secondary labels.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d = Diagnostic::error(self.to_string()).with_primary(self.span, "raised here");
        // Deep recursion repeats one call site hundreds of times: show each distinct run of call
        // sites once with its count, and at most MAX_SITES of them.
        const MAX_SITES: usize = 8;
        let mut runs: Vec<(&CallSite, usize)> = Vec::new();
        for site in &self.call_stack {
            match runs.last_mut() {
                Some((last, n)) if *last == site => *n += 1,
                _ => runs.push((site, 1)),
            }
        }
        for (site, n) in runs.iter().take(MAX_SITES) {
            let times = if *n > 1 {
                format!(" ({n} times)")
            } else {
                String::new()
            };
            let from = if site.function.is_empty() {
                "called from here".to_string()
            } else {
                format!("called from `{}`", site.function)
            };
            d = d.with_secondary(site.span, format!("{from}{times}"));
        }
        if runs.len() > MAX_SITES {
            d = d.with_note(format!(
                "{} more call sites not shown",
                runs[MAX_SITES..].iter().map(|(_, n)| n).sum::<usize>()
            ));
        }
        d
    }

    /// The rendered diagnostic (`error: ...`, `--> file:line:col`, source line, caret).
    pub fn render(&self, file: &SourceFile) -> String {
        self.to_diagnostic().render(file)
    }
}

impl fmt::Display for InterpError {
    /// `Kind: message`, the last line of a Python traceback (`AssertionError` alone when the
    /// message is empty, as Python prints it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.kind)
        } else {
            write!(f, "{}: {}", self.kind, self.message)
        }
    }
}

impl std::error::Error for InterpError {}
