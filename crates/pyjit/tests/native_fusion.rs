//! Fused groups against the interpreter: random elementwise DAGs (broadcasting, type
//! promotion, scalar operands, NaN/inf/zero inputs, some shape and dtype errors, a third of them
//! ending in `max()`/`min()`/`amax(x, [])`) are scripted,
//! run unfused on the interpreter (the oracle) and fused (`--passes fuse`) on native code; the
//! results must be bit-identical and the errors identical (class, message, span). Both at a
//! size that runs the groups' tile programs and at one below the runtime's `MIN_FUSED`, where
//! native code runs each group's body as the unfused ops (and must release every tensor it
//! made).

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
// Rows of the largest operand below MIN_FUSED (the group's body runs as unfused ops).
const SMALL_ROWS: usize = 3;

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

fn inputs(rng: &mut Rng, rows: usize) -> Vec<Value> {
    let shapes: [&[usize]; 6] = [
        &[rows, COLS],
        &[COLS],
        &[1, COLS],
        &[rows, 1],
        &[],
        &[rows, COLS],
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
    v.push(tensor(rng, &[rows, COLS], first));
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

/// `m` through the pipeline of `passes` (`None`: the default, -O2), verified after each pass.
fn through(m: &pyjit_ir::Module, passes: Option<Vec<String>>) -> pyjit_ir::Module {
    let mut m = m.clone();
    let config = PipelineConfig {
        passes,
        verify: true,
        ..PipelineConfig::default()
    };
    let report = run_pipeline(&mut m, &config);
    assert!(
        report.verify_failure.is_none(),
        "{:?}",
        report.verify_failure
    );
    m
}

fn fused(m: &pyjit_ir::Module) -> (pyjit_ir::Module, usize) {
    let m = through(m, Some(vec!["fuse".into()]));
    let groups = m
        .funcs
        .values()
        .flat_map(|f| f.all_ops().into_iter().map(move |o| f.op(o).kind.clone()))
        .filter(|k| *k == OpKind::Fused)
        .count();
    (m, groups)
}

/// `m` with `f` specialized for `args` (every tensor's dtype and rank known).
fn specialized(m: &pyjit_ir::Module, args: &[Value]) -> pyjit_ir::Module {
    let id = m.function_by_name("f").expect("f");
    let types: Vec<pyjit_ir::Type> = args
        .iter()
        .zip(m.func(id).param_types())
        .map(|(a, t)| pyjit::static_type(a, &t))
        .collect();
    let mut out = m.clone();
    out.funcs[id] = pyjit_opt::specialize(m, id, &types).expect("specializes");
    out
}

/// Runs `f` of `nm` on `args` and checks it against the interpreter's result `ri`: the same
/// value bit for bit or the same error, every reference native code made released. Whether
/// it raised.
fn agrees(
    ri: &Result<Value, pyjit_interp::InterpError>,
    nm: &pyjit_codegen::NativeModule,
    args: &[Value],
    what: &str,
    src: &str,
) -> bool {
    let before = live_references();
    let (rn, _) = run_native(nm, "f", args);
    assert_eq!(
        live_references(),
        before,
        "{what}: native code did not release what it made\n{src}"
    );
    match (ri, &rn) {
        (Ok(a), Ok(b)) => {
            assert!(
                same(a, b),
                "{what}: fused native differs from the interpreter\n{src}"
            );
            false
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "{what}: errors differ\n{src}");
            true
        }
        _ => panic!("{what}: interp {ri:?} vs fused native {rn:?}\n{src}"),
    }
}

/// `PROGRAMS` random programs, each run on two sets of inputs whose largest operand has `rows`
/// rows, fused on native code against the interpreter.
fn random_dags_match_the_interpreter(seed: u64, rows: usize) {
    let mut rng = Rng(seed);
    let (mut with_groups, mut errors, mut reducing, mut size_calls) = (0, 0, 0, 0);
    let mut fast_groups = 0;
    const PROGRAMS: usize = 60;
    for case in 0..PROGRAMS {
        let src = program(&mut rng);
        let mut m = script(&src);
        // Every third program as compiled with fastmath (the interpreter runs it too).
        let fast = case % 3 == 2 && pyjit_opt::lower_fastmath(&mut m) > 0;
        let (fm, groups) = fused(&m);
        fast_groups += (fast && groups > 0) as usize;
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
            let args = inputs(&mut rng, rows);
            let (ri, _) = interp(&m, "f", &args);
            // Declared types (a group's size tested by a runtime call) and specialized ones
            // (ranks known: tested inline).
            let (sm, _) = fused(&specialized(&m, &args));
            // The size test: a runtime call only where a rank is unknown.
            let calls = |m: &pyjit_ir::Module| {
                let clif = pyjit_codegen::emit_clif(m).expect("compiles");
                clif.contains("pj_fused_group_is_small")
            };
            size_calls += calls(&fm) as usize;
            assert!(!calls(&sm), "case {case}: a size test call\n{src}");
            for (how, nm) in [("", &nm), (" (specialized)", &native(&sm))] {
                errors += agrees(&ri, nm, &args, &format!("case {case}{how}"), &src) as usize;
            }
        }
    }
    assert!(
        with_groups * 2 >= PROGRAMS,
        "only {with_groups} of {PROGRAMS} programs had a fused group"
    );
    assert!(errors > 0, "no case exercised an error");
    assert!(
        fast_groups >= 3,
        "only {fast_groups} fastmath programs had a fused group"
    );
    assert!(
        size_calls > 0,
        "no group tested its size with a runtime call"
    );
    assert!(
        reducing >= 10,
        "only {reducing} programs had a group ending in a reduction of every element"
    );
}

#[test]
fn random_elementwise_dags_fused_match_the_interpreter() {
    let _g = serial();
    const { assert!(ROWS * COLS >= pyjit_runtime::ops::fused::MIN_FUSED) };
    random_dags_match_the_interpreter(0x9e37_79b9_7f4a_7c15, ROWS);
}

#[test]
fn small_groups_run_as_unfused_ops_and_match_the_interpreter() {
    let _g = serial();
    const { assert!(SMALL_ROWS * COLS < pyjit_runtime::ops::fused::MIN_FUSED) };
    random_dags_match_the_interpreter(0x2545_f491_4f6c_dd1d, SMALL_ROWS);
}

/// A longer run of both tests over other seeds, for a soak before a release:
/// `PYJIT_SOAK_SEEDS=50 cargo test --release -p pyjit --test native_fusion -- --ignored`
/// (60 programs per seed and size; 20 seeds when the variable is unset).
#[test]
#[ignore]
fn random_dags_soak() {
    let _g = serial();
    let seeds: u64 = std::env::var("PYJIT_SOAK_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    for k in 1..=seeds {
        let seed = common::Rng::seeded(k).0;
        random_dags_match_the_interpreter(seed, ROWS);
        random_dags_match_the_interpreter(seed ^ 0x5555, SMALL_ROWS);
    }
}

#[test]
fn a_fused_group_reports_the_failing_ops_line() {
    let _g = serial();
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

/// `m` through the default (-O2) pipeline (the index arithmetic of an unread loop variable
/// removed, as the compiler's own pipeline does before fusion).
fn optimized(m: &pyjit_ir::Module) -> pyjit_ir::Module {
    through(m, None)
}

/// Loops whose body is one fused group fed its own result run their rounds in one host call
/// (`pyjit-codegen` `lower/repeat.rs`, `ops::fused::run_repeat`): native code against the
/// interpreter, bit for bit, with the same errors, releasing what it made; trip counts below
/// two, groups too small to fuse, invariant operands broadcast or not, a first round that
/// changes the shape or the dtype, an operand of the wrong shape, the loop's tensor read again
/// after the loop.
#[test]
fn loops_of_one_fused_group_match_the_interpreter() {
    let _g = serial();
    let head = "import torch\nfrom torch import Tensor\n\n";
    let iterate = format!(
        "{head}def f(x: Tensor, y: Tensor, n: int) -> Tensor:\n    for i in range(n):\n        x = x * 0.9 + 0.1 * torch.tanh(x)\n    return x\n"
    );
    let kept = format!(
        "{head}def f(x: Tensor, y: Tensor, n: int) -> Tensor:\n    x0 = x\n    for _ in range(n):\n        x = x * y + torch.exp(-x)\n    return x - x0\n"
    );
    let moved = format!(
        "{head}def f(x: Tensor, y: Tensor, n: int) -> Tensor:\n    for _ in range(n):\n        x = torch.sigmoid(x) * y - x\n    return x\n"
    );
    let mut rng = Rng(0x51ed_2701_7a3c_99e5);
    let (mut repeated, mut errors) = (0, 0);
    for src in [&iterate, &kept, &moved] {
        let m = script(src);
        for (xs, ys, yd) in [
            (vec![ROWS, COLS], vec![ROWS, COLS], DType::Float32),
            (vec![ROWS, COLS], vec![COLS], DType::Float32),
            (vec![ROWS, COLS], vec![ROWS, 1], DType::Float64),
            (vec![ROWS, COLS], vec![COLS + 1], DType::Float32),
            (vec![1, COLS * 60], vec![3, COLS * 60], DType::Float32),
            (vec![SMALL_ROWS, COLS], vec![COLS], DType::Float32),
        ] {
            for xd in [DType::Float32, DType::Float64] {
                let x = tensor(&mut rng, &xs, xd);
                let y = tensor(&mut rng, &ys, yd);
                let args_of = |n: i64| vec![x.clone(), y.clone(), Value::Int(n)];
                let (sm, _) = fused(&optimized(&specialized(&m, &args_of(3))));
                let clif = pyjit_codegen::emit_clif(&sm).expect("compiles");
                repeated += clif.contains("pjn_op: loop") as usize;
                let nm = native(&sm);
                for n in [-1, 0, 1, 2, 3, 7] {
                    let args = args_of(n);
                    let (ri, _) = interp(&m, "f", &args);
                    let what = format!("{xs:?} {ys:?} {xd:?} n={n}");
                    errors += agrees(&ri, &nm, &args, &what, src) as usize;
                }
            }
        }
    }
    assert!(errors > 0, "no case raised");
    assert!(repeated >= 12, "only {repeated} loops ran as one host call");
}
