//! Fused groups against the interpreter: random elementwise DAGs (broadcasting, type
//! promotion, scalar operands, NaN/inf/zero inputs, some shape and dtype errors, a third of them
//! ending in `max()`/`min()`/`amax(x, [])`) are scripted,
//! run unfused on the interpreter (the oracle) and fused (`--passes fuse`) on native code; the
//! results must be bit-identical and the errors identical (class, message, span).

#[path = "native_common/mod.rs"]
mod common;
use common::*;
use pyjit_codegen::Value;
use pyjit_ir::OpKind;
use pyjit_opt::manager::{PipelineConfig, run_pipeline};
use pyjit_runtime::{DType, Tensor};

/// A tiny deterministic generator (xorshift), so failures reproduce from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

// Rows × columns of the largest operand: above the runtime's MIN_FUSED, and tiles cross rows.
const ROWS: usize = 64;
const COLS: usize = 600;

/// A random elementwise program over tensors `a`, `b`, `c` and the float `s`.
fn program(rng: &mut Rng) -> String {
    let mut vars: Vec<String> = vec!["a".into(), "b".into(), "c".into()];
    let mut body = String::new();
    let n = 3 + rng.below(6);
    for i in 0..n {
        let x = rng.pick(&vars).clone();
        let y = rng.pick(&vars).clone();
        let z = rng.pick(&vars).clone();
        let operand = |rng: &mut Rng, v: &str| -> String {
            match rng.below(5) {
                0 => "s".into(),
                1 => rng.pick(&["2.0", "0.5", "-1.5", "3", "0"]).to_string(),
                _ => v.to_string(),
            }
        };
        let yo = operand(rng, &y);
        let expr = match rng.below(12) {
            0 => format!("{x} + {yo}"),
            1 => format!("{x} - {yo}"),
            2 => format!("{x} * {yo}"),
            3 => format!("{x} / {yo}"),
            4 => format!(
                "torch.{}({x})",
                rng.pick(&["exp", "tanh", "sigmoid", "sqrt", "log", "abs", "neg", "sin"])
            ),
            5 => format!(
                "torch.where({x} {} {yo}, {z}, {y})",
                rng.pick(&[">", "<", ">=", "==", "!="])
            ),
            6 => format!("torch.clamp({x}, min=-1.0, max=2.0)"),
            7 => format!("torch.maximum({x}, {y})"),
            8 => format!("torch.minimum({x}, {y})"),
            9 => format!("{x}.{}()", rng.pick(&["float", "double"])),
            10 => format!("{x} * {yo} + {z}"),
            _ => format!("torch.tanh({x} * 2.0 + {y}) * torch.sigmoid({y}) - 0.5 * {x}"),
        };
        body.push_str(&format!("    t{i} = {expr}\n"));
        vars.push(format!("t{i}"));
    }
    // A third of the programs end in a reduction of every element (which ends a group).
    let last = format!("t{}", n - 1);
    let result = match rng.below(9) {
        0 => format!("{last}.max()"),
        1 => format!("{last}.min()"),
        2 => format!("torch.amax({last}, [])"),
        _ => last,
    };
    format!(
        "import torch\nfrom torch import Tensor\n\ndef f(a: Tensor, b: Tensor, c: Tensor, s: float) -> Tensor:\n{body}    return {result}\n"
    )
}

fn tensor(rng: &mut Rng, shape: &[usize], dtype: DType) -> Value {
    let n: usize = shape.iter().product();
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1e30];
    let data: Vec<f64> = (0..n)
        .map(|_| {
            if rng.below(40) == 0 {
                *rng.pick(&specials)
            } else {
                (rng.below(2001) as f64 - 1000.0) / 300.0
            }
        })
        .collect();
    let t = Tensor::from_vec(data, shape).unwrap();
    // Integer conversions of NaN/inf saturate; small ints keep integer programs meaningful.
    let t = if dtype.is_float() {
        t.to_dtype(dtype).unwrap()
    } else {
        let ints: Vec<i64> = (0..n).map(|_| rng.below(11) as i64 - 5).collect();
        Tensor::from_vec(ints, shape)
            .unwrap()
            .to_dtype(dtype)
            .unwrap()
    };
    Value::Tensor(t)
}

fn inputs(rng: &mut Rng) -> Vec<Value> {
    let shapes: [&[usize]; 6] = [
        &[ROWS, COLS],
        &[COLS],
        &[1, COLS],
        &[ROWS, 1],
        &[],
        &[ROWS, COLS],
    ];
    let dtypes = [
        DType::Float32,
        DType::Float32,
        DType::Float32,
        DType::Float64,
        DType::Int64,
        DType::Int32,
    ];
    let mut v: Vec<Value> = Vec::new();
    // The first input is always full-sized so that most groups run tiled.
    let first = *rng.pick(&dtypes[..4]);
    v.push(tensor(rng, &[ROWS, COLS], first));
    for _ in 0..2 {
        let shape: &[usize] = if rng.below(30) == 0 {
            &[COLS + 1] // a shape error
        } else {
            shapes[rng.below(shapes.len())]
        };
        let dt = *rng.pick(&dtypes);
        v.push(tensor(rng, shape, dt));
    }
    v.push(Value::Float(*rng.pick(&[0.75, -2.0, 0.0, f64::NAN, 1e-3])));
    v
}

fn fused(m: &pyjit_ir::Module) -> (pyjit_ir::Module, usize) {
    let mut m = m.clone();
    let config = PipelineConfig {
        passes: Some(vec!["fuse".into()]),
        verify: true,
        ..PipelineConfig::default()
    };
    let report = run_pipeline(&mut m, &config);
    assert!(
        report.verify_failure.is_none(),
        "{:?}",
        report.verify_failure
    );
    let groups = m
        .funcs
        .values()
        .flat_map(|f| f.all_ops().into_iter().map(move |o| f.op(o).kind.clone()))
        .filter(|k| *k == OpKind::Fused)
        .count();
    (m, groups)
}

#[test]
fn random_elementwise_dags_fused_match_the_interpreter() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut with_groups, mut errors, mut reducing) = (0, 0, 0);
    const PROGRAMS: usize = 60;
    for case in 0..PROGRAMS {
        let src = program(&mut rng);
        let m = script(&src);
        let (fm, groups) = fused(&m);
        with_groups += (groups > 0) as usize;
        // A reduction inside a group's body (indented twice: the function's ops once).
        reducing += fm.to_string().lines().any(|l| {
            l.starts_with("    %")
                && ["tensor.max(", "tensor.min(", "tensor.amax("]
                    .iter()
                    .any(|r| l.contains(r))
        }) as usize;
        let nm = native(&fm);
        for _ in 0..2 {
            let args = inputs(&mut rng);
            let (ri, _) = interp(&m, "f", &args);
            let (rn, _) = run_native(&nm, "f", &args);
            match (&ri, &rn) {
                (Ok(a), Ok(b)) => assert!(
                    same(a, b),
                    "case {case}: fused native differs from the interpreter\n{src}"
                ),
                (Err(a), Err(b)) => {
                    errors += 1;
                    assert_eq!(a, b, "case {case}: errors differ\n{src}");
                }
                _ => panic!("case {case}: interp {ri:?} vs fused native {rn:?}\n{src}"),
            }
        }
    }
    assert!(
        with_groups * 2 >= PROGRAMS,
        "only {with_groups} of {PROGRAMS} programs had a fused group"
    );
    assert!(errors > 0, "no case exercised an error");
    assert!(
        reducing >= 10,
        "only {reducing} programs had a group ending in a reduction of every element"
    );
}

#[test]
fn a_fused_group_reports_the_failing_ops_line() {
    let src = "import torch\nfrom torch import Tensor\n\ndef f(a: Tensor, b: Tensor) -> Tensor:\n    t = torch.exp(a)\n    u = t + b\n    return torch.neg(u)\n";
    let m = script(src);
    let (fm, groups) = fused(&m);
    assert_eq!(groups, 1);
    let nm = native(&fm);
    let mut rng = Rng(7);
    let args = vec![
        tensor(&mut rng, &[ROWS, COLS], DType::Float32),
        tensor(&mut rng, &[ROWS, COLS - 1], DType::Float32),
    ];
    let (ri, _) = interp(&m, "f", &args);
    let (rn, _) = run_native(&nm, "f", &args);
    let (ei, en) = (ri.unwrap_err(), rn.unwrap_err());
    assert_eq!(ei, en);
    let line = src[..en.span.start as usize].matches('\n').count() + 1;
    assert_eq!(line, 6, "the error points at `t + b`: {en}");
}
