//! Differential property test of innermost element loops, the loops native code's loop
//! vectorizer (`pyjit-codegen/src/lower/vectorize.rs`) runs 8 iterations (float64: 4) at a time
//! behind its run-time check: `for k in range(...)` over float32 element math
//! on loads `t[inv..., k + c]`, stores `u[inv..., k + c] = ...` and accumulators `s += e` /
//! `s *= e` carried through the loop. Generated programs (TorchScript and NumPy spelling) mix
//! what such a vectorizer handles (`+ - * /`, unary minus, abs, sqrt, exp, expm1, tanh, sigmoid)
//! with what it must leave to the scalar loop (log, sin, an `if` in the body, `float(k)`, an
//! accumulator read or stored in its own loop), store into fresh outputs, into the input in
//! place and into views of the input read in the same loop (`w = v[1:]`: `w[k]` is `v[k + 1]`),
//! walk strided and transposed views (last-dimension stride not 1), use trip counts around
//! multiples of 4 (0 … 9, 16, 17, 33, 1001) and ranges that run out of bounds. Inputs hold NaN,
//! infinities, signed zeros, subnormals and huge values (a few cases are float64). Each program
//! is called twice, with contiguous arguments and then (the same machine code: specializations
//! are keyed by dtype and rank) with arguments strided, at an offset, transposed, or `y` the same
//! tensor as `x` or overlapping it (see [`Layout`]).
//!
//! A failure prints the program, its inputs and the first differing element with its bits;
//! `cargo test --release -p pyjit --test native_vector_loops -- --ignored print_generated`
//! shows what the generator writes.
//!
//! The reference is the interpreter at -O0 (the runtime's own subscripts and tensor kernels);
//! native code at -O2 and the interpreter at -O2 must give the same values to the bit (sums in
//! the same order: a reduction reassociated into lanes changes the last bits), the same tensors
//! written, and the same error (class, message, span).

#[path = "native_common/mod.rs"]
mod common;
use proptest::prelude::*;
use pyjit::opt::manager::OptLevel;
use pyjit::{Backend, Options, Program, SourceFile, Value};
use pyjit_runtime::Tensor;

/// The generator: [`common::Rng`]'s choices and the values this test draws.
struct Gen(common::Rng);

impl std::ops::Deref for Gen {
    type Target = common::Rng;
    fn deref(&self) -> &common::Rng {
        &self.0
    }
}

impl std::ops::DerefMut for Gen {
    fn deref_mut(&mut self) -> &mut common::Rng {
        &mut self.0
    }
}

impl Gen {
    /// A generator for `seed` (splitmix64 of it: nearby seeds start far apart).
    fn new(seed: u64) -> Gen {
        Gen(common::Rng::seeded(seed))
    }
    /// True with probability `pct` percent.
    fn chance(&mut self, pct: usize) -> bool {
        self.pick(100) < pct
    }
    /// An input element: mostly ordinary values in [-4, 4], sometimes NaN, ±inf, ±0.0, a
    /// subnormal or a huge value.
    fn element(&mut self) -> f32 {
        let sign = if self.chance(50) { 1.0f32 } else { -1.0 };
        match self.pick(100) {
            0..=4 => f32::NAN,
            5..=8 => sign * f32::INFINITY,
            9..=13 => sign * 0.0,
            14..=17 => sign * 1e-40,
            18..=20 => sign * 3e38,
            _ => (self.pick(80_001) as f32 - 40_000.0) / 10_000.0,
        }
    }
    /// A loop-invariant float argument.
    fn scalar(&mut self) -> f64 {
        match self.pick(20) {
            0 => 0.0,
            1 => -0.0,
            2 => f64::INFINITY,
            3 => f64::NAN,
            4 => 1e-40,
            _ => (self.pick(8_001) as f64 - 4_000.0) / 1_000.0,
        }
    }
}

/// The trip counts: around multiples of the vector loop's 8 (float64: 4) iterations, and one
/// large.
const LENS: &[usize] = &[0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 33];

/// An array the loop body indexes: its name and its last dimension's size (number and source).
struct Arr {
    name: &'static str,
    cols: i64,
    size: String,
}

/// An accumulator carried through a loop.
#[derive(Clone, Copy, PartialEq)]
enum AccKind {
    /// `np.float32(0.0)`, or a torch 0-d tensor: `s += e` is an in-place float32 add.
    Tensor0,
    /// A Python float: `p += float(e)` adds in float64.
    PyFloat,
}

struct Acc {
    name: String,
    kind: AccKind,
    mul: bool,
}

/// One generated case: the source and the arguments of `f(x, y, a, b, n, i)`.
struct Case {
    src: String,
    shape: Vec<usize>,
    x: Vec<f32>,
    y: Vec<f32>,
    f64: bool,
    a: f64,
    b: f64,
    n: i64,
    i: i64,
    /// The layout of the second call's arguments (the first is contiguous).
    layout: Layout,
}

/// How the tensor arguments lie in memory. Specializations are keyed by dtype and rank only, so
/// one compiled function sees all of these: its runtime checks must tell them apart.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Layout {
    /// Two contiguous tensors.
    Contiguous,
    /// Every other element of a buffer twice as long in the last dimension (stride 2).
    Strided,
    /// `base[..., 1:]`: a storage offset, and rows of a 2-D input one element apart.
    Offset,
    /// `y` is `x`.
    Same,
    /// `x = base[..., :L]`, `y = base[..., s:L + s]`: `y[k]` is `x[k + s]`.
    Overlap(usize),
    /// The transpose of a contiguous tensor (2-D; last-dimension stride = rows); for 1-D,
    /// `Strided`.
    Transposed,
}

/// Filler of buffer elements outside the arguments' views (a wrong read shows).
const GAP: f32 = 777.0;

impl Case {
    fn tensor(&self, data: Vec<f32>, shape: &[usize]) -> Tensor {
        if self.f64 {
            let d: Vec<f64> = data.iter().map(|&v| f64::from(v)).collect();
            Tensor::from_vec(d, shape).unwrap()
        } else {
            Tensor::from_vec(data, shape).unwrap()
        }
    }

    /// The arguments of `f`, with `x` and `y` laid out as `layout` says.
    fn args_in(&self, layout: Layout) -> Vec<Value> {
        let (rows, l) = match self.shape[..] {
            [r, l] => (r, l),
            [l] => (1, l),
            _ => unreachable!(),
        };
        let last = self.shape.len() as i64 - 1;
        // A 1-D tensor has no transpose: every other element instead.
        let layout = match layout {
            Layout::Transposed if last == 0 => Layout::Strided,
            l => l,
        };
        // A buffer of `rows` rows of `width` elements (shaped like `x`, but wider), filled with
        // `GAP` and then row by row by `fill(buf, row)`.
        let wide = |width: usize, fill: &dyn Fn(&mut Vec<f32>, usize)| {
            let mut buf = vec![GAP; rows * width];
            for r in 0..rows {
                fill(&mut buf, r);
            }
            let shape: Vec<usize> = if self.shape.len() == 2 {
                vec![rows, width]
            } else {
                vec![width]
            };
            self.tensor(buf, &shape)
        };
        let slice = |t: &Tensor, start: usize, stop: usize, step: i64| {
            t.slice(last, Some(start as i64), Some(stop as i64), step)
                .unwrap()
        };
        let (x, y) = match layout {
            Layout::Contiguous => (
                self.tensor(self.x.clone(), &self.shape),
                self.tensor(self.y.clone(), &self.shape),
            ),
            Layout::Strided => {
                let mk = |d: &[f32]| {
                    let b = wide(2 * l, &|buf, r| {
                        for j in 0..l {
                            buf[r * 2 * l + 2 * j] = d[r * l + j];
                        }
                    });
                    slice(&b, 0, 2 * l, 2)
                };
                (mk(&self.x), mk(&self.y))
            }
            Layout::Offset => {
                let mk = |d: &[f32]| {
                    let b = wide(l + 1, &|buf, r| {
                        buf[r * (l + 1) + 1..(r + 1) * (l + 1)]
                            .copy_from_slice(&d[r * l..(r + 1) * l]);
                    });
                    slice(&b, 1, l + 1, 1)
                };
                (mk(&self.x), mk(&self.y))
            }
            Layout::Same => {
                let x = self.tensor(self.x.clone(), &self.shape);
                (x.clone(), x)
            }
            Layout::Overlap(s) => {
                let b = wide(l + s, &|buf, r| {
                    let w = l + s;
                    buf[r * w..r * w + l].copy_from_slice(&self.x[r * l..(r + 1) * l]);
                    for t in 0..s.min(l) {
                        buf[r * w + l + t] = self.y[r * l + t];
                    }
                });
                (slice(&b, 0, l, 1), slice(&b, s, l + s, 1))
            }
            Layout::Transposed => {
                let mk = |d: &[f32]| {
                    let mut t = vec![0.0; rows * l];
                    for r in 0..rows {
                        for j in 0..l {
                            t[j * rows + r] = d[r * l + j];
                        }
                    }
                    self.tensor(t, &[l, rows]).t().unwrap()
                };
                (mk(&self.x), mk(&self.y))
            }
        };
        vec![
            Value::Tensor(x),
            Value::Tensor(y),
            Value::Float(self.a),
            Value::Float(self.b),
            Value::Int(self.n),
            Value::Int(self.i),
        ]
    }

    fn args(&self) -> Vec<Value> {
        self.args_in(Layout::Contiguous)
    }

    fn describe(&self) -> String {
        format!(
            "{}\nx {:?} {:?}{}\ny {:?}\na {:?} b {:?} n {} i {}\nsecond call's layout {:?}",
            self.src,
            self.shape,
            self.x,
            if self.f64 { " (float64)" } else { "" },
            self.y,
            self.a,
            self.b,
            self.n,
            self.i,
            self.layout
        )
    }
}

/// Builds one program: the state of the generator while writing the body of `f`.
struct Builder<'g> {
    g: &'g mut Gen,
    np: bool,
    two_d: bool,
    /// The invariant row of 2-D accesses (`i`, or `r` of an outer loop over the rows).
    row: &'static str,
    loads: Vec<Arr>,
    stores: Vec<Arr>,
    /// Accumulators of earlier loops: loop-invariant leaves.
    outer_accs: Vec<String>,
    /// Accumulators of this loop.
    accs: Vec<Acc>,
    /// The largest offset `c` of `k + c` this loop uses.
    cmax: i64,
    /// The smallest `cols - c` over the loop's accesses, and the size expression reaching it.
    hi: Option<(i64, String, i64)>,
    /// Whether `e` (a temporary of the body) is bound.
    has_e: bool,
    /// Only what the vectorizer handles: no log/sin, `if`, `float(k)`, accumulator read or
    /// stored in its own loop.
    pure: bool,
}

impl Builder<'_> {
    fn subscript(&mut self, arr: usize, store: bool) -> String {
        let a = if store {
            &self.stores[arr]
        } else {
            &self.loads[arr]
        };
        let c = self.g.pick(self.cmax as usize + 1) as i64;
        let bound = a.cols - c;
        if self.hi.as_ref().is_none_or(|(h, _, _)| bound < *h) {
            self.hi = Some((bound, a.size.clone(), c));
        }
        let k = if c == 0 {
            "k".to_string()
        } else {
            format!("k + {c}")
        };
        if self.two_d {
            format!("{}[{}, {k}]", a.name, self.row)
        } else {
            format!("{}[{k}]", a.name)
        }
    }

    fn load(&mut self) -> String {
        // Mostly the inputs (`v`, `yv`, listed first), sometimes an output or a view written.
        let inputs = self
            .loads
            .iter()
            .take_while(|a| a.name.ends_with('v'))
            .count();
        let i = if self.g.chance(65) {
            self.g.pick(inputs)
        } else {
            self.g.pick(self.loads.len())
        };
        self.subscript(i, false)
    }

    /// A random float32 expression; with `tensor` it is sure to be a tensor (holds a load),
    /// else it may be a Python float.
    fn expr(&mut self, depth: usize, tensor: bool) -> (String, bool) {
        let np = self.np;
        if depth == 0 || self.g.chance(25) {
            return self.leaf(tensor);
        }
        match self.g.pick(20) {
            0..=8 => {
                let op = self.g.of(&["+", "-", "*", "/", "+", "*"]);
                // A Python float divisor could be zero (ZeroDivisionError): divide by tensors.
                // (`2.0 / t` is `rdiv`, which stays a tensor op: not in pure loops.)
                let (lt, rt) = if op == "/" {
                    (self.pure, true)
                } else if tensor {
                    let left = self.g.chance(50);
                    (left, !left)
                } else {
                    (false, false)
                };
                let (l, lk) = self.expr(depth - 1, lt);
                let (r, rk) = self.expr(depth - 1, rt);
                (format!("({l} {op} {r})"), lk || rk)
            }
            9 => {
                let (e, k) = self.expr(depth - 1, tensor);
                (format!("-{e}"), k)
            }
            _ => {
                let fs = [
                    "abs", "sqrt", "exp", "expm1", "tanh", "sigmoid", "abs", "exp", "tanh", "log",
                    "sin",
                ];
                let f = self.g.of(if self.pure { &fs[..9] } else { &fs });
                let (e, _) = self.expr(depth - 1, true);
                let s = match (np, f) {
                    (true, "sigmoid") if self.pure => {
                        format!("(np.float32(1.0) / (np.float32(1.0) + np.exp(-{e})))")
                    }
                    (true, "sigmoid") => format!("(1.0 / (1.0 + np.exp(-{e})))"),
                    (true, f) => format!("np.{f}({e})"),
                    (false, f) => format!("torch.{f}({e})"),
                };
                (s, true)
            }
        }
    }

    fn leaf(&mut self, tensor: bool) -> (String, bool) {
        let choice = if tensor { 0 } else { self.g.pick(12) };
        match choice {
            0..=4 => (self.load(), true),
            5 => (self.g.of(&["a", "b"]).to_string(), false),
            6 => {
                let c = self.g.of(&["0.5", "2.0", "1.5", "-3.0", "1e-3", "0.0"]);
                if self.np && self.g.chance(50) {
                    (format!("np.float32({c})"), true)
                } else {
                    (c.to_string(), false)
                }
            }
            7 if !self.outer_accs.is_empty() => {
                let i = self.g.pick(self.outer_accs.len());
                (self.outer_accs[i].clone(), false)
            }
            8 if self.has_e => ("e".to_string(), true),
            // Not vectorizable: the counter as a float.
            9 if !self.pure => {
                if self.np {
                    ("np.float32(k)".to_string(), true)
                } else {
                    ("float(k)".to_string(), false)
                }
            }
            // Not vectorizable: an accumulator read in its own loop.
            10 if !self.pure && !self.accs.is_empty() && self.g.chance(30) => {
                let i = self.g.pick(self.accs.len());
                let a = &self.accs[i];
                (a.name.clone(), a.kind == AccKind::Tensor0)
            }
            _ => (self.load(), true),
        }
    }

    /// One statement of the loop body (indented by `ind`).
    fn statement(&mut self, ind: &str, allow_if: bool) -> String {
        let depth = 1 + self.g.pick(3);
        match self.g.pick(12) {
            0..=4 => {
                let tensor = self.g.chance(70);
                let (e, _) = self.expr(depth, tensor);
                let n = self.stores.len();
                let d = self.g.pick(n);
                let target = self.subscript(d, true);
                format!("{ind}{target} = {e}\n")
            }
            5..=8 if !self.accs.is_empty() => {
                let i = self.g.pick(self.accs.len());
                let (e, _) = self.expr(depth, true);
                let a = &self.accs[i];
                let op = if a.mul { "*=" } else { "+=" };
                match a.kind {
                    AccKind::Tensor0 => format!("{ind}{} {op} {e}\n", a.name),
                    AccKind::PyFloat => format!("{ind}{} {op} float({e})\n", a.name),
                }
            }
            // An accumulator that is also stored.
            9 if !self.pure && !self.accs.is_empty() => {
                let i = self.g.pick(self.accs.len());
                let name = self.accs[i].name.clone();
                let n = self.stores.len();
                let d = self.g.pick(n);
                let target = self.subscript(d, true);
                format!("{ind}{target} = {name}\n")
            }
            // Not vectorizable: an `if` in the body.
            10 if !self.pure && allow_if => {
                let l = self.load();
                let t = self.statement(&format!("{ind}    "), false);
                let mut s = if self.np {
                    format!("{ind}if {l} > a:\n{t}")
                } else {
                    format!("{ind}if bool({l} > a):\n{t}")
                };
                if self.g.chance(50) {
                    let f = self.statement(&format!("{ind}    "), false);
                    s.push_str(&format!("{ind}else:\n{f}"));
                }
                s
            }
            _ => {
                let (e, _) = self.expr(depth, true);
                let n = self.stores.len();
                let d = self.g.pick(n);
                let target = self.subscript(d, true);
                format!("{ind}{target} = {e}\n")
            }
        }
    }
}

fn dim(np: bool, name: &str, d: usize) -> String {
    if np {
        format!("{name}.shape[{d}]")
    } else {
        format!("{name}.size({d})")
    }
}

fn case(seed: u64) -> Case {
    let mut g = Gen::new(seed);
    let np = g.chance(50);
    let two_d = g.chance(40);
    let f64 = g.chance(8);
    let shape = if two_d {
        vec![1 + g.pick(3), LENS[g.pick(LENS.len())]]
    } else if g.chance(5) {
        vec![1001]
    } else {
        vec![LENS[g.pick(LENS.len())]]
    };
    let numel: usize = shape.iter().product();
    let mut x: Vec<f32> = (0..numel).map(|_| g.element()).collect();
    let y: Vec<f32> = (0..numel).map(|_| g.element()).collect();
    if let Some(v) = x.first_mut() {
        // `x[0] * 0.0` starts torch accumulators: keep it finite.
        *v = 0.75;
    }
    let (a, b) = (g.scalar(), g.scalar());

    // The view the loops walk, and its shape.
    let (rows, cols, view) = if two_d {
        let (r, l) = (shape[0] as i64, shape[1] as i64);
        match g.pick(4) {
            0 => (r, l, "{x}"),
            1 => (l, r, if np { "{x}.T" } else { "{x}.t()" }),
            2 => (r, (l + 1) / 2, "{x}[:, ::2]"),
            _ => ((r + 1) / 2, l, "{x}[::2]"),
        }
    } else {
        let l = shape[0] as i64;
        match g.pick(4) {
            0 | 1 => (1, l, "{x}"),
            2 => (1, (l + 1) / 2, "{x}[::2]"),
            _ => (1, (l - 1).max(0), "{x}[1:]"),
        }
    };
    let size = |name: &str| dim(np, name, if two_d { 1 } else { 0 });
    let mut body = format!("    v = {}\n", view.replace("{x}", "x"));
    let mut loads = vec![Arr {
        name: "v",
        cols,
        size: size("v"),
    }];
    let mut stores = vec![Arr {
        name: "v",
        cols,
        size: size("v"),
    }];
    if g.chance(40) {
        body.push_str(&format!("    yv = {}\n", view.replace("{x}", "y")));
        loads.push(Arr {
            name: "yv",
            cols,
            size: size("yv"),
        });
    }
    // A view of `v` written while `v` is read: `w[k]` is `v[k + d]`.
    if g.chance(50) {
        let d = g.pick(3) as i64;
        let w = match (d, two_d) {
            (0, _) => "v".to_string(),
            (d, false) => format!("v[{d}:]"),
            (d, true) => format!("v[:, {d}:]"),
        };
        body.push_str(&format!("    w = {w}\n"));
        for list in [&mut loads, &mut stores] {
            list.push(Arr {
                name: "w",
                cols: (cols - d).max(0),
                size: size("w"),
            });
        }
    }
    let new = |g: &mut Gen| {
        let f = g.of(&["empty_like", "zeros_like"]);
        if np {
            format!("np.{f}(v)")
        } else {
            format!("torch.{f}(v)")
        }
    };
    // Most programs store only into tensors they allocate (the input is then read only, and
    // its subscripts become element loads); the others also write the input and its views.
    let fresh = g.chance(60);
    if fresh {
        stores.clear();
    }
    let mut outs = vec![];
    for name in ["o", "o2"] {
        if g.chance(if name == "o" { 80 } else { 35 }) || stores.is_empty() {
            body.push_str(&format!("    {name} = {}\n", new(&mut g)));
            outs.push(name);
            stores.push(Arr {
                name,
                cols,
                size: size(name),
            });
            loads.push(Arr {
                name,
                cols,
                size: size(name),
            });
        }
    }

    // Accumulators, all bound before the loops (returned at the end).
    let mut all_accs: Vec<Acc> = vec![];
    let nloops = 1 + g.pick(2);
    let mut per_loop: Vec<Vec<Acc>> = vec![];
    for l in 0..nloops {
        let mut accs = vec![];
        for j in 0..g.pick(3) {
            let kind = if g.chance(75) {
                AccKind::Tensor0
            } else {
                AccKind::PyFloat
            };
            let mul = g.chance(20);
            let name = format!("s{l}{j}");
            let one = if mul { "1.0" } else { "0.0" };
            let init = match kind {
                AccKind::PyFloat => one.to_string(),
                AccKind::Tensor0 if np => format!("np.float32({one})"),
                AccKind::Tensor0 if numel == 0 => {
                    format!("torch.zeros([], dtype=torch.float32) + {one}")
                }
                AccKind::Tensor0 if two_d => format!("x[0, 0] * 0.0 + {one}"),
                AccKind::Tensor0 => format!("x[0] * 0.0 + {one}"),
            };
            body.push_str(&format!("    {name} = {init}\n"));
            accs.push(Acc { name, kind, mul });
        }
        per_loop.push(accs);
    }

    // The loops, inside an outer loop over the rows or at a row given as `i`.
    let outer = two_d && g.chance(50);
    let (row, ind) = if outer {
        body.push_str(&format!("    for r in range({}):\n", dim(np, "v", 0)));
        ("r", "        ")
    } else {
        ("i", "    ")
    };
    let mut i = if two_d {
        g.pick(rows.max(1) as usize) as i64
    } else {
        0
    };
    if two_d && g.chance(10) {
        i = -i - 1;
    }
    if two_d && g.chance(4) {
        i = rows; // out of range
    }
    let mut n = 0;
    let mut n_used = false;
    let mut outer_accs: Vec<String> = vec![];
    for accs in per_loop {
        let mut bld = Builder {
            g: &mut g,
            np,
            two_d,
            row,
            loads: std::mem::take(&mut loads),
            stores: std::mem::take(&mut stores),
            outer_accs: outer_accs.clone(),
            accs,
            cmax: 0,
            hi: None,
            has_e: false,
            pure: false,
        };
        bld.pure = bld.g.chance(50);
        bld.cmax = bld.g.pick(3) as i64;
        let inner = format!("{ind}    ");
        let mut text = String::new();
        if bld.g.chance(30) {
            let (e, _) = bld.expr(2, true);
            text.push_str(&format!("{inner}e = {e}\n"));
            bld.has_e = true;
        }
        for _ in 0..1 + bld.g.pick(3) {
            let s = bld.statement(&inner, true);
            text.push_str(&s);
        }
        let (hi, size, c) = bld.hi.clone().expect("a body accesses an array");
        let minus = |c: i64| {
            if c == 0 {
                String::new()
            } else {
                format!(" - {c}")
            }
        };
        let header = match bld.g.pick(10) {
            0..=2 => format!("range({size}{})", minus(c)),
            3 => format!("range(1, {size}{})", minus(c)),
            4..=6 if !n_used => {
                n_used = true;
                n = hi;
                "range(n)".to_string()
            }
            7 if !n_used => {
                n_used = true;
                let cc = bld.g.pick(3) as i64;
                n = hi + cc;
                format!("range(n{})", minus(cc))
            }
            // Out of range: the loop must raise the interpreter's IndexError.
            8 if !n_used && bld.g.chance(50) => {
                n_used = true;
                n = hi + 1;
                "range(n)".to_string()
            }
            _ => format!("range({size}{})", minus(c)),
        };
        body.push_str(&format!("{ind}for k in {header}:\n{text}"));
        loads = std::mem::take(&mut bld.loads);
        stores = std::mem::take(&mut bld.stores);
        for a in &bld.accs {
            outer_accs.push(a.name.clone());
        }
        all_accs.extend(bld.accs);
    }

    let mut rets: Vec<(String, &str)> = outs.iter().map(|o| (o.to_string(), "Tensor")).collect();
    rets.push(("x".into(), "Tensor"));
    if loads.iter().any(|a| a.name == "yv") || rets.len() + all_accs.len() < 2 {
        rets.push(("y".into(), "Tensor"));
    }
    for a in &all_accs {
        let ty = match a.kind {
            AccKind::Tensor0 => "Tensor",
            AccKind::PyFloat => "float",
        };
        rets.push((a.name.clone(), ty));
    }
    let names: Vec<&str> = rets.iter().map(|(n, _)| n.as_str()).collect();
    let src = if np {
        format!(
            "import numpy as np\n\n\ndef f(x, y, a, b, n, i):\n{body}    return {}\n",
            names.join(", ")
        )
    } else {
        let tys: Vec<&str> = rets.iter().map(|(_, t)| *t).collect();
        format!(
            "import torch\nfrom torch import Tensor\nfrom typing import Tuple\n\n\n\
             def f(x: Tensor, y: Tensor, a: float, b: float, n: int, i: int) -> Tuple[{}]:\n\
             {body}    return {}\n",
            tys.join(", "),
            names.join(", ")
        )
    };
    let layout = match g.pick(6) {
        0 => Layout::Strided,
        1 => Layout::Offset,
        2 => Layout::Same,
        3 => Layout::Overlap(1 + g.pick(2)),
        4 if two_d => Layout::Transposed,
        _ => Layout::Contiguous,
    };
    Case {
        src,
        shape,
        x,
        y,
        f64,
        a,
        b,
        n,
        i,
        layout,
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 1500,
        failure_persistence: None,
        // Shrinking a seed gives unrelated programs: a few tries only.
        max_shrink_iters: 32,
        ..ProptestConfig::default()
    })]

    #[test]
    fn vector_loops_native_equals_interpreter(seed in any::<u64>()) {
        let c = case(seed);
        // Contiguous arguments, then (same machine code) the case's layout.
        let layouts = [Layout::Contiguous, c.layout];
        if let Err(d) = common::differences(&c.src, 2, |k| c.args_in(layouts[k])) {
            prop_assert!(false, "{}\n{d}", c.describe());
        }
    }
}

/// The generated programs' loops are element loops at -O2: `tensor.load`, `tensor.store` and
/// `elem.` ops in the optimized IR, so the property test exercises them, not tensor kernels; in
/// many programs no loop keeps a tensor op on a 0-d tensor (a subscript or its arithmetic).
#[test]
fn generated_programs_use_element_ops() {
    let (mut loads, mut stores, mut elems, mut programs, mut element_only) = (0, 0, 0, 0, 0);
    // Programs whose native code has a vector loop (`f32x4`/`f64x2` in its Cranelift IR).
    let mut vectorized = 0;
    for seed in 0..200u64 {
        let c = case(seed);
        let args = c.args();
        let p = common::compile(&c.src, Backend::Interp, OptLevel::O2, &args);
        let (m, _, _) = p.specialize_optimized("f", &args).unwrap();
        let text = pyjit::ir::print_module(&m);
        // The specialization (the generic function comes first).
        let text = &text[text.find("func @\"f.specialized\"").unwrap()..];
        let (l, s, e) = (
            text.matches("tensor.load").count(),
            text.matches("tensor.store").count(),
            text.matches("= elem.").count(),
        );
        if l > 0 && s > 0 && e > 0 {
            programs += 1;
            // Lines in loop bodies are indented by 4 or more.
            if !text.lines().any(|l| {
                l.starts_with("    ")
                    && (l.contains("tensor.index(") || l.contains("Tensor[float32, []] = tensor."))
            }) {
                element_only += 1;
            }
        }
        (loads, stores, elems) = (loads + l, stores + s, elems + e);
        let options = pyjit::codegen::Options {
            keep_clif: true,
            ..pyjit::codegen::Options::default()
        };
        let native = pyjit::codegen::NativeModule::compile(&m, &options).unwrap();
        if native
            .clif()
            .iter()
            .any(|(_, clif)| clif.contains("f32x4") || clif.contains("f64x2"))
        {
            vectorized += 1;
        }
    }
    assert!(
        programs > 120
            && element_only > 60
            && vectorized > 100
            && loads > 500
            && stores > 250
            && elems > 450,
        "programs with all three {programs} (element ops only in loops {element_only}, \
         with a vector loop {vectorized}), loads {loads}, stores {stores}, elem ops {elems}"
    );
}

/// Asserts that native code and the interpreter at -O2 agree with the interpreter at -O0 on
/// `src`'s `f(args)`, and returns the reference's outcome.
fn check(src: &str, args: impl Fn() -> Vec<Value>) -> Result<Value, String> {
    common::differences(src, 1, |_| args())
        .unwrap_or_else(|d| panic!("{src}\nargs {:?}\n{d}", args()))
        .remove(0)
}

fn f32s(data: &[f32], shape: &[usize]) -> Value {
    Value::Tensor(Tensor::from_vec(data.to_vec(), shape).unwrap())
}

/// Ordinary values with a few special ones, deterministic.
fn data(len: usize, seed: u64) -> Vec<f32> {
    let mut g = Gen::new(seed);
    (0..len)
        .map(|j| {
            if j % 7 == 3 {
                g.element()
            } else {
                (g.pick(8001) as f32 - 4000.0) / 1000.0
            }
        })
        .collect()
}

const SOFTMAX_ROWS: &str = r#"
import numpy as np


def f(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(1, x.shape[1]):
            if x[i, j] > m:
                m = x[i, j]
        s = np.float32(0.0)
        for j in range(x.shape[1]):
            e = np.exp(x[i, j] - m)
            out[i, j] = e
            s += e
        for j in range(x.shape[1]):
            out[i, j] = out[i, j] / s
    return out


def g(x):
    # In place: the exponentials and then the division are stored into the input. (`m` is a
    # copy: `x[i, j]` is a view, which the stores below would change.)
    for i in range(x.shape[0]):
        m = x[i, 0] * np.float32(1.0)
        for j in range(1, x.shape[1]):
            if x[i, j] > m:
                m = x[i, j] * np.float32(1.0)
        s = np.float32(0.0)
        for j in range(x.shape[1]):
            x[i, j] = np.exp(x[i, j] - m)
            s += x[i, j]
        o = x
        for j in range(x.shape[1]):
            o[i, j] = o[i, j] / s
    return x
"#;

#[test]
fn softmax_rows_loops() {
    for shape in [[1, 1], [3, 4], [2, 5], [4, 8], [3, 17], [2, 33], [2, 1001]] {
        for name in ["f", "g"] {
            let src = SOFTMAX_ROWS.replace(&format!("def {name}(x)"), "def f(x)");
            let src = if name == "g" {
                src.replacen("def f(x)", "def h(x)", 1)
            } else {
                src
            };
            let d = data(shape[0] * shape[1], shape[1] as u64);
            let r = check(&src, || vec![f32s(&d, &shape)]);
            assert!(r.is_ok(), "{name} {shape:?}: {r:?}");
        }
    }
}

const ELEMENTWISE_CHAIN: &str = r#"
import numpy as np


def f(x, y):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        xi = x[i]
        yi = y[i]
        sig = np.float32(1.0) / (np.float32(1.0) + np.exp(-yi))
        out[i] = np.tanh(xi * np.float32(2.0) + yi) * sig - np.float32(0.5) * xi
    return out
"#;

#[test]
fn elementwise_chain_loops() {
    for len in LENS.iter().copied().chain([1001]) {
        let (x, y) = (data(len, 7 + len as u64), data(len, 99 + len as u64));
        let r = check(ELEMENTWISE_CHAIN, || {
            vec![f32s(&x, &[len]), f32s(&y, &[len])]
        });
        assert!(r.is_ok(), "{len}: {r:?}");
    }
}

/// Each iteration reads what the one before wrote: `x[k + 1] = x[k] * 2.0` doubles `x[0]`
/// along the tensor; the reverse direction reads elements not yet written.
#[test]
fn aliasing_shift() {
    let forward = "import torch\nfrom torch import Tensor\n\n\n\
        def f(x: Tensor, n: int) -> Tensor:\n    for k in range(n - 1):\n        \
        x[k + 1] = x[k] * 2.0\n    return x\n";
    let backward = "import torch\nfrom torch import Tensor\n\n\n\
        def f(x: Tensor, n: int) -> Tensor:\n    for k in range(n - 1):\n        \
        x[k] = x[k + 1] * 2.0\n    return x\n";
    let view = "import numpy as np\n\n\ndef f(x, n):\n    o = x[1:]\n    \
        for k in range(n - 1):\n        o[k] = x[k] * np.float32(2.0) + np.float32(1.0)\n    \
        return x\n";
    for len in LENS.iter().copied().chain([1001]) {
        let d: Vec<f32> = (0..len).map(|j| 0.5 + j as f32).collect();
        let args = || vec![f32s(&d, &[len]), Value::Int(len as i64)];
        let Ok(Value::Tensor(t)) = check(forward, args) else {
            panic!("forward {len}")
        };
        let got = t.to_vec::<f32>();
        let mut want = d.clone();
        for k in 0..len.saturating_sub(1) {
            want[k + 1] = want[k] * 2.0;
        }
        assert_eq!(got, want, "forward shift, length {len}");
        let Ok(Value::Tensor(t)) = check(backward, args) else {
            panic!("backward {len}")
        };
        let mut want = d.clone();
        for k in 0..len.saturating_sub(1) {
            want[k] = want[k + 1] * 2.0;
        }
        assert_eq!(t.to_vec::<f32>(), want, "backward shift, length {len}");
        let Ok(Value::Tensor(t)) = check(view, args) else {
            panic!("view {len}")
        };
        let mut want = d.clone();
        for k in 0..len.saturating_sub(1) {
            want[k + 1] = want[k] * 2.0 + 1.0;
        }
        assert_eq!(
            t.to_vec::<f32>(),
            want,
            "shift through a view, length {len}"
        );
    }
}

/// A float32 sum whose value depends on the order of the additions: the loop must add in
/// sequence (lanes summed separately and combined at the end give another result).
#[test]
fn reduction_in_order() {
    let np_sum = "import numpy as np\n\n\ndef f(x):\n    s = np.float32(0.0)\n    \
        for k in range(x.shape[0]):\n        s += x[k]\n    return s\n";
    let torch_sum = "import torch\nfrom torch import Tensor\n\n\n\
        def f(x: Tensor) -> Tensor:\n    s = x[0] * 0.0\n    for k in range(x.size(0)):\n        \
        s += x[k] * 1.0\n    return s\n";
    let np_prod = "import numpy as np\n\n\ndef f(x):\n    p = np.float32(1.0)\n    \
        for k in range(x.shape[0]):\n        p *= x[k] + np.float32(1.0)\n    return p\n";
    for len in [4usize, 5, 8, 9, 16, 17, 33, 1001] {
        let d: Vec<f32> = (0..len)
            .map(|j| match j % 4 {
                0 => 1e8,
                1 => 1.0,
                2 => -1e8,
                _ => 1.0 + j as f32 * 1e-3,
            })
            .collect();
        // `src` on `data` returns exactly `want`, a 0-d float32 tensor.
        let expect = |src: &str, data: &[f32], want: f32| {
            let Ok(Value::Tensor(t)) = check(src, || vec![f32s(data, &[len])]) else {
                panic!("{src}")
            };
            let got = t.to_vec::<f32>()[0];
            assert_eq!(got.to_bits(), want.to_bits(), "{src}\n{len}");
        };
        let want = d.iter().fold(0.0f32, |s, v| s + v);
        for src in [np_sum, torch_sum] {
            expect(src, &d, want);
        }
        let p: Vec<f32> = (0..len).map(|j| [1e-3, 3e3, 0.7, -1.3][j % 4]).collect();
        expect(np_prod, &p, p.iter().fold(1.0f32, |s, v| s * (v + 1.0)));
    }
}

/// Prints generated programs (`cargo test -- --ignored --nocapture print_generated`).
#[test]
#[ignore]
fn print_generated() {
    for seed in 0..8u64 {
        println!("---- seed {seed}\n{}", case(seed).describe());
    }
}

/// `m = x[j]` is a view of `x` (a 0-d tensor): a later store into that element changes `m`
/// (PyTorch's semantics, which the NumPy spelling shares in pyjit today). `scalarize` once read
/// the element where the subscript was when `m` was the result of an `if` carried through a loop
/// (the running maximum of a softmax row), so stores made after the loop were not seen and -O2
/// disagreed with -O0 (`running_max`); an `if` alone (`branch`) or a loop alone (`carried`)
/// agreed. Regression test of that (`tests/ir/scalarize/not_carried_view_written.ir`).
#[test]
fn carried_view_sees_later_stores() {
    let carried = "import torch\nfrom torch import Tensor\n\n\n\
        def f(x: Tensor) -> Tensor:\n    m = x[0]\n    for j in range(x.size(0)):\n        \
        m = x[j]\n    x[3] = 5.0\n    return m * 1.0\n";
    let running_max = "import torch\nfrom torch import Tensor\n\n\n\
        def f(x: Tensor) -> Tensor:\n    m = x[0]\n    for j in range(1, x.size(0)):\n        \
        if bool(x[j] > m):\n            m = x[j]\n    for j in range(x.size(0)):\n        \
        x[j] = x[j] - m\n    return x\n";
    let branch = "import torch\nfrom torch import Tensor\n\n\n\
        def f(x: Tensor) -> Tensor:\n    m = x[0]\n    if bool(x[1] > m):\n        m = x[1]\n    \
        x[0] = 5.0\n    x[1] = 5.0\n    return m * 1.0\n";
    // NumPy spelling (NumPy's `x[j]` of a 1-D array is a copy: it gives what -O2 gives).
    let running_max_np = "import numpy as np\n\n\ndef f(x):\n    m = x[0]\n    \
        for j in range(1, x.shape[0]):\n        if x[j] > m:\n            m = x[j]\n    \
        for j in range(x.shape[0]):\n        x[j] = x[j] - m\n    return x\n";
    let mut failures = vec![];
    for src in [branch, carried, running_max, running_max_np] {
        let d = [0.809f32, 0.285, -2.161, -1.562];
        if let Err(e) = common::differences(src, 1, |_| vec![f32s(&d, &[4])]) {
            failures.push(format!("{src}\n{e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The argument layouts hold the case's values, with the strides and sharing they promise.
#[test]
fn layouts_hold_the_data() {
    for seed in 0..40u64 {
        let c = case(seed);
        let (rows, l) = match c.shape[..] {
            [r, l] => (r, l),
            [l] => (1, l),
            _ => unreachable!(),
        };
        for layout in [
            Layout::Contiguous,
            Layout::Strided,
            Layout::Offset,
            Layout::Same,
            Layout::Overlap(1),
            Layout::Overlap(2),
            Layout::Transposed,
        ] {
            let args = c.args_in(layout);
            let (Value::Tensor(x), Value::Tensor(y)) = (&args[0], &args[1]) else {
                unreachable!()
            };
            let vals = |t: &Tensor| -> Vec<f32> {
                t.to_vec::<f64>().into_iter().map(|v| v as f32).collect()
            };
            let same = |a: &[f32], b: &[f32]| {
                a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits())
            };
            assert_eq!(x.shape(), &c.shape[..], "{layout:?}");
            assert!(same(&vals(x), &c.x), "{layout:?} x");
            let last = *x.strides().last().unwrap();
            match layout {
                Layout::Same => assert!(x.shares_storage(y) && same(&vals(y), &c.x)),
                Layout::Overlap(s) => {
                    assert!(x.shares_storage(y));
                    let (xv, yv) = (vals(x), vals(y));
                    for r in 0..rows {
                        for j in 0..l.saturating_sub(s) {
                            assert_eq!(yv[r * l + j].to_bits(), xv[r * l + j + s].to_bits());
                        }
                    }
                }
                _ => assert!(!x.shares_storage(y) && same(&vals(y), &c.y), "{layout:?} y"),
            }
            match layout {
                Layout::Strided if l > 0 => assert_eq!(last, 2),
                Layout::Transposed if c.shape.len() == 1 && l > 0 => assert_eq!(last, 2),
                Layout::Offset if l > 0 => assert_eq!(x.storage_offset(), 1),
                Layout::Transposed if c.shape.len() == 2 && l > 1 => assert_eq!(last, rows),
                _ => {}
            }
        }
    }
}

/// Running maxima and minima (`if x[j] > m: m = x[j]`), which the vector loop keeps per lane
/// with the iteration that gave each: the result must be the scalar loop's first extremum to the
/// bit — with zeros of both signs (equal, so the earliest wins), NaN as the starting value (kept)
/// or among the elements (skipped), infinities, and ties across lanes and parts. Also checks
/// that the loops are vectorized.
#[test]
fn running_extrema_keep_the_first() {
    let np_src = "import numpy as np\n\n\ndef f(x):\n    out = np.empty_like(x)\n    m = x[0]\n    \
        for j in range(1, x.shape[0]):\n        if x[j] > m:\n            m = x[j]\n    n = x[0]\n    \
        for j in range(1, x.shape[0]):\n        if x[j] < n:\n            n = x[j]\n    out[0] = m\n    \
        out[1] = n\n    return out\n";
    let torch_src = "import torch\nfrom torch import Tensor\n\n\ndef f(x: Tensor) -> Tensor:\n    \
        out = torch.zeros_like(x)\n    m = x[0]\n    for j in range(1, x.size(0)):\n        \
        if bool(x[j] > m):\n            m = x[j]\n    n = x[0]\n    for j in range(1, x.size(0)):\n        \
        if bool(x[j] < n):\n            n = x[j]\n    out[0] = m\n    out[1] = n\n    return out\n";
    for src in [np_src, torch_src] {
        let f = SourceFile::new("gen.py", src);
        let p = Program::compile_with(f, Options::at_level(OptLevel::O2)).unwrap();
        let args = vec![f32s(&[1.0; 20], &[20])];
        let (m, _, _) = p.specialize_optimized("f", &args).unwrap();
        let options = pyjit::codegen::Options {
            keep_clif: true,
            ..pyjit::codegen::Options::default()
        };
        let native = pyjit::codegen::NativeModule::compile(&m, &options).unwrap();
        assert!(
            native.clif().iter().any(|(_, c)| c.contains("f32x4")),
            "{src}: not vectorized"
        );
    }
    let mut cases: Vec<Vec<f32>> = Vec::new();
    for len in [2, 9, 10, 17, 24, 40] {
        // Zeros of both signs, the sign pattern shifted through the lanes and parts.
        for shift in 0..9 {
            cases.push(
                (0..len)
                    .map(|j| if (j + shift) % 3 == 0 { -0.0 } else { 0.0 })
                    .collect(),
            );
            cases.push(
                (0..len)
                    .map(|j| match (j + shift) % 5 {
                        0 => -0.0,
                        1 => 0.0,
                        _ => -1.0 - j as f32,
                    })
                    .collect(),
            );
        }
        let mut nan_first: Vec<f32> = (0..len).map(|j| j as f32 - 3.0).collect();
        nan_first[0] = f32::NAN;
        cases.push(nan_first);
        let mut nan_inside: Vec<f32> = (0..len).map(|j| (j % 7) as f32 - 3.0).collect();
        nan_inside[len / 2] = f32::NAN;
        cases.push(nan_inside);
        cases.push(
            (0..len)
                .map(|j| [f32::INFINITY, -f32::INFINITY, 1.0][j % 3])
                .collect(),
        );
        cases.push(vec![2.5; len]);
        cases.push((0..len).map(|j| ((j * 7) % 11) as f32).collect());
    }
    for d in &cases {
        for src in [np_src, torch_src] {
            let r = check(src, || vec![f32s(d, &[d.len()])]);
            assert!(r.is_ok(), "{src}\n{d:?}: {r:?}");
        }
    }
}
