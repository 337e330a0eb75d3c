//! Small syntactic analyses the lowering needs before it emits a loop or an `if`: which variables a
//! block assigns (the loop-carried candidates) and which exits (`return`, `break`, `continue`) it
//! contains.

use pyjit_syntax::ast::{Expr, ExprKind, For, Stmt, StmtKind};
use std::collections::HashSet;

/// Names assigned anywhere in `body` (nested blocks included), in first-assignment order.
///
/// Walks with an explicit stack and a set: an `elif` chain nests one `If` per branch, and a
/// long function assigns many names, so neither recursion nor a list search would do.
pub(crate) fn assigned_names(body: &[Stmt]) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut stack: Vec<&Stmt> = body.iter().rev().collect();
    while let Some(s) = stack.pop() {
        match &s.kind {
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    target_names(t, &mut seen, &mut out);
                }
            }
            StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => {
                target_names(target, &mut seen, &mut out)
            }
            StmtKind::For(For {
                target,
                body,
                orelse,
                ..
            }) => {
                target_names(target, &mut seen, &mut out);
                stack.extend(body.iter().chain(orelse).rev());
            }
            StmtKind::While { body, orelse, .. } | StmtKind::If { body, orelse, .. } => {
                stack.extend(body.iter().chain(orelse).rev());
            }
            _ => {}
        }
    }
    out
}

/// Target nesting is bounded by the parser's bracket limit, so this may recurse.
fn target_names<'a>(t: &'a Expr, seen: &mut HashSet<&'a str>, out: &mut Vec<String>) {
    match &t.kind {
        ExprKind::Name(n) if seen.insert(n.as_str()) => out.push(n.clone()),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for i in items {
                target_names(i, seen, out);
            }
        }
        ExprKind::Starred(inner) => target_names(inner, seen, out),
        _ => {}
    }
}

/// Whether `body` contains a `return` (at any depth).
pub(crate) fn contains_return(body: &[Stmt]) -> bool {
    let mut stack: Vec<&Stmt> = body.iter().collect();
    while let Some(s) = stack.pop() {
        match &s.kind {
            StmtKind::Return(_) => return true,
            StmtKind::If { body, orelse, .. }
            | StmtKind::While { body, orelse, .. }
            | StmtKind::For(For { body, orelse, .. }) => stack.extend(body.iter().chain(orelse)),
            _ => {}
        }
    }
    false
}

/// Whether `body` contains a `break` (`want_break`) or `continue` that belongs to the loop whose
/// body this is (nested loops own their own).
pub(crate) fn contains_loop_exit(body: &[Stmt], want_break: bool) -> bool {
    let mut stack: Vec<&Stmt> = body.iter().collect();
    while let Some(s) = stack.pop() {
        match &s.kind {
            StmtKind::Break if want_break => return true,
            StmtKind::Continue if !want_break => return true,
            StmtKind::If { body, orelse, .. } => stack.extend(body.iter().chain(orelse)),
            _ => {}
        }
    }
    false
}

/// Whether a `while` test is the literal `True` (a loop that only ends by `break` or `return`).
pub(crate) fn is_true_literal(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Bool(true)) || matches!(e.kind, ExprKind::Int(v) if v != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pyjit_syntax::SourceFile;

    fn body(src: &str) -> Vec<Stmt> {
        let file = SourceFile::new("t.py", src);
        let mut m = pyjit_syntax::parse_module(&file).unwrap_or_else(|d| panic!("{:?}", d));
        match std::mem::take(&mut m.body)
            .into_iter()
            .next()
            .map(|s| s.kind)
        {
            Some(StmtKind::FunctionDef(def)) => def.body,
            _ => panic!("expected a def"),
        }
    }

    #[test]
    fn assigned_names_in_order_and_nested() {
        let b = body(
            "def f(x):\n    a = 1\n    for i in range(3):\n        b, (c, a) = 1, (2, 3)\n    while x:\n        d += 1\n    return a\n",
        );
        assert_eq!(assigned_names(&b), vec!["a", "i", "b", "c", "d"]);
    }

    #[test]
    fn exits_belong_to_their_loop() {
        let b = body("def f(x):\n    if x:\n        break\n    for i in x:\n        continue\n");
        assert!(contains_loop_exit(&b, true));
        assert!(
            !contains_loop_exit(&b, false),
            "the continue belongs to the inner loop"
        );
        assert!(!contains_return(&b));
        let b = body("def f(x):\n    while x:\n        if x:\n            return 1\n");
        assert!(contains_return(&b));
    }
}
