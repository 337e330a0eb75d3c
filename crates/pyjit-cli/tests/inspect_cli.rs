//! Seeing what the compiler did, through the binary: `pyjit graph` (SVG read back as XML, one
//! node per op; `--compare`; DOT), `pyjit compile --emit dot|asm|clif`, `--print-changed`.
//! Machine code is checked for its structure, never its addresses.

mod common;

use common::{NATIVE_SCRIPT_PHASES, Scratch, pyjit, pyjit_ok, pyjit_words, scratch_dir};

const SRC: &str = "\
import torch
from torch import Tensor


def conditional_op(x: Tensor, threshold: float) -> Tensor:
    if x.sum() > threshold:
        return x * 2
    else:
        return x + 1
";

fn workdir(tag: &str) -> Scratch {
    let dir = scratch_dir("inspect-cli", tag);
    std::fs::write(dir.join("cond.py"), SRC).unwrap();
    let x = pyjit::runtime::Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
    pyjit::runtime::npy::write_npy(dir.join("x.npy"), &x).unwrap();
    dir
}

fn has_class(n: &roxmltree::Node, class: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|w| w == class))
}

/// The ops of the function `pyjit compile` prints (the lines of its body that are ops).
fn ir_ops(ir: &str) -> usize {
    ir.lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('}'))
        .count()
}

#[test]
fn svg_has_one_node_per_op_of_the_ir() {
    let dir = workdir("svg");
    let (ir, _) = pyjit_ok(&dir, "compile cond.py x.npy 0.5");
    pyjit_ok(&dir, "graph cond.py x.npy 0.5 -o g.svg");
    let svg = std::fs::read_to_string(dir.join("g.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let ops: Vec<_> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "g" && has_class(n, "op"))
        .collect();
    assert_eq!(ops.len(), ir_ops(&ir), "{ir}");
    // Both branches are in the scripted graph, each in its cluster.
    for kind in ["if", "then", "else"] {
        assert!(
            doc.descendants()
                .any(|n| has_class(&n, "cluster") && has_class(&n, kind)),
            "{kind}"
        );
    }
    assert!(
        ops.iter()
            .any(|n| n.attribute("data-op") == Some("tensor.mul.Scalar")
                && n.attribute("data-line") == Some("7"))
    );
    assert!(
        ops.iter()
            .any(|n| n.attribute("data-op") == Some("tensor.add.Scalar")
                && n.attribute("data-line") == Some("9"))
    );
    // The edges carry the specialized types.
    assert!(svg.contains("Tensor[float32, 1]"));
}

#[test]
fn compare_draws_scripted_and_traced_side_by_side() {
    let dir = workdir("compare");
    let (svg, err) = pyjit_ok(&dir, "graph --compare cond.py x.npy 0.5");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let graphs: Vec<_> = doc
        .descendants()
        .filter(|n| has_class(n, "graph"))
        .collect();
    assert_eq!(graphs.len(), 2);
    let count =
        |g: &roxmltree::Node, class: &str| g.descendants().filter(|n| has_class(n, class)).count();
    // Scripted: both branches, no guard. Traced: one path (no if), one guard.
    assert_eq!(count(&graphs[0], "guard"), 0);
    assert_eq!(count(&graphs[0], "if"), 1);
    assert_eq!(count(&graphs[1], "guard"), 1);
    assert_eq!(count(&graphs[1], "if"), 0);
    let traced_ops: Vec<_> = graphs[1]
        .descendants()
        .filter(|n| has_class(n, "op"))
        .filter_map(|n| n.attribute("data-op"))
        .collect();
    assert!(traced_ops.contains(&"tensor.mul.Scalar"), "{traced_ops:?}");
    assert!(!traced_ops.contains(&"tensor.add.Scalar"), "{traced_ops:?}");
    // The TracerWarning still reaches stderr.
    assert!(err.contains("TracerWarning"), "{err}");
    // DOT of the same: two top-level clusters.
    let (dot, _) = pyjit_ok(&dir, "graph --compare cond.py x.npy 0.5 --format dot");
    assert!(dot.contains("subgraph cluster_g0_c0") && dot.contains("subgraph cluster_g1_c0"));
    assert!(
        dot.contains("fillcolor=\"#ffcc80\""),
        "the guard is highlighted"
    );
    // Usage errors: tracing needs ARGs; a bad format.
    assert_eq!(pyjit(&dir, &["graph", "--compare", "cond.py"]).0, Some(64));
    assert_eq!(
        pyjit_words(&dir, "graph cond.py x.npy 0.5 --format png").0,
        Some(64)
    );
}

#[test]
fn compile_emit_dot() {
    let dir = workdir("dot");
    let (dot, _) = pyjit_ok(&dir, "compile cond.py --emit dot");
    assert!(dot.starts_with("digraph \"conditional_op\" {"), "{dot}");
    assert!(dot.contains("label=\"if  (line 6)\""), "{dot}");
    assert!(
        dot.contains("label=\"then\"") && dot.contains("label=\"else\""),
        "{dot}"
    );
    assert!(dot.contains("L7: x * 2"), "{dot}");
    assert_eq!(dot.matches('{').count(), dot.matches('}').count());
}

#[test]
fn print_changed_shows_only_passes_that_changed_something() {
    let dir = workdir("changed");
    let (_, err) = pyjit_ok(&dir, "compile cond.py x.npy 0.5 --print-changed");
    assert!(err.contains("; ---- IR at start ----"), "{err}");
    let dumps = err.matches("; ---- IR after ").count();
    let omitted = err.matches(" omitted: no change ----").count();
    let (_, _, all) = pyjit_words(&dir, "compile cond.py x.npy 0.5 --print-after-all");
    // Every pass --print-after-all dumps is either dumped or noted as unchanged.
    let passes = all.matches("; ---- IR after ").count();
    assert!(passes >= 10, "{all}");
    assert_eq!(dumps, passes, "{err}");
    assert!((1..passes).contains(&omitted), "{err}");
    // Far shorter than --print-after-all.
    assert!(
        err.lines().count() < all.lines().count(),
        "{err}\n----\n{all}"
    );
    // Each dumped IR differs from the one before it.
    let mut texts = vec![];
    for chunk in err.split("; ---- ").skip(1) {
        if !chunk.contains("omitted") {
            texts.push(chunk.split_once('\n').unwrap().1.to_string());
        }
    }
    for w in texts.windows(2) {
        assert_ne!(w[0], w[1]);
    }
}

/// The lines of one function's listing in `text` (`name:` up to the next function).
fn function_listing<'a>(text: &'a str, header: &str) -> Vec<&'a str> {
    text.lines()
        .skip_while(|l| !l.starts_with(header))
        .skip(1)
        .take_while(|l| !l.starts_with("; function"))
        .collect()
}

#[test]
fn asm_is_real_x86_64_with_symbols_and_source_lines() {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let dir = workdir("asm");
    let (asm, _) = pyjit_ok(&dir, "compile cond.py x.npy 0.5 --emit asm");
    let lines = function_listing(&asm, "conditional_op.specialized:");
    assert!(!lines.is_empty(), "{asm}");
    // Every line is an instruction `offset:  mnemonic operands`, a label, a source marker or the
    // constant pool.
    for l in &lines {
        let t = l.trim_start();
        let ok = t.is_empty()
            || t.starts_with("# cond.py:")
            || (t.starts_with(".L") && t.ends_with(':'))
            || t.split_once(":  ")
                .is_some_and(|(off, _)| u32::from_str_radix(off, 16).is_ok());
        assert!(ok, "unexpected line `{l}` in\n{asm}");
    }
    // No Cranelift pseudo-assembly.
    assert!(
        !asm.contains("load_ext_name") && !asm.contains("userextname"),
        "{asm}"
    );
    // The structure: the source lines in order of first appearance, and the runtime calls.
    let mut skeleton = Vec::new();
    for l in &lines {
        let t = l.trim_start();
        if let Some(m) = t.strip_prefix("# ") {
            let line = m.split(':').nth(1).unwrap().to_string();
            if !skeleton.contains(&format!("line {line}")) {
                skeleton.push(format!("line {line}"));
            }
        } else if let Some((_, call)) = t.split_once("  # ")
            && call.starts_with("pjn_op: ")
        {
            skeleton.push(call.to_string());
        }
    }
    assert_eq!(
        skeleton,
        [
            "line 6",
            "pjn_op: tensor.sum",
            // The next call's site number is 2: Cranelift materializes it with the one constant
            // 2 it shares with `x * 2`, and so marks it with line 7.
            "line 7",
            "pjn_op: tensor.gt.Scalar",
            "pjn_op: tensor.Bool.Tensor",
            // Cranelift lays the `else` block out first.
            "line 9",
            "pjn_op: tensor.add.Scalar",
            "pjn_op: tensor.mul.Scalar",
            // The return.
            "line 5",
        ]
        .map(String::from),
        "{asm}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("call") && l.ends_with("# pj_tensor_release"))
    );
}

#[test]
fn clif_names_callees_and_source_lines() {
    let dir = workdir("clif");
    let (clif, _) = pyjit_ok(&dir, "compile cond.py x.npy 0.5 --emit clif");
    assert!(
        clif.contains("function %\"conditional_op.specialized\"("),
        "{clif}"
    );
    assert!(!clif.contains(" u0:"), "anonymous callees left: {clif}");
    assert!(clif.contains("= %\"pjn_op\" sig"), "{clif}");
    assert!(clif.contains("; pjn_op: tensor.sum"), "{clif}");
    assert!(
        clif.contains("    ; cond.py:6: if x.sum() > threshold:"),
        "{clif}"
    );
    assert!(clif.contains("    ; cond.py:7: return x * 2"), "{clif}");
}

#[test]
fn bench_json_line_parses() {
    let dir = workdir("bench");
    for mode in ["script", "trace", "eager"] {
        let (code, out, err) = pyjit(
            &dir,
            &[
                "bench", "cond.py", "x.npy", "0.5", "--repeat", "7", "--warmup", "2", "--json",
                "--mode", mode,
            ],
        );
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(out.lines().count(), 1, "one line: {out}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON");
        assert_eq!(v["function"], "conditional_op");
        assert_eq!(v["mode"], mode);
        assert_eq!(v["repeat"], 7);
        assert_eq!(v["warmup"], 2);
        let f = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"));
        assert!(
            f("min_ns") <= f("q1_ns") && f("q1_ns") <= f("median_ns"),
            "{v}"
        );
        assert!(f("median_ns") <= f("q3_ns"), "{v}");
        assert!(
            (f("iqr_ns") - (f("q3_ns") - f("q1_ns"))).abs() < 1e-6,
            "{v}"
        );
        for phase in &NATIVE_SCRIPT_PHASES[..6] {
            assert!(v["compile_ms"][phase].is_number(), "{phase}: {v}");
        }
        // Eager evaluation compiles nothing; the other modes compile for the call's signature.
        let compiled = v["compile_ms"]["cranelift"].as_f64().unwrap() > 0.0;
        assert_eq!(compiled, mode != "eager", "{v}");
    }
    // Two switches after the ARGs: both taken (the same ARGs reused, the JSON line printed).
    let (code, out, err) = pyjit(
        &dir,
        &[
            "bench",
            "cond.py",
            "x.npy",
            "0.5",
            "--reuse-args",
            "--repeat",
            "5",
            "--json",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON");
    assert_eq!(v["repeat"], 5);
    // The table.
    let (out, _) = pyjit_ok(&dir, "bench cond.py x.npy 0.5 --repeat 3");
    assert!(
        out.starts_with("bench conditional_op() --mode script --backend native -O2\n"),
        "{out}"
    );
    assert!(
        out.contains("\nfirst call: ") && out.contains("\nsteady:     min "),
        "{out}"
    );
    // Usage errors.
    assert_eq!(
        pyjit(&dir, &["bench", "cond.py", "x.npy", "0.5", "--repeat", "0"]).0,
        Some(64)
    );
    assert_eq!(
        pyjit(&dir, &["bench", "cond.py", "x.npy", "0.5", "--repeat", "x"]).0,
        Some(64)
    );
}

#[test]
fn time_reports_every_mode() {
    let dir = workdir("time");
    let lines = |mode: &str| {
        let (code, _, err) = pyjit(
            &dir,
            &["run", "cond.py", "x.npy", "0.5", "--mode", mode, "--time"],
        );
        assert_eq!(code, Some(0), "{err}");
        err.lines()
            .filter(|l| l.starts_with("time: "))
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(lines("script"), NATIVE_SCRIPT_PHASES);
    // Traced on the native backend: the trace's compilation, and a run that says what it holds.
    assert_eq!(
        lines("trace"),
        [
            "parse",
            "specialize",
            "passes",
            "codegen",
            "cranelift",
            "run"
        ]
    );
    assert_eq!(lines("eager"), ["parse", "run"]);
    let (_, _, err) = pyjit_words(&dir, "run cond.py x.npy 0.5 --mode trace --time");
    assert!(
        err.contains("recording and compiling the trace included"),
        "{err}"
    );
}
