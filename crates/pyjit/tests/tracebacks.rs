//! Run-time errors keep their call stack at every optimization level on both backends: the
//! inliner records the frames it removes, and the traceback names the user's functions (never
//! a specialization's `NAME.specialized`).

use pyjit::opt::manager::{OptLevel, PipelineConfig};
use pyjit::{Backend, CallError, Options, Program, SourceFile, Value};

const SRC: &str = "\
def inner(a: int, b: int) -> int:
    return a // b


def middle(a: int, b: int) -> int:
    if a > 100:
        return a
    return inner(a, b) + 1


def outer(a: int, b: int) -> int:
    return middle(a, b) * 2
";

const TRACEBACK: &str = "\
Traceback (most recent call last):
  File \"stack.py\", line 12, in outer
    return middle(a, b) * 2
           ^^^^^^^^^^^^
  File \"stack.py\", line 8, in middle
    return inner(a, b) + 1
           ^^^^^^^^^^^
  File \"stack.py\", line 2, in inner
    return a // b
           ^^^^^^
ZeroDivisionError: integer division or modulo by zero
";

#[test]
fn every_level_and_backend_keeps_the_frames() {
    for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
        for backend in [Backend::Interp, Backend::Native] {
            let options = Options {
                backend,
                opt: PipelineConfig::for_level(level),
                ..Options::default()
            };
            let p = Program::compile_with(SourceFile::new("stack.py", SRC), options).unwrap();
            let e = match p.call("outer", vec![Value::Int(1), Value::Int(0)]) {
                Err(CallError::Run(e)) => e,
                other => panic!("{other:?}"),
            };
            let what = format!("{level} {}", backend.name());
            assert_eq!(e.traceback(), TRACEBACK, "{what}");
            assert_eq!(e.error.function, "inner", "{what}");
            let callers: Vec<&str> = e.call_stack().iter().map(|c| c.function.as_str()).collect();
            assert_eq!(callers, ["middle", "outer"], "{what}");
            let rendered = e.render();
            assert!(rendered.starts_with(TRACEBACK), "{what}: {rendered}");
            assert!(!rendered.contains(".specialized"), "{what}: {rendered}");
            assert!(rendered.contains("stack.py:2:12"), "{what}: {rendered}");
        }
    }
}

#[test]
fn inlining_really_happened_at_o2() {
    // The frames above are not just the calls that stayed: at -O2 `inner` and `middle` are
    // inlined into the specialization of `outer`.
    let options = Options {
        opt: PipelineConfig::for_level(OptLevel::O2),
        ..Options::default()
    };
    let p = Program::compile_with(SourceFile::new("stack.py", SRC), options).unwrap();
    let (m, id, _) = p
        .specialize_optimized("outer", &[Value::Int(1), Value::Int(0)])
        .unwrap();
    let ir = pyjit::ir::print_function(&m, id);
    assert!(!ir.contains("call @"), "{ir}");
    assert_eq!(m.func(id).inline_sites.len(), 2, "{ir}");
}

#[test]
fn deep_recursion_is_shortened_like_python() {
    let src = "def r(n: int) -> int:\n    return r(n + 1)\n";
    let p = Program::compile(SourceFile::new("rec.py", src)).unwrap();
    let e = match p.call("r", vec![Value::Int(0)]) {
        Err(CallError::Run(e)) => e,
        other => panic!("{other:?}"),
    };
    let tb = e.traceback();
    assert!(tb.contains("  [Previous line repeated "), "{tb}");
    assert!(tb.lines().count() < 30, "{tb}");
    assert!(
        tb.ends_with(
            "RecursionError: maximum recursion depth exceeded while calling a Python object\n"
        ),
        "{tb}"
    );
}
