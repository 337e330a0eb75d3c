//! Differential property test: generated well-typed programs with int/float/bool arithmetic,
//! branches, loops (for and while) and calls give identical results (values or errors) natively
//! and on the interpreter. Proptest drives the generator's seed and the arguments.

#[path = "native_common/mod.rs"]
mod common;
use common::*;
use proptest::prelude::*;
use pyjit_codegen::Value;

/// A tiny deterministic generator of typed Python functions.
struct Gen {
    state: u64,
    ints: Vec<String>,
    floats: Vec<String>,
    fresh: usize,
    depth: usize,
}

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn int_var(&mut self) -> String {
        let i = self.pick(self.ints.len());
        self.ints[i].clone()
    }

    fn float_var(&mut self) -> String {
        let i = self.pick(self.floats.len());
        self.floats[i].clone()
    }

    fn int_expr(&mut self, d: u32) -> String {
        if d == 0 || self.pick(3) == 0 {
            return match self.pick(3) {
                0 => format!("{}", self.pick(21) as i64 - 10),
                _ => self.int_var(),
            };
        }
        match self.pick(8) {
            k @ 0..=4 => {
                let op = ["+", "-", "*", "//", "%"][k];
                format!("({} {op} {})", self.int_expr(d - 1), self.int_expr(d - 1))
            }
            5 => format!("(-{})", self.int_expr(d - 1)),
            6 => format!(
                "({} if {} else {})",
                self.int_expr(d - 1),
                self.cond(d - 1),
                self.int_expr(d - 1)
            ),
            _ => format!("int({})", self.float_expr(d - 1)),
        }
    }

    fn float_expr(&mut self, d: u32) -> String {
        if d == 0 || self.pick(3) == 0 {
            return match self.pick(3) {
                0 => format!("{:.2}", (self.pick(41) as f64 - 20.0) / 4.0),
                _ => self.float_var(),
            };
        }
        match self.pick(8) {
            k @ 0..=5 => {
                let op = ["+", "-", "*", "/", "//", "%"][k];
                format!(
                    "({} {op} {})",
                    self.float_expr(d - 1),
                    self.float_expr(d - 1)
                )
            }
            6 => format!("float({})", self.int_expr(d - 1)),
            _ => format!("(-{})", self.float_expr(d - 1)),
        }
    }

    fn cond(&mut self, d: u32) -> String {
        let ops = ["<", "<=", ">", ">=", "==", "!="];
        let op = ops[self.pick(ops.len())];
        match self.pick(5) {
            0 | 1 => format!("({} {op} {})", self.int_expr(d), self.int_expr(d)),
            2 => format!("({} {op} {})", self.float_expr(d), self.float_expr(d)),
            3 if d > 0 => format!("(not {})", self.cond(d - 1)),
            _ if d > 0 => {
                let andor = if self.pick(2) == 0 { "and" } else { "or" };
                format!("({} {andor} {})", self.cond(d - 1), self.cond(d - 1))
            }
            _ => "True".into(),
        }
    }

    fn stmts(&mut self, out: &mut String, indent: usize, n: usize) {
        let pad = " ".repeat(indent);
        for _ in 0..n {
            match self.pick(if self.depth < 2 { 6 } else { 3 }) {
                0 => {
                    let v = format!("i{}", self.fresh);
                    self.fresh += 1;
                    out.push_str(&format!("{pad}{v} = {}\n", self.int_expr(2)));
                    self.ints.push(v);
                }
                1 => {
                    let v = format!("f{}", self.fresh);
                    self.fresh += 1;
                    out.push_str(&format!("{pad}{v} = {}\n", self.float_expr(2)));
                    self.floats.push(v);
                }
                2 => {
                    // Reassign an existing variable (params included).
                    if self.pick(2) == 0 {
                        let v = self.int_var();
                        out.push_str(&format!("{pad}{v} = {}\n", self.int_expr(2)));
                    } else {
                        let v = self.float_var();
                        out.push_str(&format!("{pad}{v} = {}\n", self.float_expr(2)));
                    }
                }
                3 => {
                    // Variables created inside a branch or loop stay local to it.
                    let (ni, nf) = (self.ints.len(), self.floats.len());
                    self.depth += 1;
                    out.push_str(&format!("{pad}if {}:\n", self.cond(2)));
                    self.stmts(out, indent + 4, 2);
                    self.ints.truncate(ni);
                    self.floats.truncate(nf);
                    out.push_str(&format!("{pad}else:\n"));
                    self.stmts(out, indent + 4, 2);
                    self.ints.truncate(ni);
                    self.floats.truncate(nf);
                    self.depth -= 1;
                }
                4 => {
                    let (ni, nf) = (self.ints.len(), self.floats.len());
                    let k = format!("k{}", self.fresh);
                    self.fresh += 1;
                    self.depth += 1;
                    out.push_str(&format!("{pad}for {k} in range({}):\n", self.pick(6)));
                    self.ints.push(k);
                    self.stmts(out, indent + 4, 2);
                    self.ints.truncate(ni);
                    self.floats.truncate(nf);
                    self.depth -= 1;
                }
                _ => {
                    let (ni, nf) = (self.ints.len(), self.floats.len());
                    let c = format!("w{}", self.fresh);
                    self.fresh += 1;
                    self.depth += 1;
                    out.push_str(&format!("{pad}{c} = 0\n"));
                    out.push_str(&format!(
                        "{pad}while {c} < {} and {}:\n",
                        self.pick(5),
                        self.cond(1)
                    ));
                    out.push_str(&format!("{pad}    {c} += 1\n"));
                    self.stmts(out, indent + 4, 2);
                    self.ints.truncate(ni);
                    self.floats.truncate(nf);
                    self.depth -= 1;
                }
            }
        }
    }

    fn program(seed: u64) -> String {
        let mut g = Gen {
            state: seed | 1,
            ints: vec!["a".into(), "b".into()],
            floats: vec!["x".into()],
            fresh: 0,
            depth: 0,
        };
        let mut body = String::new();
        g.stmts(&mut body, 4, 5);
        let ret = if g.pick(2) == 0 {
            format!("    return ({}, {})\n", g.int_expr(2), g.float_expr(2))
        } else {
            format!("    return ({}, {})\n", g.int_expr(1), g.float_expr(1))
        };
        format!(
            "def helper(a: int, x: float) -> float:\n    return x * float(a) - 1.5\n\n\
             def f(a: int, b: int, x: float) -> Tuple[int, float]:\n    x = helper(b, x)\n{body}{ret}"
        )
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn native_equals_interpreter(
        seed in any::<u64>(),
        args in proptest::collection::vec((-20i64..20, -20i64..20, -8.0f64..8.0), 4),
    ) {
        let src = format!("from typing import Tuple\n\n{}", Gen::program(seed));
        let file = pyjit_syntax::SourceFile::new("gen.py", src.clone());
        let m = match pyjit_script::script_source(&file) {
            Ok(m) => m,
            Err(d) => panic!("generated program did not script:\n{src}\n{}", d.iter().map(|d| d.render(&file)).collect::<Vec<_>>().join("\n")),
        };
        let nm = native(&m);
        for (a, b, x) in args {
            let args = [Value::Int(a), Value::Int(b), Value::Float(x)];
            let (ri, _) = interp(&m, "f", &args);
            let (rn, _) = run_native(&nm, "f", &args);
            match (&ri, &rn) {
                (Ok(p), Ok(q)) => { if std::env::var("GEN_DEBUG").is_ok() { eprintln!("OK {p:?}"); } prop_assert!(same(p, q), "{src}\nargs {args:?}: {p:?} vs {q:?}") }
                (Err(p), Err(q)) => { if std::env::var("GEN_DEBUG").is_ok() { eprintln!("ERR {p}"); } prop_assert_eq!(p, q, "{}", src) }
                _ => prop_assert!(false, "{src}\nargs {args:?}: {ri:?} vs {rn:?}"),
            }
        }
    }
}

/// Generated programs mixing tensor ops with scalar control flow: tensors flow through
/// branches, loops (as carried values) and lists, so the ownership of every path is exercised.
fn tensor_program(seed: u64) -> String {
    let mut g = Gen {
        state: seed | 1,
        ints: vec!["n".into()],
        floats: vec!["x".into()],
        fresh: 0,
        depth: 0,
    };
    let tensors = ["t", "u", "v"];
    let mut body =
        String::from("    u = t * 2.0\n    v = torch.relu(t - x)\n    keep: List[Tensor] = []\n");
    let texpr = |g: &mut Gen| -> String {
        let a = tensors[g.pick(3)];
        let b = tensors[g.pick(3)];
        match g.pick(7) {
            0 => format!("{a} + {b}"),
            1 => format!("{a} * {b}"),
            2 => format!("{a} - {}", g.float_expr(1)),
            3 => format!("torch.tanh({a}) * {}", g.float_expr(1)),
            4 => format!("torch.where({a} > {b}, {a}, {b} * 0.5)"),
            5 => format!("{a} / ({b} * {b} + 1.0)"),
            _ => format!("torch.maximum({a}, {b})"),
        }
    };
    for _ in 0..5 {
        match g.pick(5) {
            0 | 1 => body.push_str(&format!("    {} = {}\n", ["u", "v"][g.pick(2)], texpr(&mut g))),
            2 => body.push_str(&format!(
                "    if float({}.sum()) > {}:\n        u = {}\n    else:\n        v = {}\n        keep.append(v)\n",
                tensors[g.pick(3)],
                g.float_expr(1),
                texpr(&mut g),
                texpr(&mut g)
            )),
            3 => body.push_str(&format!(
                "    for k in range({}):\n        u = {}\n        if k % 2 == 0:\n            keep.append(u)\n",
                g.pick(5),
                texpr(&mut g)
            )),
            _ => body.push_str(&format!(
                "    w = 0\n    while w < n and float(u.abs().sum()) < 1000.0:\n        u = u * 1.5 + {}\n        w += 1\n",
                tensors[g.pick(3)]
            )),
        }
    }
    format!(
        "import torch\nfrom torch import Tensor\nfrom typing import List, Tuple\n\n\
         def f(t: Tensor, n: int, x: float) -> Tuple[Tensor, float, int]:\n{body}    \
         return u + v, float(v.sum()), len(keep)\n"
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn tensor_programs_native_equals_interpreter(
        seed in any::<u64>(),
        data in proptest::collection::vec(-4.0f64..4.0, 3),
        n in 0i64..6,
        x in -3.0f64..3.0,
    ) {
        let src = tensor_program(seed);
        let file = pyjit_syntax::SourceFile::new("gen.py", src.clone());
        let m = match pyjit_script::script_source(&file) {
            Ok(m) => m,
            Err(d) => panic!("generated program did not script:\n{src}\n{}", d.iter().map(|d| d.render(&file)).collect::<Vec<_>>().join("\n")),
        };
        let nm = native(&m);
        let args = || vec![
            Value::Tensor(pyjit_runtime::Tensor::from_vec(data.clone(), &[3]).unwrap()),
            Value::Int(n),
            Value::Float(x),
        ];
        let t0 = pyjit_runtime::abi::live_tensor_count();
        let (ri, _) = interp(&m, "f", &args());
        let (rn, _) = run_native(&nm, "f", &args());
        if std::env::var("GEN_DEBUG").is_ok() {
            eprintln!("{}", if ri.is_ok() { "OK" } else { "ERR" });
        }
        match (&ri, &rn) {
            (Ok(p), Ok(q)) => prop_assert!(same(p, q), "{src}\n{p:?} vs {q:?}"),
            (Err(p), Err(q)) => prop_assert_eq!(p, q, "{}", src),
            _ => prop_assert!(false, "{src}\n{ri:?} vs {rn:?}"),
        }
        drop(rn);
        // Other tests in this binary create no tensor handles, so the count is stable.
        prop_assert_eq!(pyjit_runtime::abi::live_tensor_count(), t0);
    }
}
