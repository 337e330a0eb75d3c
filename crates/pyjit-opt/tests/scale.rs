//! Passes on programs far larger than the IR file tests (issue 17: compile time must grow about
//! linearly with the program). No timings: each test builds a shape that a superlinear pass
//! could not finish in reasonable time and checks what the pass made of it.

use pyjit_ir::{Module, OpKind, parse_module, verify_module};
use pyjit_opt::manager::{PipelineConfig, run_pipeline};

fn run(m: &mut Module, passes: &str) {
    let c = PipelineConfig {
        passes: Some(passes.split(',').map(String::from).collect()),
        verify: true,
        ..PipelineConfig::default()
    };
    let r = run_pipeline(m, &c);
    assert!(r.verify_failure.is_none(), "{:?}", r.verify_failure);
    verify_module(m).unwrap();
}

/// A chain of `n` tensor adds (what tracing `for i in range(n): x = x + y` records), with a
/// `matmul` (which may raise, so no group crosses it) after add number `split` when given.
fn add_chain(n: usize, split: Option<usize>) -> String {
    let mut s = String::from(
        "func @f(%x: Tensor[float32, 1], %y: Tensor[float32, 1]) -> Tensor[float32, 1] {\n  \
         %one: int = const 1\n  %v0: Tensor[float32, 1] = tensor.add.Tensor(%x, %y, %one)\n",
    );
    for i in 1..n {
        if split == Some(i) {
            s.push_str(&format!(
                "  %m: Tensor[float32, 1] = tensor.matmul(%y, %y)\n  \
                 %v{i}: Tensor[float32, 1] = tensor.add.Tensor(%v{}, %m, %one)\n",
                i - 1
            ));
        } else {
            s.push_str(&format!(
                "  %v{i}: Tensor[float32, 1] = tensor.add.Tensor(%v{}, %y, %one)\n",
                i - 1
            ));
        }
    }
    s.push_str(&format!("  return %v{}\n}}\n", n - 1));
    s
}

/// (top-level ops of @f, ops in each fused body).
fn fused_shape(m: &Module) -> (Vec<String>, Vec<usize>) {
    let f = m.func(m.function_by_name("f").unwrap());
    let top: Vec<String> = f
        .region_ops(f.body)
        .iter()
        .map(|&o| f.op(o).kind.name().to_string())
        .collect();
    let bodies = f
        .region_ops(f.body)
        .iter()
        .filter(|&&o| f.op(o).kind == OpKind::Fused)
        .map(|&o| f.region_ops(f.op(o).regions[0]).len())
        .collect();
    (top, bodies)
}

#[test]
fn fuse_groups_a_chain_of_twenty_thousand_adds() {
    const N: usize = 20_000;
    let mut m = parse_module(&add_chain(N, None)).unwrap();
    run(&mut m, "fuse");
    let (top, bodies) = fused_shape(&m);
    assert_eq!(top, ["const", "fused", "return"]);
    // Every add, the copied constant and the yield.
    assert_eq!(bodies, [N + 2]);
}

#[test]
fn fuse_does_not_cross_a_raising_op_in_a_long_chain() {
    const N: usize = 20_000;
    let mut m = parse_module(&add_chain(N, Some(12_345))).unwrap();
    run(&mut m, "fuse");
    let (top, bodies) = fused_shape(&m);
    // Adds 0..12345 before the matmul; the add that reads the matmul and the rest after it.
    assert_eq!(top, ["const", "fused", "tensor.matmul", "fused", "return"]);
    assert_eq!(bodies, [12_345 + 2, N - 12_345 + 2]);
}

/// A chain of `n` int adds of constants, each foldable once the previous one is: constfold
/// folds all of them in one round, replacing each result's uses (through its use index, in
/// the uses of the result, not a walk of the function per fold).
#[test]
fn constfold_folds_a_chain_of_twenty_thousand_constant_adds() {
    const N: usize = 20_000;
    let mut s =
        String::from("func @f(%x: int) -> int {\n  %one: int = const 1\n  %v0: int = const 0\n");
    for i in 1..=N {
        s.push_str(&format!("  %v{i}: int = int.add(%v{}, %one)\n", i - 1));
    }
    s.push_str(&format!(
        "  %r: int = int.add(%v{N}, %x)\n  return %r\n}}\n"
    ));
    let mut m = parse_module(&s).unwrap();
    run(&mut m, "constfold,dce");
    let text = pyjit_ir::print_module_without_spans(&m);
    assert!(text.contains(&format!("const {N}")), "{text}");
    let f = m.funcs.values().next().unwrap();
    assert_eq!(f.all_ops().len(), 3, "{text}");
}
