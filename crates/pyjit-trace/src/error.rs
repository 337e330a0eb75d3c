//! Errors of eagerly evaluated (and traced) programs: a Python exception class, a message and the
//! span of the construct that raised it.

use pyjit_syntax::{Diagnostic, SourceFile, Span};
use pyjit_value::ExcKind;
use std::fmt;

/// A Python exception raised while evaluating or tracing a function (`NameError`, `TypeError`,
/// `ZeroDivisionError`, `IndexError`, `AssertionError`, a runtime error of a tensor op …), or a
/// failure of the tracing machinery itself (class `TraceError`).
#[derive(Clone, Debug, PartialEq)]
pub struct TraceError {
    /// The Python exception class.
    pub kind: ExcKind,
    pub message: String,
    /// Where it was raised.
    pub span: Span,
    /// Whether the program raised it itself (`raise`, `assert`).
    pub raised_by_program: bool,
    /// Spans of the calls that led there, innermost first.
    pub call_stack: Vec<Span>,
    /// Raised by a tensor op (shape, index, dtype errors): whether it happens depends on data
    /// the trace does not guard, so a trace may not record it being caught.
    pub from_tensor_op: bool,
}

impl TraceError {
    pub fn new(kind: impl Into<ExcKind>, message: impl Into<String>, span: Span) -> TraceError {
        TraceError {
            kind: kind.into(),
            message: message.into(),
            span,
            raised_by_program: false,
            call_stack: Vec::new(),
            from_tensor_op: false,
        }
    }

    /// A location-free exception of Python's semantics (pyjit-value), raised at `span`.
    pub fn from_py(e: pyjit_value::PyErr, span: Span) -> TraceError {
        TraceError::new(e.kind, e.message, span)
    }

    /// Whether this is a failed guard (re-trace) rather than an exception.
    pub fn is_guard_failure(&self) -> bool {
        self.kind.is_guard_failure()
    }

    pub(crate) fn type_error(message: impl Into<String>, span: Span) -> TraceError {
        TraceError::new(ExcKind::TypeError, message, span)
    }

    /// `AttributeError: 'TYPE' object has no attribute 'NAME'`.
    pub(crate) fn no_attribute(type_name: &str, name: &str, span: Span) -> TraceError {
        TraceError::new(
            ExcKind::AttributeError,
            format!("'{type_name}' object has no attribute '{name}'"),
            span,
        )
    }

    /// `AttributeError: module 'MODULE' has no attribute 'NAME'`.
    pub(crate) fn no_module_attribute(module: &str, name: &str, span: Span) -> TraceError {
        TraceError::new(
            ExcKind::AttributeError,
            format!("module '{module}' has no attribute '{name}'"),
            span,
        )
    }

    /// An error of the tracer itself (an unsupported construct or value), not of the program.
    pub fn unsupported(message: impl Into<String>, span: Span) -> TraceError {
        TraceError::new(ExcKind::tracer(), message, span)
    }

    /// The diagnostic pointing at the raising construct, with call sites as secondary labels.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d = Diagnostic::error(self.to_string()).with_primary(self.span, "raised here");
        // Like Python's "[Previous line repeated N more times]": one label per distinct call
        // site in a run, and at most a few sites.
        let mut i = 0;
        let mut shown = 0;
        while i < self.call_stack.len() {
            let s = self.call_stack[i];
            let run = self.call_stack[i..].iter().take_while(|x| **x == s).count();
            if shown < 8 {
                let msg = if run > 1 {
                    format!("called from here ({run} times in a row)")
                } else {
                    "called from here".to_string()
                };
                d = d.with_secondary(s, msg);
                shown += 1;
            }
            i += run;
        }
        if shown == 8 && i > 0 {
            d = d.with_note("older call sites omitted");
        }
        d
    }

    pub fn render(&self, file: &SourceFile) -> String {
        self.to_diagnostic().render(file)
    }
}

impl fmt::Display for TraceError {
    /// Python's last traceback line: `Class: message` (just `Class` for an empty message).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            f.write_str(self.kind.name())
        } else {
            write!(f, "{}: {}", self.kind, self.message)
        }
    }
}

impl std::error::Error for TraceError {}

/// A runtime (tensor op) error as the Python exception PyTorch raises.
pub(crate) fn from_runtime(e: pyjit_runtime::RuntimeError, span: Span) -> TraceError {
    TraceError {
        from_tensor_op: true,
        ..TraceError::new(e.kind(), e.to_string(), span)
    }
}

pub(crate) fn from_interp(e: pyjit_interp::InterpError) -> TraceError {
    TraceError::from(e)
}

/// The interpreter's (or native code's) run-time error as the tracer's: the same class,
/// message, location and call stack.
impl From<pyjit_interp::InterpError> for TraceError {
    fn from(e: pyjit_interp::InterpError) -> TraceError {
        TraceError {
            kind: e.kind,
            message: e.message,
            span: e.span,
            raised_by_program: e.raised_by_program,
            call_stack: e.call_stack.into_iter().map(|c| c.span).collect(),
            from_tensor_op: false,
        }
    }
}
