//! Differential property test of element loads and stores (`tensor.load` / `tensor.store`,
//! issue 12): generated programs read and write single elements of views of their input
//! (transposes, slices with steps, rows of rows) and of fresh int32/bool tensors, with negative
//! and out-of-range indices. Native code at -O2 (where the `tensor-access` pass turns the
//! subscripts into inline loads and stores) must give exactly what the interpreter gives at -O0
//! (the runtime's own subscripts) and at -O2: values, tensors written, errors (class, message,
//! span). Element arithmetic on 0-d tensors (`torch.exp(y[i, j]) * 2.0`, `s += …`) becomes
//! `elem` ops (the `scalarize` pass), which must give the tensor kernels' bits.

#[path = "native_common/mod.rs"]
mod common;
use proptest::prelude::*;
use pyjit::opt::manager::OptLevel;
use pyjit::{Backend, Options, Program, SourceFile, Value};

use common::Rng as Gen;

/// Views of `x: [3, 4]` (float32) and their shapes.
const VIEWS: &[(&str, [i64; 2])] = &[
    ("x", [3, 4]),
    ("x.t()", [4, 3]),
    ("x[1:]", [2, 4]),
    ("x[:, 1::2]", [3, 2]),
    ("x.transpose(0, 1)[1:, :]", [3, 3]),
    ("x[::2]", [2, 4]),
];

fn program(seed: u64) -> String {
    let mut g = Gen(seed | 1);
    let (view, _) = VIEWS[g.pick(VIEWS.len())];
    let mut body = format!(
        "    y = {view}\n    z = torch.zeros([3, 4], dtype=torch.int32)\n    b = x > 0.0\n    acc = 0.0\n"
    );
    let idx = ["i", "j", "-1", "i - 2", "j + 1", "0", "1"];
    for _ in 0..5 {
        let (a, c) = (g.of(&idx), g.of(&idx));
        body.push_str(&match g.pick(14) {
            // `range(k, n)` over a size: indices proven in bounds too.
            13 => format!(
                "    for k in range(1, y.size(1)):\n        acc += float(y[{a}, k] * 0.5)\n    for k in range(2, z.size(0)):\n        z[k, {c}] = k\n"
            ),
            // Element arithmetic on 0-d tensors (the `scalarize` pass): one expression, an
            // in-place accumulator carried through a loop, a tensor made like `x` written
            // through a range over `x`'s size (bounds proven by `x`'s size).
            10 => format!(
                "    acc += float(torch.exp(y[{a}, {c}]) * 2.0 - torch.tanh(y[{c}, {a}]) / (y[0, 0] + 0.5))\n"
            ),
            11 => format!(
                "    s = x[0, 0] * 0.0\n    for k in range(x.size(1)):\n        s += torch.sigmoid(x[{a}, k]) - v\n    acc += float(s)\n"
            ),
            12 => format!(
                "    o = torch.zeros_like(x)\n    for k in range(x.size(1)):\n        o[{a}, k] = torch.sqrt(torch.abs(x[{a}, k])) + 1.0\n    acc += float(o[{a}, {c}] > 0.5)\n"
            ),
            0 => format!("    acc += float(y[{a}, {c}])\n"),
            1 => format!("    y[{a}, {c}] = v * {}.0\n", g.pick(5)),
            2 => format!("    z[{a}, {c}] = {} * i\n", g.of(&["3", "-7", "1000003"])),
            3 => format!("    acc += float(z[{a}, {c}])\n"),
            4 => {
                format!("    for k in range(2):\n        y[{a}, k] = float(y[k, {c}]) * 2.0 + v\n")
            }
            5 => format!("    w = y[{a}]\n    acc += float(w[{c}])\n"),
            6 => format!("    z[{a}][{c}] = j\n"),
            7 => format!("    y[{a}, {c}] += v\n"),
            // Indices a `range` over the same size proves in bounds (no check emitted).
            8 => format!(
                "    for k in range(y.size(0)):\n        acc += float(y[k, {c}])\n    for k in range(z.size(1)):\n        z[{a}, k] = k\n"
            ),
            _ => format!("    if bool(b[{a}, {c}]):\n        acc += 1.0\n    z[{a}, {c}] = v\n"),
        });
    }
    format!(
        "import torch\nfrom torch import Tensor\nfrom typing import Tuple\n\n\
         def f(x: Tensor, i: int, j: int, v: float) -> Tuple[Tensor, Tensor, float]:\n{body}    \
         return x, z, acc\n"
    )
}

fn run(src: &str, backend: Backend, level: OptLevel, args: Vec<Value>) -> Result<Value, String> {
    let options = Options {
        backend,
        ..Options::at_level(level)
    };
    let p = Program::compile_with(SourceFile::new("gen.py", src), options)
        .unwrap_or_else(|d| panic!("generated program did not compile:\n{src}\n{d:?}"));
    p.call_with_output("f", args, &mut Vec::new())
        .map_err(|e| format!("{e:?}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn element_access_native_equals_interpreter(
        seed in any::<u64>(),
        data in proptest::collection::vec(-4.0f32..4.0, 12),
        i in -5i64..5,
        j in -5i64..5,
        v in -3.0f64..3.0,
    ) {
        let src = program(seed);
        let args = || vec![
            Value::Tensor(pyjit::runtime::Tensor::from_vec(data.clone(), &[3, 4]).unwrap()),
            Value::Int(i),
            Value::Int(j),
            Value::Float(v),
        ];
        let reference = run(&src, Backend::Interp, OptLevel::O0, args());
        for (backend, level) in [(Backend::Interp, OptLevel::O2), (Backend::Native, OptLevel::O2), (Backend::Native, OptLevel::O0)] {
            let r = run(&src, backend, level, args());
            match (&reference, &r) {
                (Ok(p), Ok(q)) => prop_assert!(common::same(p, q), "{src}\n{backend:?} {level:?} args {i} {j} {v}: {p:?} vs {q:?}"),
                (Err(p), Err(q)) => prop_assert_eq!(p, q, "{}\n{:?} {:?}", src, backend, level),
                _ => prop_assert!(false, "{src}\n{backend:?} {level:?} args {i} {j} {v}: {reference:?} vs {r:?}"),
            }
        }
    }
}

/// The pass fires on these programs: `--emit ir` at -O2 holds `tensor.load`/`tensor.store`
/// (so the property test above exercises them, not just the runtime's subscripts).
#[test]
fn generated_programs_use_element_ops() {
    let mut loads = 0;
    let mut stores = 0;
    let mut elems = 0;
    for seed in 0..64u64 {
        let src = program(seed);
        let p = Program::compile_with(
            SourceFile::new("gen.py", src.as_str()),
            Options::at_level(OptLevel::O2),
        )
        .unwrap();
        let args = vec![
            Value::Tensor(pyjit::runtime::Tensor::from_vec(vec![1.0f32; 12], &[3, 4]).unwrap()),
            Value::Int(0),
            Value::Int(1),
            Value::Float(0.5),
        ];
        let (m, _, _) = p.specialize_optimized("f", &args).unwrap();
        let text = pyjit::ir::print_module(&m);
        loads += text.matches("tensor.load").count();
        stores += text.matches("tensor.store").count();
        elems += text.matches("= elem.").count();
    }
    assert!(
        loads > 20 && stores > 20 && elems > 20,
        "loads {loads}, stores {stores}, elem ops {elems}"
    );
}
