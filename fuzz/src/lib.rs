//! What the fuzz targets share: the generator of well-typed programs the differential target
//! runs, the differential check itself, and the generated seed corpora (`src/bin/seeds.rs`).
//!
//! The generator reads its choices from fuzzer bytes ([`arbitrary::Unstructured`]), so libFuzzer
//! mutates programs through their choices; every byte string gives a program that scripts
//! (a failure to compile one is a bug the differential target reports).

use arbitrary::{Result, Unstructured};
use pyjit::runtime::Tensor;
use pyjit::traced::{TraceOptions, TracedProgram};
use pyjit::{Backend, CallError, Options, Program, SourceFile, Value};
use std::fmt::Write as _;

/// A generated program: the source of one function `f(x: Tensor, a: int, b: float)` and the
/// arguments to call it with.
pub struct Generated {
    pub source: String,
    pub x: Vec<f32>,
    pub a: i64,
    pub b: f64,
}

impl Generated {
    pub fn args(&self) -> Vec<Value> {
        let n = self.x.len();
        vec![
            Value::Tensor(Tensor::from_vec(self.x.clone(), &[n]).expect("1-d tensor")),
            Value::Int(self.a),
            Value::Float(self.b),
        ]
    }
}

/// Variables in scope, by type (`iN` ints, `fN` floats, `tN` float32 tensors of the input's
/// shape).
struct Scope {
    ints: usize,
    floats: usize,
    tensors: usize,
}

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    out: String,
    /// Statements left to emit (bounds the program's size).
    budget: usize,
}

const MAX_DEPTH: usize = 3;

impl Gen<'_, '_> {
    fn int_expr(&mut self, s: &Scope, depth: usize) -> Result<String> {
        let leaf = depth >= MAX_DEPTH || self.u.ratio(1, 3)?;
        if leaf {
            return Ok(if self.u.arbitrary()? {
                format!("i{}", self.u.choose_index(s.ints)?)
            } else {
                format!("{}", self.u.int_in_range(-7i64..=7)?)
            });
        }
        let a = self.int_expr(s, depth + 1)?;
        let b = self.int_expr(s, depth + 1)?;
        Ok(match self.u.int_in_range(0u8..=9)? {
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("({a} // {b})"),
            4 => format!("({a} % {b})"),
            5 => format!("min({a}, {b})"),
            6 => format!("max({a}, {b})"),
            7 => format!("abs({a})"),
            8 => format!("(-{a})"),
            _ => format!("x.size(0)"),
        })
    }

    fn float_expr(&mut self, s: &Scope, depth: usize) -> Result<String> {
        let leaf = depth >= MAX_DEPTH || self.u.ratio(1, 3)?;
        if leaf {
            return Ok(match self.u.int_in_range(0u8..=2)? {
                0 => format!("f{}", self.u.choose_index(s.floats)?),
                1 => format!("{:?}", f64::from(self.u.int_in_range(-40i16..=40)?) / 8.0),
                _ => format!("float(i{})", self.u.choose_index(s.ints)?),
            });
        }
        let a = self.float_expr(s, depth + 1)?;
        let b = self.float_expr(s, depth + 1)?;
        Ok(match self.u.int_in_range(0u8..=6)? {
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("({a} / {b})"),
            4 => format!("min({a}, {b})"),
            5 => {
                let t = self.tensor_expr(s, depth + 1)?;
                format!("float({t}.sum())")
            }
            _ => format!("abs({a})"),
        })
    }

    fn tensor_expr(&mut self, s: &Scope, depth: usize) -> Result<String> {
        let leaf = depth >= MAX_DEPTH || self.u.ratio(1, 3)?;
        if leaf {
            return Ok(format!("t{}", self.u.choose_index(s.tensors)?));
        }
        let a = self.tensor_expr(s, depth + 1)?;
        Ok(match self.u.int_in_range(0u8..=8)? {
            0 => format!("({a} + {})", self.tensor_expr(s, depth + 1)?),
            1 => format!("({a} * {})", self.tensor_expr(s, depth + 1)?),
            2 => format!("({a} - {})", self.float_expr(s, depth + 1)?),
            3 => format!("({a} * {})", self.int_expr(s, depth + 1)?),
            4 => format!("torch.relu({a})"),
            5 => format!("torch.tanh({a})"),
            6 => format!("{a}.clamp(-2.0, 2.0)"),
            7 => {
                let b = self.tensor_expr(s, depth + 1)?;
                let c = self.float_expr(s, depth + 1)?;
                format!("torch.where({a} > {c}, {a}, {b})")
            }
            _ => format!("torch.abs({a})"),
        })
    }

    fn cond(&mut self, s: &Scope) -> Result<String> {
        Ok(match self.u.int_in_range(0u8..=2)? {
            0 => format!("{} < {}", self.int_expr(s, 1)?, self.int_expr(s, 1)?),
            1 => format!("{} >= {}", self.float_expr(s, 1)?, self.float_expr(s, 1)?),
            _ => format!(
                "bool(({} > {}).any())",
                self.tensor_expr(s, 1)?,
                self.float_expr(s, 1)?
            ),
        })
    }

    fn line(&mut self, indent: usize, text: &str) {
        let _ = writeln!(self.out, "{:width$}{text}", "", width = 4 * indent);
    }

    /// Assignments to existing variables only inside blocks, so every variable has one type and
    /// is defined on every path.
    fn block(&mut self, s: &mut Scope, indent: usize, top: bool) -> Result<()> {
        let start = self.out.len();
        self.statements(s, indent, top)?;
        // The budget can run out before the first statement: a block is never empty.
        if self.out.len() == start {
            self.line(indent, "pass");
        }
        Ok(())
    }

    fn statements(&mut self, s: &mut Scope, indent: usize, top: bool) -> Result<()> {
        let n = self.u.int_in_range(1usize..=4)?;
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            match self.u.int_in_range(0u8..=5)? {
                0 | 1 => {
                    let new = top && self.u.arbitrary()?;
                    let e = self.int_expr(s, 0)?;
                    let i = if new {
                        s.ints
                    } else {
                        self.u.choose_index(s.ints)?
                    };
                    self.line(indent, &format!("i{i} = {e}"));
                    if new {
                        s.ints += 1;
                    }
                }
                2 => {
                    let new = top && self.u.arbitrary()?;
                    let e = self.float_expr(s, 0)?;
                    let i = if new {
                        s.floats
                    } else {
                        self.u.choose_index(s.floats)?
                    };
                    self.line(indent, &format!("f{i} = {e}"));
                    if new {
                        s.floats += 1;
                    }
                }
                3 => {
                    let new = top && self.u.arbitrary()?;
                    let e = self.tensor_expr(s, 0)?;
                    let i = if new {
                        s.tensors
                    } else {
                        self.u.choose_index(s.tensors)?
                    };
                    self.line(indent, &format!("t{i} = {e}"));
                    if new {
                        s.tensors += 1;
                    }
                }
                4 if indent < 4 => {
                    let c = self.cond(s)?;
                    self.line(indent, &format!("if {c}:"));
                    self.block(s, indent + 1, false)?;
                    if self.u.arbitrary()? {
                        self.line(indent, "else:");
                        self.block(s, indent + 1, false)?;
                    }
                }
                5 if indent < 4 => {
                    let n = self.u.int_in_range(0u8..=3)?;
                    let k = self.u.choose_index(s.ints)?;
                    self.line(indent, &format!("for k{indent} in range({n}):"));
                    self.line(indent + 1, &format!("i{k} = i{k} + k{indent}"));
                    self.block(s, indent + 1, false)?;
                }
                _ => {
                    let e = self.int_expr(s, 0)?;
                    let i = self.u.choose_index(s.ints)?;
                    self.line(indent, &format!("i{i} += {e}"));
                }
            }
        }
        Ok(())
    }
}

/// Deterministic pseudo-random bytes (xorshift64*), so the seed corpora are the same on every run.
pub fn pseudo_random_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

/// The bytes of the `diff` target's seed `k` (`src/bin/seeds.rs` writes `k` in 0..48).
pub fn seed_bytes(k: u64) -> Vec<u8> {
    pseudo_random_bytes(k, 64 + (k as usize % 8) * 64)
}

/// Generates one program from fuzzer bytes.
pub fn generate(u: &mut Unstructured<'_>) -> Result<Generated> {
    let n = u.int_in_range(1usize..=5)?;
    let x = (0..n)
        .map(|_| Ok(f32::from(u.int_in_range(-16i8..=16)?) / 4.0))
        .collect::<Result<Vec<f32>>>()?;
    let a = u.int_in_range(-9i64..=9)?;
    let b = f64::from(u.int_in_range(-16i8..=16)?) / 4.0;
    let mut g = Gen {
        u,
        out: String::new(),
        budget: 24,
    };
    g.out
        .push_str("import torch\nfrom torch import Tensor\nfrom typing import Tuple\n\n\n");
    g.out
        .push_str("def f(x: Tensor, a: int, b: float) -> Tuple[int, float, Tensor]:\n");
    g.line(1, "i0 = a");
    g.line(1, "f0 = b");
    g.line(1, "t0 = x");
    let mut s = Scope {
        ints: 1,
        floats: 1,
        tensors: 1,
    };
    g.block(&mut s, 1, true)?;
    let (i, f, t) = (s.ints - 1, s.floats - 1, s.tensors - 1);
    g.line(1, &format!("return i{i}, f{f}, t{t}"));
    Ok(Generated {
        source: g.out,
        x,
        a,
        b,
    })
}

/// An outcome comparable across engines: the printed value, or the exception class.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Value(String),
    Raised(String),
}

fn scripted(p: &Generated, backend: Backend, opt: pyjit::opt::OptLevel) -> Outcome {
    let options = Options {
        backend,
        ..Options::at_level(opt)
    };
    let program = Program::compile_with(SourceFile::new("gen.py", p.source.clone()), options)
        .unwrap_or_else(|d| panic!("a generated program does not compile: {d:?}\n{}", p.source));
    match program.call("f", p.args()) {
        Ok(v) => Outcome::Value(pyjit::output::display(&v)),
        Err(CallError::Run(e)) => Outcome::Raised(e.kind().to_string()),
        Err(e) => panic!("{backend:?}: {e}\n{}", p.source),
    }
}

/// Runs `p` on the interpreter (`-O0`, the oracle), natively at `-O2`, eagerly and traced
/// (natively), and panics (with the program) when they disagree.
pub fn differential(p: &Generated) {
    let oracle = scripted(p, Backend::Interp, pyjit::opt::OptLevel::O0);
    let native = scripted(p, Backend::Native, pyjit::opt::OptLevel::O2);
    let file = SourceFile::new("gen.py", p.source.clone());
    let ast = pyjit_syntax::parse_module(&file).expect("parses");
    let eager =
        match pyjit_trace::eval_function_to(&file, &ast, "f", p.args(), &mut std::io::sink()) {
            Ok(v) => Outcome::Value(pyjit::output::display(&v)),
            Err(e) => Outcome::Raised(e.kind.to_string()),
        };
    let mut traced = TracedProgram::new(file, ast, "f", TraceOptions::default(), Backend::Native);
    let traced = match traced.call_to(p.args(), &mut std::io::sink()) {
        Ok(v) => Outcome::Value(pyjit::output::display(&v)),
        Err(e) => Outcome::Raised(e.kind.to_string()),
    };
    let show = || {
        format!(
            "program:\n{}\nargs: x={:?} a={} b={}\ninterp -O0: {oracle:?}\nnative -O2: {native:?}\neager: {eager:?}\ntraced: {traced:?}",
            p.source, p.x, p.a, p.b
        )
    };
    assert!(
        oracle == native && oracle == eager && oracle == traced,
        "engines disagree\n{}",
        show()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every generated program compiles: the generator never writes an empty block (the `diff`
    /// smoke run crashed on one of its own seeds, whose budget ran out right after an `else:`).
    #[test]
    fn generated_programs_compile() {
        for k in 0..400u64 {
            let raw = seed_bytes(k);
            let Ok(p) = generate(&mut Unstructured::new(&raw)) else {
                continue;
            };
            let file = SourceFile::new("gen.py", p.source.clone());
            if let Err(d) = Program::compile(file) {
                panic!("seed {k}: {d:?}\n{}", p.source);
            }
        }
    }
}
