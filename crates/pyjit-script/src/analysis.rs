//! Small syntactic analyses the lowering needs before it emits a loop or an `if`: which variables a
//! block assigns (the loop-carried candidates) and which exits (`return`, `break`, `continue`) it
//! contains.

use pyjit_syntax::ast::{Expr, ExprKind, Stmt, StmtKind};

/// Names assigned anywhere in `body` (nested blocks included), in first-assignment order.
pub fn assigned_names(body: &[Stmt]) -> Vec<String> {
    let mut out = Vec::new();
    for s in body {
        stmt_assigns(s, &mut out);
    }
    out
}

fn push(out: &mut Vec<String>, n: &str) {
    if !out.iter().any(|x| x == n) {
        out.push(n.to_string());
    }
}

fn target_names(t: &Expr, out: &mut Vec<String>) {
    match &t.kind {
        ExprKind::Name(n) => push(out, n),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            for i in items {
                target_names(i, out);
            }
        }
        ExprKind::Starred(inner) => target_names(inner, out),
        _ => {}
    }
}

fn stmt_assigns(s: &Stmt, out: &mut Vec<String>) {
    match &s.kind {
        StmtKind::Assign { targets, .. } => {
            for t in targets {
                target_names(t, out);
            }
        }
        StmtKind::AugAssign { target, .. } | StmtKind::AnnAssign { target, .. } => {
            target_names(target, out)
        }
        StmtKind::For {
            target,
            body,
            orelse,
            ..
        } => {
            target_names(target, out);
            for s in body.iter().chain(orelse) {
                stmt_assigns(s, out);
            }
        }
        StmtKind::While { body, orelse, .. } | StmtKind::If { body, orelse, .. } => {
            for s in body.iter().chain(orelse) {
                stmt_assigns(s, out);
            }
        }
        _ => {}
    }
}

/// Whether `body` contains a `return` (at any depth).
pub fn contains_return(body: &[Stmt]) -> bool {
    body.iter().any(|s| match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::If { body, orelse, .. }
        | StmtKind::While { body, orelse, .. }
        | StmtKind::For { body, orelse, .. } => contains_return(body) || contains_return(orelse),
        _ => false,
    })
}

/// Whether `body` contains a `break` (`want_break`) or `continue` that belongs to the loop whose
/// body this is (nested loops own their own).
pub fn contains_loop_exit(body: &[Stmt], want_break: bool) -> bool {
    body.iter().any(|s| match &s.kind {
        StmtKind::Break => want_break,
        StmtKind::Continue => !want_break,
        StmtKind::If { body, orelse, .. } => {
            contains_loop_exit(body, want_break) || contains_loop_exit(orelse, want_break)
        }
        _ => false,
    })
}

/// Whether a `while` test is the literal `True` (a loop that only ends by `break` or `return`).
pub fn is_true_literal(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Bool(true)) || matches!(e.kind, ExprKind::Int(v) if v != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pyjit_syntax::SourceFile;

    fn body(src: &str) -> Vec<Stmt> {
        let file = SourceFile::new("t.py", src);
        let m = pyjit_syntax::parse_module(&file).unwrap_or_else(|d| panic!("{:?}", d));
        match m.body.into_iter().next().map(|s| s.kind) {
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
