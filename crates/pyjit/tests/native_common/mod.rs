//! Shared helpers: script Python source, run it on both backends.
#![allow(dead_code)]

use pyjit_codegen::{NativeModule, Options, Value};
use pyjit_interp::{Config, InterpError, Interpreter};
use pyjit_ir::Module;
use pyjit_syntax::SourceFile;

pub fn script(src: &str) -> Module {
    let file = SourceFile::new("test.py", src);
    match pyjit_script::script_source(&file) {
        Ok(m) => m,
        Err(d) => panic!(
            "script failed: {}",
            d.iter()
                .map(|d| d.render(&file))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

pub fn native(m: &Module) -> NativeModule {
    NativeModule::compile(m, &Options::default()).unwrap_or_else(|e| panic!("compile: {e}"))
}

/// Runs `name` on the interpreter, returning the result and what it printed.
pub fn interp(m: &Module, name: &str, args: &[Value]) -> (Result<Value, InterpError>, String) {
    let id = m.function_by_name(name).expect("function");
    let mut out = Vec::new();
    let r = Interpreter::new(m, Config::default(), &mut out).call(id, args.to_vec());
    (r, String::from_utf8_lossy(&out).into_owned())
}

pub fn run_native(
    nm: &NativeModule,
    name: &str,
    args: &[Value],
) -> (Result<Value, InterpError>, String) {
    let f = nm.function(name).expect("function");
    let mut out = Vec::new();
    let r = f.call_with_output(args, &mut out);
    (r, String::from_utf8_lossy(&out).into_owned())
}

/// Structural equality of values; floats bit for bit (NaN payloads aside), tensors by dtype,
/// shape and elements.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::None, Value::None) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::DType(x), Value::DType(y)) => x == y,
        (Value::Tuple(x), Value::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| same(a, b))
        }
        (Value::List(x), Value::List(y)) => {
            let (x, y) = (x.snapshot(), y.snapshot());
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| same(a, b))
        }
        (Value::Tensor(x), Value::Tensor(y)) => {
            x.dtype() == y.dtype()
                && x.shape() == y.shape()
                && format!("{:?}", x.to_vec::<f64>()) == format!("{:?}", y.to_vec::<f64>())
        }
        _ => false,
    }
}

/// Asserts that both backends agree on `name(args)`: same value (or same error: class,
/// message, span, call stack) and same printed output.
pub fn check_same(m: &Module, nm: &NativeModule, name: &str, args: &[Value]) {
    check_same_fresh(m, nm, name, || args.to_vec())
}

/// As [`check_same`], with fresh arguments for each backend (in-place ops mutate tensors).
pub fn check_same_fresh(m: &Module, nm: &NativeModule, name: &str, args: impl Fn() -> Vec<Value>) {
    let (ri, oi) = interp(m, name, &args());
    let args = args();
    let (rn, on) = run_native(nm, name, &args);
    assert_eq!(oi, on, "printed output differs for {name}{args:?}");
    match (&ri, &rn) {
        (Ok(a), Ok(b)) => assert!(same(a, b), "{name}{args:?}: interp {a:?} != native {b:?}"),
        (Err(a), Err(b)) => assert_eq!(a, b, "{name}{args:?}: errors differ"),
        _ => panic!("{name}{args:?}: interp {ri:?} vs native {rn:?}"),
    }
}

/// Held by a test that compares [`live_references`] before and after a call: a test binary's
/// tests run in parallel threads, and the counters are global.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static COUNTERS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    COUNTERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The live tensor handles of the runtime's C ABI and the live objects native code allocated:
/// back at their values from before a call once it released everything it made.
pub fn live_references() -> (isize, isize) {
    (
        pyjit_runtime::abi::live_tensor_count(),
        pyjit_codegen::live_object_count(),
    )
}

/// The property tests' generators' random choices (xorshift64*, a seed that is odd).
pub struct Rng(pub u64);

impl Rng {
    /// A generator for `seed` (mixed by splitmix64's finalizer, so that nearby seeds give
    /// unrelated programs).
    pub fn seeded(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    /// One of `0 .. n`.
    pub fn pick(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }

    /// One of `xs`.
    pub fn of<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.pick(xs.len())]
    }
}

/// Sum of Collatz stopping times (peerbench's scalar_loop, `tests/programs/scalar_loop.py`):
/// a `while` whose `if` both of whose arms are computed and selected.
pub const COLLATZ: &str = include_str!("../../../../tests/programs/scalar_loop.py");

// ---- differential testing of generated programs (native_vector_loops, native_spmd_loops) ----

/// `src`'s function `f` compiled for `args` with `backend` at `level`.
pub fn compile(
    src: &str,
    backend: pyjit::Backend,
    level: pyjit::opt::manager::OptLevel,
    args: &[Value],
) -> pyjit::Program {
    let options = pyjit::Options {
        backend,
        ..pyjit::Options::at_level(level)
    };
    pyjit::Program::compile_for_call(
        pyjit::SourceFile::new("gen.py", src),
        options,
        Some("f"),
        args,
    )
    .unwrap_or_else(|d| panic!("program did not compile:\n{src}\n{d:?}"))
}

/// Where `got` first differs from `want` (` at result[1][7]: bits … vs …`), or "".
pub fn locate(want: &Value, got: &Value, path: &str) -> String {
    let bits = |x: f64| format!("{x:e} ({:#018x})", x.to_bits());
    match (want, got) {
        (Value::Tuple(p), Value::Tuple(q)) if p.len() == q.len() => p
            .iter()
            .zip(q.iter())
            .enumerate()
            .map(|(i, (p, q))| locate(p, q, &format!("{path}[{i}]")))
            .find(|s| !s.is_empty())
            .unwrap_or_default(),
        (Value::Tensor(p), Value::Tensor(q)) if p.shape() == q.shape() => {
            let (p, q) = (p.to_vec::<f64>(), q.to_vec::<f64>());
            match p
                .iter()
                .zip(&q)
                .position(|(a, b)| a.to_bits() != b.to_bits() && !(a.is_nan() && b.is_nan()))
            {
                Some(i) => format!(
                    " at {path} element {i} (flat): got {} want {}",
                    bits(q[i]),
                    bits(p[i])
                ),
                None => format!(" at {path} (dtype)"),
            }
        }
        (Value::Float(p), Value::Float(q)) if !same(want, got) => {
            format!(" at {path}: got {} want {}", bits(*q), bits(*p))
        }
        _ if same(want, got) => String::new(),
        _ => format!(" at {path}"),
    }
}

/// Native -O2 and interpreter -O2 against the interpreter at -O0, on `calls` calls of one
/// compiled program each (`args(c)` for call `c`): `Err` describes a difference, `Ok` holds the
/// reference's outcomes.
pub fn differences(
    src: &str,
    calls: usize,
    args: impl Fn(usize) -> Vec<Value>,
) -> Result<Vec<Result<Value, String>>, String> {
    let first = args(0);
    let programs = [
        (pyjit::Backend::Interp, pyjit::opt::manager::OptLevel::O0),
        (pyjit::Backend::Native, pyjit::opt::manager::OptLevel::O2),
        (pyjit::Backend::Interp, pyjit::opt::manager::OptLevel::O2),
    ]
    .map(|(backend, level)| (backend, level, compile(src, backend, level, &first)));
    let mut outcomes = vec![];
    for c in 0..calls {
        let call = |p: &pyjit::Program| {
            p.call_with_output("f", args(c), &mut Vec::new())
                .map_err(|e| format!("{e:?}"))
        };
        let reference = call(&programs[0].2);
        for (backend, level, p) in &programs[1..] {
            let r = call(p);
            let agree = match (&reference, &r) {
                (Ok(p), Ok(q)) => same(p, q),
                (Err(p), Err(q)) => p == q,
                _ => false,
            };
            if !agree {
                let at = match (&reference, &r) {
                    (Ok(p), Ok(q)) => locate(p, q, "result"),
                    _ => String::new(),
                };
                return Err(format!(
                    "call {c}: {backend:?} {level:?} differs from Interp O0{at}:\n  \
                     got       {r:?}\n  reference {reference:?}"
                ));
            }
        }
        outcomes.push(reference);
    }
    Ok(outcomes)
}
