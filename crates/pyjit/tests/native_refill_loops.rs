//! Differential property test of the interleaver (`pyjit-codegen/src/lower/refill.rs`): loop
//! nests in Collatz's shape, `for i in range(...)` over independent iterations of `int`/`bool`
//! code around one `while` loop whose trip count differs from iteration to iteration (zero
//! now and then, a `break` now and then), with running sums updated before, inside and after
//! the `while` loop, which native code runs three iterations at a time, each taking the next
//! iteration when its own ends. Generated programs (TorchScript and NumPy spelling) have trip
//! counts below, at and above the lanes' count (0 … 9, 16, 17, 40), ranges with a start and a
//! step, values that wrap around 2**63, return one or two sums, and some store an element per
//! iteration (`out[i] = k`, `out[1, i + c] = x`: every dtype, into tensors too small for the
//! range, at indices that repeat or wrap, where the interleaver must leave the loop to the
//! scalar code and its `IndexError`).
//!
//! The reference is the interpreter at -O0; native code at -O2 and the interpreter at -O2 must
//! give the same value. A failure prints the program and its arguments; `cargo test --release
//! -p pyjit --test native_refill_loops -- --ignored print_generated` shows what the generator
//! writes.

#[path = "native_common/mod.rs"]
mod common;
use proptest::prelude::*;
use pyjit::opt::manager::OptLevel;
use pyjit::{Backend, Value};

struct Gen {
    rng: common::Rng,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            rng: common::Rng::seeded(seed),
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

    /// An `int` expression of `names`.
    fn int(&mut self, depth: usize, names: &[&str]) -> String {
        if depth == 0 || self.chance(35) {
            return if self.chance(70) {
                self.of(names).into()
            } else {
                self.of(&["1", "2", "-3", "7"]).into()
            };
        }
        let (p, q) = (self.int(depth - 1, names), self.int(depth - 1, names));
        match self.pick(9) {
            0 => format!("({p} // 4)"),
            1 => format!("({p} % 8)"),
            2 => format!("({p} * {q})"),
            _ => {
                let op = self.of(&["+", "-", "&", "|", "^"]);
                format!("({p} {op} {q})")
            }
        }
    }

    /// A `bool` expression of `names` (and `c`, when `with_c`).
    fn boolean(&mut self, depth: usize, names: &[&str], with_c: bool) -> String {
        if depth == 0 || self.chance(40) {
            if with_c && self.chance(25) {
                return "c".into();
            }
            let (p, q) = (self.int(1, names), self.int(1, names));
            let op = self.of(&["<", "<=", ">", ">=", "==", "!="]);
            return format!("{p} {op} {q}");
        }
        let (p, q) = (
            self.boolean(depth - 1, names, with_c),
            self.boolean(depth - 1, names, with_c),
        );
        match self.pick(3) {
            0 => format!("({p} and {q})"),
            1 => format!("({p} or {q})"),
            _ => format!("(not {p})"),
        }
    }
}

struct Case {
    src: String,
    /// `(n, m, a, b)` per call.
    calls: Vec<(i64, i64, i64, i64)>,
}

fn case(seed: u64) -> Case {
    let mut g = Gen::new(seed);
    let np = g.chance(30);
    let two = g.chance(30);
    // An element store per iteration (`out[i] = k`), into a tensor of a size that may be too
    // small, at indices that may repeat or wrap.
    let store = g.chance(40);
    let mut s = String::new();
    if np {
        s.push_str("import numpy as np\n\n\ndef f(n, m, a, b):\n");
    } else {
        let ret = match (store, two) {
            (false, false) => "int",
            (false, true) => "Tuple[int, int]",
            (true, false) => "Tuple[Tensor, int]",
            (true, true) => "Tuple[Tensor, int, int]",
        };
        s.push_str("import torch\nfrom torch import Tensor\nfrom typing import Tuple\n\n\n");
        s.push_str(&format!(
            "def f(n: int, m: int, a: int, b: int) -> {ret}:\n"
        ));
    }
    let rows = g.chance(30);
    if store {
        let size = g.of(&["n + 2", "n + 2", "n", "n - 1", "3"]);
        let dtype = g.of(&["int64", "int64", "int32", "float64", "bool"]);
        let shape = if rows {
            format!("2, {size}")
        } else {
            size.to_string()
        };
        if np {
            let dtype = if dtype == "bool" { "bool_" } else { dtype };
            s.push_str(&format!(
                "    out = np.zeros(({shape},), dtype=np.{dtype})\n"
            ));
        } else {
            s.push_str(&format!(
                "    out = torch.zeros([{shape}], dtype=torch.{dtype})\n"
            ));
        }
    }
    s.push_str(&format!(
        "    total = {}\n",
        g.of(&["0", "0", "a", "1000 * n + 7"])
    ));
    if two {
        s.push_str("    other = b\n");
    }
    let range = g.of(&[
        "n",
        "n",
        "1, n",
        "a % 5, n",
        "n - 1",
        "2, n, 3",
        "n, -1, -1",
    ]);
    s.push_str(&format!("    for i in range({range}):\n"));
    let ind = "        ";
    let outer = ["i", "a", "b", "n"];
    s.push_str(&format!("{ind}x = {}\n", g.int(2, &outer)));
    s.push_str(&format!("{ind}k = {}\n", g.of(&["0", "0", "i & 3"])));
    s.push_str(&format!("{ind}c = {}\n", g.boolean(1, &outer, false)));
    if g.chance(30) {
        s.push_str(&format!("{ind}total += {}\n", g.int(1, &outer)));
    }
    let inner = ["x", "k", "i", "a", "b"];
    let collatz = g.chance(25);
    let cond = if collatz {
        // Collatz's loop on a positive start below 64 (all reach 1), bounded by `m` besides.
        s.push_str(&format!("{ind}x = (x & 63) + 1\n"));
        format!("x != 1 and k < m + {}", g.of(&["0", "100"]))
    } else {
        let extra = g.boolean(2, &inner, true);
        format!("k < m and {extra}")
    };
    s.push_str(&format!("{ind}while {cond}:\n"));
    let body = format!("{ind}    ");
    if collatz || g.chance(30) {
        s.push_str(&format!(
            "{body}if x % 2 == 0:\n{body}    x = x // 2\n{body}else:\n{body}    x = 3 * x + 1\n"
        ));
    } else {
        s.push_str(&format!("{body}x = {}\n", g.int(3, &inner)));
    }
    if g.chance(30) {
        s.push_str(&format!("{body}c = not c\n"));
    }
    if g.chance(20) {
        s.push_str(&format!(
            "{body}if {}:\n{body}    break\n",
            g.boolean(1, &inner, true)
        ));
    }
    if g.chance(60) {
        s.push_str(&format!(
            "{body}total += {}\n",
            g.of(&["1", "k", "x & 3", "x"])
        ));
    }
    if two && g.chance(50) {
        s.push_str(&format!("{body}other -= {}\n", g.int(1, &inner)));
    }
    s.push_str(&format!("{body}k += 1\n"));
    match g.pick(4) {
        0 => s.push_str(&format!("{ind}total += k\n")),
        1 => s.push_str(&format!("{ind}total = total - {}\n", g.int(2, &inner))),
        2 => s.push_str(&format!(
            "{ind}if {}:\n{ind}    total += x\n",
            g.boolean(1, &inner, true)
        )),
        _ => {}
    }
    if store {
        let index = g.of(&["i", "i", "i + 1", "i + a % 3", "i - 1", "0", "-1 - i"]);
        let index = if rows {
            format!("{}, {index}", g.of(&["1", "-2", "b % 2"]))
        } else {
            index.to_string()
        };
        let value = g.of(&["k", "x", "x & 7", "k + i"]);
        s.push_str(&format!("{ind}out[{index}] = {value}\n"));
    }
    if two {
        s.push_str(&format!("{ind}other += {}\n", g.int(1, &inner)));
    }
    let out = if store { "out, " } else { "" };
    if two {
        s.push_str(&format!("    return {out}total, other\n"));
    } else {
        s.push_str(&format!("    return {out}total\n"));
    }
    let mut calls = Vec::new();
    for _ in 0..2 {
        let n = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 40][g.pick(13)];
        let m = [0, 1, 3, 8, 30][g.pick(5)];
        let small = |g: &mut Gen| match g.pick(10) {
            0 => i64::MAX,
            1 => i64::MIN + 1,
            2 => 1 << 62,
            _ => g.pick(21) as i64 - 10,
        };
        calls.push((n, m, small(&mut g), small(&mut g)));
    }
    Case { src: s, calls }
}

impl Case {
    fn args(&self, c: usize) -> Vec<Value> {
        let (n, m, a, b) = self.calls[c];
        vec![Value::Int(n), Value::Int(m), Value::Int(a), Value::Int(b)]
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
    fn refill_loops_native_equals_interpreter(seed in any::<u64>()) {
        let c = case(seed);
        if let Err(d) = common::differences(&c.src, 2, |k| c.args(k)) {
            prop_assert!(false, "{}\ncalls {:?}\n{d}", c.src, c.calls);
        }
    }
}

/// The CLIF of `src` specialized for `args`, with the loop transformations on or off.
fn clif(src: &str, args: &[Value], vectorize: bool) -> String {
    let p = common::compile(src, Backend::Interp, OptLevel::O2, args);
    let (m, _, _) = p.specialize_optimized("f", args).unwrap();
    let options = pyjit::codegen::Options {
        keep_clif: true,
        vectorize,
        ..pyjit::codegen::Options::default()
    };
    let native = pyjit::codegen::NativeModule::compile(&m, &options).unwrap();
    native
        .clif()
        .iter()
        .map(|(_, c)| c.clone())
        .collect::<String>()
}

/// How many blocks a function's CLIF has.
fn blocks(clif: &str) -> usize {
    clif.lines()
        .filter(|l| l.starts_with("block") && l.trim_end().ends_with(':'))
        .count()
}

/// Most generated programs are interleaved (with the loop transformations on, their CLIF has
/// many more blocks: the lanes' copies of the loop; and no vector lanes), so the property test
/// exercises the interleaved loop, and they do not all return the same few values.
#[test]
fn generated_programs_are_interleaved() {
    let (mut interleaved, mut total) = (0, 0);
    let mut results = std::collections::HashSet::new();
    for seed in 0..200u64 {
        let c = case(seed);
        let args = c.args(0);
        let (on, off) = (clif(&c.src, &args, true), clif(&c.src, &args, false));
        total += 1;
        assert!(!on.contains("i64x2"), "{}", c.src);
        if std::env::var("SHOW").is_ok() && blocks(&on) <= blocks(&off) + 10 {
            println!("NOT\n{}", c.src);
        }
        if blocks(&on) > blocks(&off) + 10 {
            interleaved += 1;
        }
        let p = common::compile(&c.src, Backend::Interp, OptLevel::O2, &args);
        if let Ok(v) = p.call_with_output("f", args, &mut Vec::new()) {
            results.insert(format!("{v:?}"));
        }
    }
    assert!(
        interleaved > 130 && results.len() > 100,
        "{interleaved} of {total} programs interleaved, {} distinct results",
        results.len()
    );
}

/// Collatz (peerbench's `scalar_loop`) from 1 to n, interleaved, as the interpreter, for
/// counts below, at and above the lanes'; the sum CPython gives for n = 10,000; and each
/// number's count stored into an array.
#[test]
fn collatz() {
    let src = "def f(n: int) -> int:\n    total = 0\n    for i in range(1, n):\n        \
               x = i\n        while x != 1:\n            if x % 2 == 0:\n                \
               x = x // 2\n            else:\n                x = 3 * x + 1\n            \
               total += 1\n    return total\n";
    for n in [0, 1, 2, 3, 4, 5, 6, 7, 100, 10_000] {
        let r = common::differences(src, 1, |_| vec![Value::Int(n)])
            .unwrap_or_else(|d| panic!("collatz({n}): {d}"));
        if n == 10_000 {
            assert!(matches!(r[0], Ok(Value::Int(849_637))), "{r:?}");
        }
    }
    let args = [Value::Int(300)];
    assert!(blocks(&clif(src, &args, true)) > blocks(&clif(src, &args, false)) + 10);
    // Numba's style: each number's count stored; with an array one too short, the scalar
    // loop runs and raises at the last number, after storing the others.
    let lengths = "import numpy as np\n\n\ndef f(n, size):\n    out = np.zeros(size, dtype=np.int64)\n    \
                   for i in range(1, n):\n        x = i\n        s = 0\n        while x != 1:\n            \
                   if x % 2 == 0:\n                x = x // 2\n            else:\n                \
                   x = 3 * x + 1\n            s += 1\n        out[i] = s\n    return out\n";
    for (n, size) in [
        (0, 0),
        (3, 3),
        (4, 4),
        (100, 100),
        (100, 99),
        (100, 150),
        (5, 3),
    ] {
        common::differences(lengths, 1, |_| vec![Value::Int(n), Value::Int(size)])
            .unwrap_or_else(|d| panic!("lengths({n}, {size}): {d}"));
    }
    let args = [Value::Int(300), Value::Int(300)];
    assert!(blocks(&clif(lengths, &args, true)) > blocks(&clif(lengths, &args, false)) + 10);
    // Into an expanded view every number's count lands on one element: the last one wins, so
    // the scalar loop must run.
    let expanded = "import torch\nfrom torch import Tensor\n\n\ndef f(n: int) -> Tensor:\n    \
                    out = torch.zeros([1], dtype=torch.int64).expand([n])\n    \
                    for i in range(n):\n        x = i + 1\n        s = 0\n        while x != 1:\n            \
                    if x % 2 == 0:\n                x = x // 2\n            else:\n                \
                    x = 3 * x + 1\n            s += 1\n        out[i] = s\n    return out\n";
    for n in [3, 10, 27, 40] {
        common::differences(expanded, 1, |_| vec![Value::Int(n)])
            .unwrap_or_else(|d| panic!("expanded({n}): {d}"));
    }
}

/// Iterations whose `while` loop runs no step (every `i` from 20 on, and `i = 4`) are finished
/// as they are taken, while filling the lanes and later; with fewer such iterations than lanes
/// left, the lanes filled so far run theirs to the end.
#[test]
fn iterations_whose_loop_runs_no_step() {
    let src = "def f(n: int, s: int) -> int:\n    total = 5\n    for i in range(s, n):\n        \
               x = i\n        while x != 4 and x < 20:\n            x += 2\n            \
               total += x\n        total -= i\n    return total\n";
    for (n, s) in [
        (30, 0),
        (30, 18),
        (30, 19),
        (30, 20),
        (24, 3),
        (7, 3),
        (26, 22),
        (5, 4),
    ] {
        common::differences(src, 1, |_| vec![Value::Int(n), Value::Int(s)])
            .unwrap_or_else(|d| panic!("f({n}, {s}): {d}"));
    }
}

#[test]
#[ignore = "prints generated programs"]
fn print_generated() {
    for seed in 0..10 {
        let c = case(seed);
        println!("# {:?}\n{}", c.calls, c.src);
    }
}
