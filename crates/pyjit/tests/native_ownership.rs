//! Ownership: a long loop creating tensors returns the runtime's live-tensor count to its
//! baseline and keeps memory flat; compiled functions are shared across threads; specialized IR
//! compiles; the CLIF and disassembly listings are produced.

#[path = "native_common/mod.rs"]
mod common;
use common::*;
use pyjit_codegen::{NativeModule, Options, Value};
use pyjit_runtime::{DType, Tensor};

const SRC: &str = "\
import torch
from torch import Tensor
from typing import List, Optional, Tuple

def churn(x: Tensor, n: int) -> Tensor:
    acc = x
    for i in range(n):
        t = acc + 1.0
        acc = t * 0.5
    return acc

def keep_some(x: Tensor, n: int) -> List[Tensor]:
    out: List[Tensor] = []
    for i in range(n):
        y = x * float(i)
        if i % 3 == 0:
            out.append(y)
    return out

def handed_over(x: Tensor, y: Tensor, n: int) -> Tuple[Tensor, Tensor]:
    # Dead first operands of ops with in-place forms are handed to the runtime (written
    # over when nobody else holds them); `keep` aliases one, which must stay intact.
    t = x * 1.0
    keep = t
    for i in range(n):
        t = torch.exp(t * 0.5) - 1.0
        t = torch.abs(t)
        t = -t
        t = t / y
    u = keep + 0.0
    return t, u

def handed_over_fails(x: Tensor, z: Tensor) -> Tensor:
    t = x * 2.0
    # t dies here: the broadcast error must still release everything.
    return t + z

def group_handed_over(x: Tensor, y: Tensor, n: int) -> Tuple[Tensor, Tensor]:
    # The same with a fused group (`fuse`): a tensor dying at a group is handed to it, and the
    # group's step reading it last may write over it; `keep` aliases one.
    t = x * 1.0
    keep = t
    for i in range(n):
        t = torch.exp(t * 0.5) - 1.0
        t = torch.abs(t) / y
    u = keep + 0.0
    return t, u

def group_handed_over_fails(x: Tensor, z: Tensor) -> Tensor:
    t = x * 2.0
    # t dies at the group {exp, add}: its broadcast error must still release everything.
    return torch.exp(t) + z

def pairs(x: Tensor, flag: bool) -> Tuple[Tensor, Optional[Tensor], int]:
    y: Optional[Tensor] = None
    if flag:
        y = x + x
    return x, y, 3
";

fn rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn small() -> Value {
    Value::Tensor(Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap())
}

/// A million iterations (two tensor ops each) take about a second in release builds; debug builds
/// of the runtime are ~30x slower, so `cargo test` in debug runs a tenth of them to stay within
/// the suite's time budget (`cargo test --release` runs the full million).
const ITERS: i64 = if cfg!(debug_assertions) {
    100_000
} else {
    1_000_000
};

/// The part of a module's CLIF listing (`emit_clif`) that is function `name`'s.
fn function_clif(clif: &str, name: &str) -> String {
    clif.split("; function ")
        .find(|f| f.starts_with(name))
        .unwrap_or_else(|| panic!("no {name} in {clif}"))
        .to_string()
}

fn setup() -> (pyjit_ir::Module, NativeModule) {
    let m = script(SRC);
    let nm = native(&m);
    (m, nm)
}

#[test]
fn a_million_iterations_leak_nothing() {
    let _g = serial();
    let (_m, nm) = setup();
    let f = nm.function("churn").unwrap();
    let base = pyjit_runtime::abi::live_tensor_count();
    // Warm up allocators, then measure memory across the long run.
    f.call(&[small(), Value::Int(1000)]).unwrap();
    let rss0 = rss_kib();
    let r = f.call(&[small(), Value::Int(ITERS)]).unwrap();
    let rss1 = rss_kib();
    assert_eq!(pyjit_runtime::abi::live_tensor_count(), base);
    // The fixed point of acc = (acc + 1) / 2 is 1.
    let Value::Tensor(t) = r else {
        panic!("not a tensor")
    };
    assert_eq!(t.to_vec::<f32>(), vec![1.0, 1.0]);
    if let (Some(a), Some(b)) = (rss0, rss1) {
        assert!(b < a + 16 * 1024, "memory grew from {a} KiB to {b} KiB");
    }
}

#[test]
fn tensors_in_lists_tuples_and_optionals_are_released() {
    let _g = serial();
    let (m, nm) = setup();
    let (t0, o0) = live_references();
    check_same(&m, &nm, "keep_some", &[small(), Value::Int(10)]);
    check_same(&m, &nm, "pairs", &[small(), Value::Bool(true)]);
    check_same(&m, &nm, "pairs", &[small(), Value::Bool(false)]);
    assert_eq!(live_references(), (t0, o0));
}

#[test]
fn one_function_many_threads() {
    let _g = serial();
    let (_m, nm) = setup();
    let f = nm.function("churn").unwrap();
    drop(nm); // the function alone keeps the code alive
    std::thread::scope(|s| {
        for k in 0..4 {
            let f = f.clone();
            s.spawn(move || {
                for n in 0..50 {
                    let x = Value::Tensor(Tensor::from_vec(vec![k as f64], &[1]).unwrap());
                    let Ok(Value::Tensor(t)) = f.call(&[x, Value::Int(n)]) else {
                        panic!()
                    };
                    let mut want = k as f64;
                    for _ in 0..n {
                        want = (want + 1.0) * 0.5;
                    }
                    assert_eq!(t.to_vec::<f64>(), vec![want]);
                }
            });
        }
    });
}

#[test]
fn specialized_ir_compiles_and_agrees() {
    let _g = serial();
    let m = script(SRC);
    let id = m.function_by_name("churn").unwrap();
    let x = Tensor::zeros(&[3], DType::Float64).unwrap();
    let tys = vec![
        pyjit_ir::Type::Tensor(pyjit_ir::TensorType::ranked(Some(DType::Float64), 1)),
        pyjit_ir::Type::Int,
    ];
    let mut spec = pyjit_opt::specialize(&m, id, &tys).expect("specialize");
    spec.name = "churn_f64_1".into();
    let mut m2 = m.clone();
    let sid = m2.push_function(spec);
    let nm = NativeModule::compile(&m2, &Options::default()).expect("compile");
    let f = nm.function_by_id(sid).unwrap();
    let g = nm.function("churn").unwrap();
    let a = f.call(&[Value::Tensor(x.clone()), Value::Int(7)]).unwrap();
    let b = g.call(&[Value::Tensor(x), Value::Int(7)]).unwrap();
    assert!(same(&a, &b));
}

#[test]
fn clif_and_asm_listings() {
    let _g = serial();
    let m = script(SRC);
    let clif = pyjit_codegen::emit_clif(&m).unwrap();
    assert!(clif.contains("; function churn"), "{clif}");
    assert!(clif.contains("brif") && clif.contains("call "), "{clif}");
    let asm = pyjit_codegen::emit_asm(&m).unwrap();
    assert!(asm.contains("; function pairs"), "{asm}");
    assert!(asm.lines().count() > 20, "{asm}");
}

/// Tensor ops whose first operand dies there take it over (the site's `owned` list in pyjit-codegen):
/// the results are the interpreter's, an alias of a handed-over tensor keeps its values, the
/// argument tensors are untouched, and nothing leaks, also when the op fails.
#[test]
fn dead_operands_handed_to_in_place_kernels() {
    let _g = serial();
    let (m, nm) = setup();
    let data: Vec<f32> = (0..40_000).map(|i| (i % 97) as f32 * 0.03 - 1.2).collect();
    let x = || Value::Tensor(Tensor::from_vec(data.clone(), &[200, 200]).unwrap());
    let y = || Value::Tensor(Tensor::from_vec(vec![1.5f32; 200], &[200]).unwrap());
    let (t0, o0) = live_references();
    check_same_fresh(&m, &nm, "handed_over", || vec![x(), y(), Value::Int(3)]);
    check_same_fresh(&m, &nm, "handed_over", || vec![x(), y(), Value::Int(0)]);
    let bad = || Value::Tensor(Tensor::from_vec(vec![1.0f32; 3], &[3]).unwrap());
    check_same_fresh(&m, &nm, "handed_over_fails", || vec![x(), bad()]);
    assert_eq!(live_references(), (t0, o0));
    // The caller's argument is not written over.
    let arg = x();
    let f = nm.function("handed_over").unwrap();
    f.call(&[arg.clone(), y(), Value::Int(2)]).unwrap();
    let Value::Tensor(a) = arg else { panic!() };
    assert_eq!(a.to_vec::<f32>(), data);
}

#[test]
fn dead_operands_handed_to_fused_groups() {
    let _g = serial();
    let mut m = script(SRC);
    let config = pyjit_opt::manager::PipelineConfig {
        passes: Some(vec!["fuse".into()]),
        verify: true,
        ..Default::default()
    };
    let report = pyjit_opt::manager::run_pipeline(&mut m, &config);
    assert!(
        report.verify_failure.is_none(),
        "{:?}",
        report.verify_failure
    );
    let f = m.function_by_name("group_handed_over").expect("function");
    let groups = m.funcs[f]
        .all_ops()
        .into_iter()
        .filter(|&o| m.funcs[f].op(o).kind == pyjit_ir::OpKind::Fused)
        .count();
    assert_eq!(groups, 1, "the loop body is one group: {m}");
    let nm = native(&m);
    // Small tensors (the groups' step-by-step path, which writes over a dead input) and large
    // ones (tiles).
    for (rows, cols) in [(3usize, 5usize), (200, 200)] {
        let data: Vec<f32> = (0..rows * cols)
            .map(|i| (i % 97) as f32 * 0.03 - 1.2)
            .collect();
        let x = || Value::Tensor(Tensor::from_vec(data.clone(), &[rows, cols]).unwrap());
        let y = || Value::Tensor(Tensor::from_vec(vec![1.5f32; cols], &[cols]).unwrap());
        let (t0, o0) = live_references();
        check_same_fresh(&m, &nm, "group_handed_over", || {
            vec![x(), y(), Value::Int(3)]
        });
        check_same_fresh(&m, &nm, "group_handed_over", || {
            vec![x(), y(), Value::Int(0)]
        });
        let bad = || Value::Tensor(Tensor::from_vec(vec![1.0f32; 3], &[3]).unwrap());
        check_same_fresh(&m, &nm, "group_handed_over_fails", || vec![x(), bad()]);
        assert_eq!(live_references(), (t0, o0));
        // The caller's argument is not written over.
        let arg = x();
        let f = nm.function("group_handed_over").unwrap();
        f.call(&[arg.clone(), y(), Value::Int(2)]).unwrap();
        let Value::Tensor(a) = arg else { panic!() };
        assert_eq!(a.to_vec::<f32>(), data);
    }
}

const LISTS: &str = "\
import torch
from torch import Tensor

def made(n: int, m: int) -> Tensor:
    return torch.zeros([n, m]) + torch.ones([m])

def viewed(x: Tensor, n: int) -> Tensor:
    return x.view([n, -1]).sum(1)

def scalar0() -> Tensor:
    return torch.zeros([])

def shared(n: int) -> Tensor:
    s = [n, 2]
    t = torch.zeros(s)
    return t + float(len(s))

def negative(n: int) -> Tensor:
    return torch.empty([n, 3]).fill_(1.0)
";

/// An int list built in place for one tensor op (`torch.zeros([n, m])`, `x.view([n, -1])`)
/// is never made by native code: the op's host call takes the ints (`inline_list` in
/// pyjit-codegen). Results and errors are the interpreter's, nothing leaks, and a list with
/// another use (`len(s)`) is still made.
#[test]
fn int_lists_built_for_one_tensor_op_are_not_made() {
    let _g = serial();
    let m = script(LISTS);
    let nm = native(&m);
    let (t0, o0) = live_references();
    for (n, k) in [(2, 3), (0, 4), (1, 1)] {
        check_same(&m, &nm, "made", &[Value::Int(n), Value::Int(k)]);
    }
    let x = Tensor::from_vec((0..12).map(|v| v as f32).collect::<Vec<_>>(), &[12]).unwrap();
    for n in [3, 4, 5, -1] {
        check_same(
            &m,
            &nm,
            "viewed",
            &[Value::Tensor(x.clone()), Value::Int(n)],
        );
    }
    check_same(&m, &nm, "scalar0", &[]);
    check_same(&m, &nm, "shared", &[Value::Int(3)]);
    for n in [2, 0, -2] {
        check_same(&m, &nm, "negative", &[Value::Int(n)]);
    }
    drop(x);
    assert_eq!(live_references(), (t0, o0));
    let clif = pyjit_codegen::emit_clif(&m).unwrap();
    let body = |name: &str| function_clif(&clif, name);
    for f in ["made", "viewed", "scalar0", "negative"] {
        let b = body(f);
        assert!(!b.contains("list.new"), "{f} still makes its list:\n{b}");
        assert!(b.contains("pjn_op"), "{f}:\n{b}");
    }
    assert!(
        body("shared").contains("pjn_op: list.new"),
        "{}",
        body("shared")
    );
}

const CONSTS: &str = "\
import torch
from torch import Tensor

def consts(x: Tensor) -> Tensor:
    c = torch.scalar_tensor(2.0, dtype=torch.float32)
    return x * c + torch.scalar_tensor(0.5, dtype=torch.float32)

def in_loop(x: Tensor, n: int) -> Tensor:
    for i in range(n):
        x = torch.maximum(x, torch.scalar_tensor(0.25)) - torch.scalar_tensor(1.0)
    return x

def written(x: Tensor) -> Tensor:
    c = torch.scalar_tensor(2.0, dtype=torch.float32)
    c.add_(1.0)
    return x * c

def returned() -> Tensor:
    return torch.scalar_tensor(3.0)

def viewed(x: Tensor) -> Tensor:
    c = torch.scalar_tensor(2.0).view([1])
    return x * c
";

/// A `scalar_tensor` of constants read only by ops that make fresh tensors is made once, when
/// compiling (`is_const_tensor` in pyjit-codegen): native code takes a reference to it instead of
/// calling the host. Results are the interpreter's on every call; one that is written in place,
/// returned or viewed is still made per call (else the second call would see the first call's
/// write, or the caller could write the module's tensor); the module's own references go with
/// it.
#[test]
fn constant_tensors_are_made_once_and_never_written() {
    let _g = serial();
    let before = live_references();
    let m = script(CONSTS);
    let nm = native(&m);
    let x = || Value::Tensor(Tensor::from_vec(vec![1.0f32, -2.0, 0.125], &[3]).unwrap());
    let (t0, o0) = live_references();
    for _ in 0..3 {
        check_same(&m, &nm, "consts", &[x()]);
        check_same(&m, &nm, "in_loop", &[x(), Value::Int(4)]);
        check_same(&m, &nm, "written", &[x()]);
        check_same(&m, &nm, "returned", &[]);
        check_same(&m, &nm, "viewed", &[x()]);
    }
    let Value::Tensor(w) = nm.function("written").unwrap().call(&[x()]).unwrap() else {
        panic!("not a tensor")
    };
    assert_eq!(w.to_vec::<f32>(), vec![3.0, -6.0, 0.375]);
    // The caller may write what `returned` gives: the next call's tensor is a fresh one.
    let Value::Tensor(r) = nm.function("returned").unwrap().call(&[]).unwrap() else {
        panic!("not a tensor")
    };
    r.fill_(pyjit_runtime::Scalar::Float(7.0)).unwrap();
    drop(r);
    check_same(&m, &nm, "returned", &[]);
    assert_eq!(live_references(), (t0, o0));
    let clif = pyjit_codegen::emit_clif(&m).unwrap();
    let body = |name: &str| function_clif(&clif, name);
    for f in ["consts", "in_loop"] {
        let b = body(f);
        assert!(
            !b.contains("pjn_op: tensor.scalar_tensor"),
            "{f} makes its constants:\n{b}"
        );
        assert!(b.contains("pj_tensor_retain"), "{f}:\n{b}");
    }
    for f in ["written", "returned", "viewed"] {
        let b = body(f);
        assert!(b.contains("pjn_op: tensor.scalar_tensor"), "{f}:\n{b}");
    }
    drop(nm);
    assert_eq!(live_references(), before);
}
