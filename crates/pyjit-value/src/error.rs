//! Exceptions: the Python exception classes as one typed enum ([`ExcKind`]), a location-free
//! exception ([`PyErr`]: class and message, what scalar semantics raise) and the located run-time
//! error every backend reports ([`InterpError`]: an exception plus the span of the failing op and
//! the chain of call sites that led there).

use pyjit_syntax::{Diagnostic, SourceFile, Span};
use std::fmt;
use std::sync::Arc;

/// The class of an exception. The built-in classes the language raises are variants; a program's
/// `raise Name(...)` of any other class name is [`ExcKind::Other`]. Two variants are not Python
/// exceptions: [`ExcKind::GuardFailure`] (a failed tracer guard, a request to re-trace) and
/// [`ExcKind::Internal`] (malformed IR, never produced by verified IR).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExcKind {
    Exception,
    ArithmeticError,
    AssertionError,
    AttributeError,
    IndexError,
    KeyError,
    LookupError,
    MemoryError,
    NameError,
    NotImplementedError,
    OSError,
    OverflowError,
    RecursionError,
    RuntimeError,
    StopIteration,
    TypeError,
    UnboundLocalError,
    ValueError,
    ZeroDivisionError,
    /// A class named by the program that is not one of the above.
    Other(Arc<str>),
    /// A failed tracer guard: not an exception but a request to re-trace.
    GuardFailure,
    /// The IR is malformed (a verifier bug or IR built by hand without verifying).
    Internal,
}

/// Every variant without a payload, for name lookup.
const NAMED: [ExcKind; 21] = [
    ExcKind::Exception,
    ExcKind::ArithmeticError,
    ExcKind::AssertionError,
    ExcKind::AttributeError,
    ExcKind::IndexError,
    ExcKind::KeyError,
    ExcKind::LookupError,
    ExcKind::MemoryError,
    ExcKind::NameError,
    ExcKind::NotImplementedError,
    ExcKind::OSError,
    ExcKind::OverflowError,
    ExcKind::RecursionError,
    ExcKind::RuntimeError,
    ExcKind::StopIteration,
    ExcKind::TypeError,
    ExcKind::UnboundLocalError,
    ExcKind::ValueError,
    ExcKind::ZeroDivisionError,
    ExcKind::GuardFailure,
    ExcKind::Internal,
];

impl ExcKind {
    /// The class name as Python prints it (`GuardFailure` and `InternalError` for the two
    /// non-exceptions).
    pub fn name(&self) -> &str {
        match self {
            ExcKind::Exception => "Exception",
            ExcKind::ArithmeticError => "ArithmeticError",
            ExcKind::AssertionError => "AssertionError",
            ExcKind::AttributeError => "AttributeError",
            ExcKind::IndexError => "IndexError",
            ExcKind::KeyError => "KeyError",
            ExcKind::LookupError => "LookupError",
            ExcKind::MemoryError => "MemoryError",
            ExcKind::NameError => "NameError",
            ExcKind::NotImplementedError => "NotImplementedError",
            ExcKind::OSError => "OSError",
            ExcKind::OverflowError => "OverflowError",
            ExcKind::RecursionError => "RecursionError",
            ExcKind::RuntimeError => "RuntimeError",
            ExcKind::StopIteration => "StopIteration",
            ExcKind::TypeError => "TypeError",
            ExcKind::UnboundLocalError => "UnboundLocalError",
            ExcKind::ValueError => "ValueError",
            ExcKind::ZeroDivisionError => "ZeroDivisionError",
            ExcKind::Other(name) => name,
            ExcKind::GuardFailure => "GuardFailure",
            ExcKind::Internal => "InternalError",
        }
    }

    /// The class of a name (`raise ValueError(...)`); unknown names are [`ExcKind::Other`].
    pub fn from_name(name: &str) -> ExcKind {
        NAMED
            .iter()
            .find(|k| k.name() == name)
            .cloned()
            .unwrap_or_else(|| ExcKind::Other(Arc::from(name)))
    }

    /// The class of the tracer's own failures (an unsupported construct or value), not of the
    /// program: `TraceError`, as `torch.jit.trace`'s messages name it.
    pub fn tracer() -> ExcKind {
        ExcKind::Other(Arc::from("TraceError"))
    }

    /// Whether this is a failed tracer guard rather than an exception.
    pub fn is_guard_failure(&self) -> bool {
        *self == ExcKind::GuardFailure
    }

    /// The direct base class (CPython's hierarchy below `Exception`); `None` for `Exception` and
    /// the two non-exceptions.
    pub fn base(&self) -> Option<ExcKind> {
        use ExcKind::*;
        Some(match self {
            Exception | GuardFailure | Internal => return None,
            ZeroDivisionError | OverflowError => ArithmeticError,
            IndexError | KeyError => LookupError,
            RecursionError | NotImplementedError => RuntimeError,
            UnboundLocalError => NameError,
            _ => Exception,
        })
    }

    /// Whether `except handler:` catches this class (`BaseException` catches every exception;
    /// nothing catches a guard failure or an internal error).
    pub fn is_caught_by(&self, handler: &ExcKind) -> bool {
        if matches!(self, ExcKind::GuardFailure | ExcKind::Internal) {
            return false;
        }
        if *handler == "BaseException" {
            return true;
        }
        let mut k = Some(self.clone());
        while let Some(c) = k {
            if c == *handler {
                return true;
            }
            k = c.base();
        }
        false
    }
}

impl fmt::Display for ExcKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<pyjit_runtime::ErrorKind> for ExcKind {
    fn from(k: pyjit_runtime::ErrorKind) -> ExcKind {
        ExcKind::from_name(k.name())
    }
}

impl PartialEq<str> for ExcKind {
    fn eq(&self, other: &str) -> bool {
        self.name() == other
    }
}

impl PartialEq<&str> for ExcKind {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

impl PartialEq<String> for ExcKind {
    fn eq(&self, other: &String) -> bool {
        self.name() == other
    }
}

impl PartialEq<ExcKind> for &str {
    fn eq(&self, other: &ExcKind) -> bool {
        *self == other.name()
    }
}

/// An exception without a location: what Python's scalar and `math` semantics raise. The
/// backends attach the span of the op ([`InterpError::at`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PyErr {
    pub kind: ExcKind,
    pub message: String,
}

impl PyErr {
    pub fn new(kind: ExcKind, message: impl Into<String>) -> PyErr {
        PyErr {
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for PyErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        last_traceback_line(f, &self.kind, &self.message)
    }
}

/// `Kind: message`, the last line of a Python traceback (`AssertionError` alone when the
/// message is empty, as Python prints it).
fn last_traceback_line(f: &mut fmt::Formatter<'_>, kind: &ExcKind, message: &str) -> fmt::Result {
    if message.is_empty() {
        write!(f, "{kind}")
    } else {
        write!(f, "{kind}: {message}")
    }
}

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
    pub kind: ExcKind,
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
    pub fn new(kind: impl Into<ExcKind>, message: impl Into<String>, span: Span) -> InterpError {
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
    pub fn raised(kind: impl Into<ExcKind>, message: impl Into<String>, span: Span) -> InterpError {
        InterpError {
            raised_by_program: true,
            ..InterpError::new(kind, message, span)
        }
    }

    /// A location-free exception raised by the op at `span`.
    pub fn at(e: PyErr, span: Span) -> InterpError {
        InterpError::new(e.kind, e.message, span)
    }

    /// A malformed-IR error ([`ExcKind::Internal`]).
    pub fn internal(message: impl Into<String>, span: Span) -> InterpError {
        InterpError::new(ExcKind::Internal, message, span)
    }

    /// Puts back the frames inlining removed, for an error that op `op` of `f` raised
    /// (`called` when the op is a call whose callee raised: its call site was just pushed with
    /// `f`'s name, and names the function the call was written in instead).
    pub fn add_inline_frames(&mut self, f: &pyjit_ir::Function, op: pyjit_ir::Op, called: bool) {
        let (Some(innermost), frames) = f.inline_frames(op) else {
            return;
        };
        if called {
            if let Some(last) = self.call_stack.last_mut() {
                last.function = innermost.to_string();
            }
        } else {
            self.function = innermost.to_string();
        }
        self.call_stack
            .extend(frames.into_iter().map(|(function, span)| CallSite {
                function: function.to_string(),
                span,
            }));
    }

    /// Whether this is a failed tracer guard (the caller should re-trace, not report).
    pub fn is_guard_failure(&self) -> bool {
        self.kind.is_guard_failure()
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
    /// [`last_traceback_line`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        last_traceback_line(f, &self.kind, &self.message)
    }
}

impl std::error::Error for InterpError {}
