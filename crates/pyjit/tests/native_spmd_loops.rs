//! Differential property test of the outer-loop vectorizer (`pyjit-codegen/src/lower/spmd.rs`):
//! loop nests in mandelbrot's shape, `for j in range(...)` over independent iterations of scalar
//! `int`/`float`/`bool` code with `while` loops (trip counts that differ from lane to lane, a
//! `break` now and then), bounded `for` loops and `if`s inside, ending in element stores
//! `out[i, j] = v` that native code runs four iterations at a time. Generated programs
//! (TorchScript and NumPy spelling) store into every dtype (float64, float32, int64, int32,
//! bool), at indices that wrap (`j - 1`, `-1 - j`), at one address from every iteration
//! (`out[i, 0]`: the last writer must win), with running sums (some updated in an `if`), trip
//! counts odd and even (0 … 9, 16, 17) and ranges that run past the tensor (the `IndexError`
//! must come at the same iteration, after the same stores), and divide by an argument that may
//! be zero (`ZeroDivisionError`). Arguments hold NaN, infinities, signed zeros and huge values.
//!
//! The reference is the interpreter at -O0; native code at -O2 and the interpreter at -O2 must
//! give the same tensor to the bit, or the same error. A failure prints the program and its
//! arguments; `cargo test --release -p pyjit --test native_spmd_loops -- --ignored
//! print_generated` shows what the generator writes.

#[path = "native_common/mod.rs"]
mod common;
use proptest::prelude::*;
use pyjit::opt::manager::OptLevel;
use pyjit::{Backend, Value};
use pyjit_runtime::{DType, Tensor};

struct Gen {
    rng: common::Rng,
    np: bool,
    /// Of `x` and `y`, how many are assigned yet (0, 1: `x`, 2: both).
    xy: usize,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            rng: common::Rng::seeded(seed),
            np: false,
            xy: 2,
        }
    }
    fn pick(&mut self, n: usize) -> usize {
        self.rng.pick(n)
    }
    fn of<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        self.rng.of(xs)
    }
    fn chance(&mut self, pct: usize) -> bool {
        self.pick(100) < pct
    }

    /// A `float` expression of the body's names.
    fn float(&mut self, depth: usize) -> String {
        if depth == 0 || self.chance(30) {
            return match self.pick(12) {
                0 if self.xy > 0 => "x".into(),
                1 if self.xy > 1 => "y".into(),
                0..=2 => "ci".into(),
                3 => "a".into(),
                4 => "b".into(),
                5 => "float(j)".into(),
                6 => "float(k)".into(),
                _ => self
                    .of(&["0.5", "-2.0", "3.0", "1e308", "0.0", "-0.0", "0.25"])
                    .into(),
            };
        }
        let (p, q) = (self.float(depth - 1), self.float(depth - 1));
        match self.pick(8) {
            0 => format!("({p} + {q})"),
            1 => format!("({p} - {q})"),
            2 | 3 => format!("({p} * {q})"),
            4 => format!("({p} / a)"),
            5 => format!("({p} / 2.0)"),
            6 => format!("(-{p})"),
            _ => format!("abs({p})"),
        }
    }

    /// An `int` expression.
    fn int(&mut self, depth: usize) -> String {
        if depth == 0 || self.chance(35) {
            return self.of(&["j", "k", "n", "i", "1", "2", "-3"]).into();
        }
        let (p, q) = (self.int(depth - 1), self.int(depth - 1));
        let op = self.of(&["+", "-", "*", "&", "^"]);
        format!("({p} {op} {q})")
    }

    /// A `bool` expression.
    fn boolean(&mut self, depth: usize) -> String {
        if depth == 0 || self.chance(40) {
            return if self.chance(60) {
                let (p, q) = (self.float(1), self.float(1));
                let op = self.of(&["<", "<=", ">", ">=", "==", "!="]);
                format!("{p} {op} {q}")
            } else {
                let (p, q) = (self.int(1), self.int(1));
                let op = self.of(&["<", "<=", ">", ">=", "==", "!="]);
                format!("{p} {op} {q}")
            };
        }
        match self.pick(3) {
            0 => format!(
                "({} and {})",
                self.boolean(depth - 1),
                self.boolean(depth - 1)
            ),
            1 => format!(
                "({} or {})",
                self.boolean(depth - 1),
                self.boolean(depth - 1)
            ),
            _ => format!("(not {})", self.boolean(depth - 1)),
        }
    }

    /// The value stored into a tensor of `dtype`.
    fn value(&mut self, dtype: DType) -> String {
        match dtype {
            DType::Float64 | DType::Float32 => {
                if self.chance(50) {
                    "x".into()
                } else {
                    self.float(2)
                }
            }
            DType::Int64 | DType::Int32 => {
                if self.chance(40) {
                    "k".into()
                } else {
                    self.int(2)
                }
            }
            DType::Bool => {
                if self.chance(50) {
                    format!("x < {}", self.float(1))
                } else {
                    self.boolean(1)
                }
            }
        }
    }
}

struct Case {
    src: String,
    dtype: DType,
    /// `(rows, cols, n, a, b)` per call.
    calls: Vec<(usize, usize, i64, f64, f64)>,
}

fn dtype_name(np: bool, d: DType) -> &'static str {
    match (np, d) {
        (true, DType::Float64) => "np.float64",
        (true, DType::Float32) => "np.float32",
        (true, DType::Int64) => "np.int64",
        (true, DType::Int32) => "np.int32",
        (true, DType::Bool) => "np.bool_",
        (false, DType::Float64) => "torch.float64",
        (false, DType::Float32) => "torch.float32",
        (false, DType::Int64) => "torch.int64",
        (false, DType::Int32) => "torch.int32",
        (false, DType::Bool) => "torch.bool",
    }
}

fn case(seed: u64) -> Case {
    let mut g = Gen::new(seed);
    g.np = g.chance(40);
    let dtype = [
        DType::Float64,
        DType::Float32,
        DType::Int64,
        DType::Int32,
        DType::Bool,
    ][g.pick(5)];
    let mut s = String::new();
    // A running sum carried through the loop nest (the vector loop keeps one per lane).
    let total = g.chance(40);
    if g.np {
        s.push_str("import numpy as np\n\n\ndef f(rows, cols, n, a, b):\n");
        s.push_str(&format!(
            "    out = np.zeros((rows, cols), dtype={})\n",
            dtype_name(true, dtype)
        ));
    } else {
        s.push_str("import torch\nfrom torch import Tensor\nfrom typing import Tuple\n\n\n");
        let ret = if total {
            "Tuple[Tensor, int]"
        } else {
            "Tensor"
        };
        s.push_str(&format!(
            "def f(rows: int, cols: int, n: int, a: float, b: float) -> {ret}:\n"
        ));
        s.push_str(&format!(
            "    out = torch.zeros([rows, cols], dtype={})\n",
            dtype_name(false, dtype)
        ));
    }
    if total {
        s.push_str("    total = 0\n");
    }
    s.push_str("    for i in range(rows):\n");
    s.push_str(&format!(
        "        ci = a + float(i) * {}\n",
        g.of(&["0.25", "b", "-1.5"])
    ));
    let range = g.of(&["cols", "cols", "cols", "n", "cols - 1"]);
    s.push_str(&format!("        for j in range({range}):\n"));
    let ind = "            ";
    s.push_str(&format!(
        "{ind}k = {}\n",
        g.of(&["0", "0", "j & 3", "i - j"])
    ));
    g.xy = 0;
    s.push_str(&format!("{ind}x = {}\n", g.float(2)));
    g.xy = 1;
    s.push_str(&format!("{ind}y = {}\n", g.float(1)));
    g.xy = 2;
    match g.pick(10) {
        0..=5 => {
            let lim = g.of(&["20", "n", "7"]);
            // A condition that reads the loop's floats, so their arithmetic is live.
            let cond = match g.pick(5) {
                0 => "x * x + y * y <= 4.0".to_string(),
                1 => "abs(x) < 100.0".to_string(),
                2 => "x != y".to_string(),
                3 => format!("{} <= x", g.float(1)),
                _ => g.boolean(2),
            };
            s.push_str(&format!("{ind}while k < {lim} and {cond}:\n"));
            let inner = format!("{ind}    ");
            if g.chance(50) {
                s.push_str(&format!(
                    "{inner}x, y = x * x - y * y + {}, 2.0 * x * y + {}\n",
                    g.float(1),
                    g.float(1)
                ));
            } else {
                s.push_str(&format!("{inner}x, y = {}, {}\n", g.float(3), g.float(2)));
            }
            if g.chance(30) {
                s.push_str(&format!("{inner}if {}:\n{inner}    break\n", g.boolean(1)));
            }
            if g.chance(40) {
                s.push_str(&format!(
                    "{inner}if {}:\n{inner}    y = {}\n{inner}else:\n{inner}    x = {}\n",
                    g.boolean(1),
                    g.float(2),
                    g.float(2)
                ));
            }
            s.push_str(&format!("{inner}k += 1\n"));
        }
        6..=8 => {
            s.push_str(&format!(
                "{ind}for t in range({}):\n",
                g.of(&["3", "k", "n"])
            ));
            s.push_str(&format!("{ind}    x = x * 0.5 + float(t)\n"));
            s.push_str(&format!("{ind}    k = k + t\n"));
        }
        _ => {}
    }
    if g.chance(40) {
        s.push_str(&format!(
            "{ind}if {}:\n{ind}    x = {}\n{ind}else:\n{ind}    k = {}\n",
            g.boolean(1),
            g.float(2),
            g.int(1)
        ));
    }
    if total {
        let update = g.of(&[
            "total += k",
            "total -= k",
            "total = total + j",
            "total += 1",
        ]);
        if g.chance(30) {
            // A sum updated on one side of an `if` (each lane selects its own).
            let c = g.boolean(1);
            s.push_str(&format!("{ind}if {c}:\n{ind}    {update}\n"));
        } else {
            s.push_str(&format!("{ind}{update}\n"));
        }
    }
    let index = g.of(&["i, j", "i, j", "i, j", "i, j - 1", "i, -1 - j", "-1 - i, j"]);
    s.push_str(&format!("{ind}out[{index}] = {}\n", g.value(dtype)));
    if g.chance(20) {
        s.push_str(&format!("{ind}out[i, 0] = {}\n", g.value(dtype)));
    }
    s.push_str(if total {
        "    return out, total\n"
    } else {
        "    return out\n"
    });
    let mut calls = Vec::new();
    for _ in 0..2 {
        let rows = g.pick(3) + 1;
        let cols = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17][g.pick(12)];
        let n = cols as i64 + g.pick(3) as i64 - 1;
        let scalar = |g: &mut Gen| match g.pick(14) {
            0 => 0.0,
            1 => -0.0,
            2 => f64::INFINITY,
            3 => f64::NAN,
            4 => 1e300,
            _ => (g.pick(4001) as f64 - 2000.0) / 1000.0,
        };
        let (a, b) = (scalar(&mut g), scalar(&mut g));
        calls.push((rows, cols, n, a, b));
    }
    Case {
        src: s,
        dtype,
        calls,
    }
}

impl Case {
    fn args(&self, c: usize) -> Vec<Value> {
        let (rows, cols, n, a, b) = self.calls[c];
        vec![
            Value::Int(rows as i64),
            Value::Int(cols as i64),
            Value::Int(n),
            Value::Float(a),
            Value::Float(b),
        ]
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 800,
        failure_persistence: None,
        max_shrink_iters: 32,
        ..ProptestConfig::default()
    })]

    #[test]
    fn spmd_loops_native_equals_interpreter(seed in any::<u64>()) {
        let c = case(seed);
        if let Err(d) = common::differences(&c.src, 2, |k| c.args(k)) {
            prop_assert!(false, "{}\ncalls {:?}\n{d}", c.src, c.calls);
        }
    }
}

/// Most generated programs (those with an inner loop) are vectorized (their native code has `i64x2`/`f64x2` lanes), so the
/// property test exercises the vector loop, and the results they give are not all errors.
#[test]
fn generated_programs_are_vectorized() {
    let (mut vectorized, mut ok, mut total) = (0, 0, 0);
    for seed in 0..200u64 {
        let c = case(seed);
        let args = c.args(0);
        let p = common::compile(&c.src, Backend::Interp, OptLevel::O2, &args);
        let (m, _, _) = p.specialize_optimized("f", &args).unwrap();
        let options = pyjit::codegen::Options {
            keep_clif: true,
            ..pyjit::codegen::Options::default()
        };
        let native = pyjit::codegen::NativeModule::compile(&m, &options).unwrap();
        total += 1;
        if native
            .clif()
            .iter()
            .any(|(_, clif)| clif.contains("i64x2") || clif.contains("f64x2"))
        {
            vectorized += 1;
        }
        if p.call_with_output("f", args, &mut Vec::new()).is_ok() {
            ok += 1;
        }
    }
    assert!(
        vectorized > 100 && ok > 100,
        "{vectorized} of {total} programs vectorized, {ok} ran without an error"
    );
}

/// mandelbrot (peerbench's NumPy twin): the vector loop's result is the interpreter's.
#[test]
fn mandelbrot() {
    let src = "import numpy as np\n\n\ndef f(n, max_iter):\n    \
               out = np.zeros((n, n), dtype=np.int32)\n    for i in range(n):\n        \
               ci = -1.5 + 3.0 * i / n\n        for j in range(n):\n            \
               cr = -2.0 + 3.0 * j / n\n            zr = 0.0\n            zi = 0.0\n            \
               k = 0\n            while k < max_iter and zr * zr + zi * zi <= 4.0:\n                \
               t = zr * zr - zi * zi + cr\n                zi = 2.0 * zr * zi + ci\n                \
               zr = t\n                k += 1\n            out[i, j] = k\n    return out\n";
    for (n, it) in [(0, 5), (1, 5), (7, 0), (13, 30), (40, 100), (5, -1)] {
        let r = common::differences(src, 1, |_| vec![Value::Int(n), Value::Int(it)])
            .unwrap_or_else(|d| panic!("mandelbrot({n}, {it}): {d}"));
        if n == 40 {
            let Ok(Value::Tensor(t)) = &r[0] else {
                panic!("mandelbrot({n}, {it}): {r:?}")
            };
            let t: &Tensor = t;
            assert_eq!(
                t.to_vec::<f64>().iter().filter(|&&k| k == 100.0).count(),
                289
            );
        }
    }
}

/// A running sum through an inner loop of float work (the lanes' partial sums add up), and
/// Collatz's all-integer nest, which is not vectorized (see `spmd_plan`; the interleaver,
/// `native_refill_loops.rs`, takes it): both as the interpreter.
#[test]
fn running_sums() {
    let escapes = "def f(n: int, m: int) -> int:\n    total = 1000 * n + 7\n    for j in range(n):\n        \
                   z = 0.0\n        k = 0\n        while k < m and z < 10.0:\n            \
                   z = z * 1.5 + float(j) * 0.01 + 0.1\n            k += 1\n            \
                   total += 1\n        total += j % 4 - k // 2\n    return total\n";
    for (n, m) in [(0, 3), (1, 3), (2, 50), (7, 50), (64, 1000)] {
        common::differences(escapes, 1, |_| vec![Value::Int(n), Value::Int(m)])
            .unwrap_or_else(|d| panic!("escapes({n}, {m}): {d}"));
    }
    let args = [Value::Int(300)];
    let clif = |src: &str, args: &[Value]| {
        let p = common::compile(src, Backend::Interp, OptLevel::O2, args);
        let (m, _, _) = p.specialize_optimized("f", args).unwrap();
        let options = pyjit::codegen::Options {
            keep_clif: true,
            ..pyjit::codegen::Options::default()
        };
        let native = pyjit::codegen::NativeModule::compile(&m, &options).unwrap();
        native
            .clif()
            .iter()
            .map(|(_, c)| c.clone())
            .collect::<String>()
    };
    let two = [Value::Int(9), Value::Int(9)];
    assert!(
        clif(escapes, &two).contains("i64x2"),
        "the float nest is vectorized"
    );
    let collatz = "def f(n: int) -> int:\n    total = 0\n    for i in range(1, n):\n        \
                   x = i\n        while x != 1:\n            if x % 2 == 0:\n                \
                   x = x // 2\n            else:\n                x = 3 * x + 1\n            \
                   total += 1\n    return total\n";
    common::differences(collatz, 1, |_| vec![Value::Int(1001)]).unwrap();
    assert!(
        !clif(collatz, &args).contains("i64x2"),
        "Collatz is not vectorized"
    );
}

/// A loop inside an `if`, and a loop inside a loop, run only the lanes whose scalar program
/// runs them: here the lanes that skip the inner `while` (j = 0, 1, 2 in the first vector) would
/// never leave it (`x` never reaches 3), and those whose outer `while` ended (j = 5 after its
/// first trip) would loop on in the nested one. Run on a thread with a deadline, so a regression
/// fails instead of hanging.
#[test]
fn loops_run_only_the_lanes_that_reach_them() {
    let src = "import torch\nfrom torch import Tensor\n\n\n\
               def f(n: int) -> Tensor:\n    out = torch.zeros([n], dtype=torch.float64)\n    \
               for j in range(n):\n        x = float(j)\n        \
               if j % 2 == 0 and j >= 4:\n            while x != 3.0:\n                \
               x = x - 1.0\n        y = float(j)\n        k = 0\n        \
               while k < 1 or (k < 3 and j != 5):\n            z = y\n            \
               while z != 2.0:\n                z = z - 1.0\n            \
               y = y + 1.0\n            k += 1\n        out[j] = x + y\n    return out\n";
    // Only j >= 2 reach the nested loop with z = y >= 2 (j = 0 and 1 would not end): start at 2.
    let src = src.replace("for j in range(n):", "for j in range(2, n):");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = common::differences(&src, 1, |_| vec![Value::Int(12)]);
        let _ = tx.send(r.map(|_| ()));
    });
    match rx.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(r) => r.unwrap_or_else(|d| panic!("{d}")),
        Err(_) => panic!("the vector loop did not end"),
    }
}

#[test]
#[ignore = "prints generated programs"]
fn print_generated() {
    for seed in 0..10 {
        let c = case(seed);
        println!("# {:?} {:?}\n{}", c.dtype, c.calls, c.src);
    }
}
