//! The one diagnostic type every layer reports with (syntax, type and run-time errors), rendered
//! with codespan-reporting as `file:line:col`, the source line and a caret range.

use crate::span::{SourceFile, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// A span with a message; the primary label is where the caret goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub span: Span,
    pub message: String,
    pub primary: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub labels: Vec<Label>,
    /// Free-standing notes (`= note: ...`).
    pub notes: Vec<String>,
    /// A suggested fix (`= help: ...`).
    pub help: Option<String>,
    /// A stand-in for an error reported elsewhere (a pass's control flow: a callee whose return
    /// type could not be inferred, a use of a variable its failed statement left undefined):
    /// the caller drops it instead of reporting it ([`Diagnostic::reported_elsewhere`]).
    pub reported_elsewhere: bool,
}

impl Diagnostic {
    pub fn error(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
            reported_elsewhere: false,
        }
    }

    /// The stand-in for an error already reported elsewhere; callers filter it out before
    /// reporting (see the field `reported_elsewhere`).
    pub fn reported_elsewhere() -> Diagnostic {
        Diagnostic {
            reported_elsewhere: true,
            ..Diagnostic::error("an error reported elsewhere")
        }
    }

    pub fn warning(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(message)
        }
    }

    /// Adds the primary label (the caret).
    pub fn with_primary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: true,
        });
        self
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// The span of the primary label, if any.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span)
    }

    /// Renders as plain text (no colour), the form snapshot tests compare.
    pub fn render(&self, file: &SourceFile) -> String {
        crate::render::render_plain(self, file)
    }
}
