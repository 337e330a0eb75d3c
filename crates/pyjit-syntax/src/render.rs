//! Rendering of [`Diagnostic`]s through codespan-reporting.

use crate::diagnostic::{Diagnostic, Severity};
use crate::span::SourceFile;
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;

fn to_codespan(d: &Diagnostic, file: &SourceFile) -> cs::Diagnostic<()> {
    let severity = match d.severity {
        Severity::Error => cs::Severity::Error,
        Severity::Warning => cs::Severity::Warning,
        Severity::Note => cs::Severity::Note,
    };
    let len = file.text.len();
    let labels = d
        .labels
        .iter()
        .map(|l| {
            let start = (l.span.start as usize).min(len);
            let end = (l.span.end as usize).clamp(start, len);
            let style = if l.primary {
                cs::LabelStyle::Primary
            } else {
                cs::LabelStyle::Secondary
            };
            cs::Label::new(style, (), start..end).with_message(l.message.clone())
        })
        .collect();
    let mut notes = d.notes.clone();
    if let Some(h) = &d.help {
        notes.push(format!("help: {h}"));
    }
    cs::Diagnostic::new(severity)
        .with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(notes)
}

/// Plain-text rendering (no ANSI colour codes).
pub(crate) fn render_plain(d: &Diagnostic, file: &SourceFile) -> String {
    let files = SimpleFile::new(file.name.as_str(), file.text.as_str());
    let config = term::Config::default();
    let mut out = String::new();
    let cd = to_codespan(d, file);
    if term::emit_to_string(&mut out, &config, &files, &cd).is_err() {
        // Rendering only fails on spans outside the file, which to_codespan clamps; keep a fallback
        // that still names the location rather than losing the message.
        let lc = d
            .primary_span()
            .map(|s| file.location(s))
            .unwrap_or_default();
        out = format!("error: {}\n  --> {}\n", d.message, lc);
    }
    out
}
