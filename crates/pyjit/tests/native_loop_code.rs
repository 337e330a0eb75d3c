//! The machine code of scalar loops: what a loop's back edge costs. A Collatz step
//! (`x // 2 if x % 2 == 0 else 3 * x + 1`) is an `if` both of whose arms are computed and
//! selected with a `cmov`; its loop must close with one conditional branch back to the top,
//! not a register move and a jump (`pyjit-codegen`'s `select_cond`). An escape-time loop's
//! `<= 4.0` keeps `4.0` in a register instead of building it on every trip (`loop_consts`).
//! The results are checked against the interpreter (on both signs for `%`, Python's floor
//! modulo). A loop's carried values take their block parameters in the order the body computes
//! them, so mandelbrot's escape loop (`tests/programs/mandelbrot.py`, optimized) computes `zr`'s
//! chain before `zi`'s update, as the source does.

#[path = "native_common/mod.rs"]
mod common;
use common::*;
use pyjit_codegen::Value;

const SRC: &str = "\
def parity_mix(a: int, n: int) -> int:
    # Every spelling of a parity test, on negative and positive values.
    s = 0
    for i in range(-n, n):
        x = a * i
        s += 3 if x % 2 == 0 else 5
        s += 7 if x % 2 != 0 else 11
        s += 13 if 0 == x % 2 else 17
        s += 19 if (x & 1) == 0 else 23
        s += 29 if (x & 1) != 0 else 31
        s = s % 1000003
    return s

def escape(cr: float, ci: float, max_iter: int) -> int:
    zr = 0.0
    zi = 0.0
    k = 0
    while k < max_iter and zr * zr + zi * zi <= 4.0:
        t = zr * zr - zi * zi + cr
        zi = 2.0 * zr * zi + ci
        zr = t
        k += 1
    return k

def reorder(n: int) -> float:
    # Carried values of several kinds (an optional takes two slots), computed by the body in
    # the reverse of their definition order.
    a = 1
    b = 0.5
    c = True
    d: Optional[int] = None
    for i in range(n):
        d = i if c else None
        c = not c
        b = b * 1.5 - float(a)
        a = a * 3 % 1009
    e = 0 if d is None else d
    return b + float(a) + float(e) + (1.0 if c else 0.0)
";

#[test]
fn parity_selects_agree_with_the_interpreter() {
    let m = script(&format!("{COLLATZ}\n{SRC}"));
    let nm = native(&m);
    let cases: &[(&str, Vec<Value>)] = &[
        ("scalar_loop", vec![Value::Int(300)]),
        ("parity_mix", vec![Value::Int(1), Value::Int(50)]),
        ("parity_mix", vec![Value::Int(-3), Value::Int(41)]),
        ("parity_mix", vec![Value::Int(i64::MAX / 64), Value::Int(9)]),
        (
            "escape",
            vec![Value::Float(-0.5), Value::Float(0.5), Value::Int(100)],
        ),
        (
            "escape",
            vec![Value::Float(0.3), Value::Float(0.5), Value::Int(100)],
        ),
        (
            "escape",
            vec![Value::Float(f64::NAN), Value::Float(0.0), Value::Int(5)],
        ),
        (
            "escape",
            vec![Value::Float(3.0), Value::Float(0.0), Value::Int(0)],
        ),
        ("reorder", vec![Value::Int(0)]),
        ("reorder", vec![Value::Int(1)]),
        ("reorder", vec![Value::Int(2)]),
        ("reorder", vec![Value::Int(25)]),
    ];
    for (name, args) in cases {
        let (want, _) = interp(&m, name, args);
        let got = nm.function(name).unwrap().call(args);
        assert_eq!(
            format!("{:?}", got.map_err(|e| e.to_string())),
            format!("{:?}", want.map_err(|e| e.to_string())),
            "{name}{args:?}"
        );
    }
}

/// The offset of an asm listing line (`     7d:  cmovne  r8, r9`) and its mnemonic and operands.
fn parse_line(line: &str) -> Option<(u64, &str, &str)> {
    let (off, rest) = line.trim_start().split_once(':')?;
    let off = u64::from_str_radix(off, 16).ok()?;
    let rest = rest.trim();
    let (mnemonic, operands) = rest.split_once(' ').unwrap_or((rest, ""));
    Some((off, mnemonic, operands.trim()))
}

/// Function `name`'s part of an asm listing, and its parsed lines.
fn listing<'a>(asm: &'a str, name: &str) -> (&'a str, Vec<(u64, &'a str, &'a str)>) {
    let body = asm
        .split("; function ")
        .find(|f| f.starts_with(name))
        .unwrap_or_else(|| panic!("{name} in the listing"));
    (body, body.lines().filter_map(parse_line).collect())
}

#[test]
fn a_collatz_loop_closes_with_one_conditional_branch() {
    let m = script(COLLATZ);
    let asm = pyjit_codegen::emit_asm(&m).unwrap();
    let (body, lines) = listing(&asm, "scalar_loop");
    let at = lines
        .iter()
        .position(|(_, m, _)| m.starts_with("cmov"))
        .unwrap_or_else(|| panic!("the Collatz step is a cmov:\n{body}"));
    let cmov = lines[at].0;
    let (_, branch, target) = lines[at..]
        .iter()
        .find(|(_, m, _)| m.starts_with('j'))
        .unwrap_or_else(|| panic!("no branch after the cmov:\n{body}"));
    let target = u64::from_str_radix(target.trim_start_matches(".L"), 16)
        .unwrap_or_else(|_| panic!("branch target {target}:\n{body}"));
    assert!(
        *branch != "jmp" && target < cmov,
        "the loop's first branch after the cmov must be the conditional back edge:\n{body}"
    );
}

#[test]
fn an_escape_loop_reads_its_float_constant_from_a_register() {
    let m = script(SRC);
    let asm = pyjit_codegen::emit_asm(&m).unwrap();
    let (body, lines) = listing(&asm, "escape");
    // The loop: from the target of the first backward jump to that jump.
    let (end, _, target) = lines
        .iter()
        .find(|(off, m, t)| {
            m.starts_with('j')
                && u64::from_str_radix(t.trim_start_matches(".L"), 16).is_ok_and(|t| t < *off)
        })
        .unwrap_or_else(|| panic!("no loop:\n{body}"));
    let start = u64::from_str_radix(target.trim_start_matches(".L"), 16).unwrap();
    let in_loop: Vec<_> = lines
        .iter()
        .filter(|(off, _, _)| (start..=*end).contains(off))
        .collect();
    assert!(
        in_loop.iter().any(|(_, m, _)| m.contains("ucomisd")),
        "the loop compares:\n{body}"
    );
    assert!(
        !in_loop.iter().any(|(_, m, _)| m.contains("movq")),
        "the loop builds a constant from an integer register:\n{body}"
    );
}

#[test]
fn an_escape_loop_computes_zr_before_zi() {
    // The corpus's mandelbrot, optimized as every call's code is (the default pipeline).
    let mut m = script(include_str!("../../../tests/programs/mandelbrot.py"));
    let config = pyjit_opt::manager::PipelineConfig {
        verify: true,
        ..Default::default()
    };
    let report = pyjit_opt::manager::run_pipeline(&mut m, &config);
    assert!(
        report.verify_failure.is_none(),
        "{:?}",
        report.verify_failure
    );
    let asm = pyjit_codegen::emit_asm(&m).unwrap();
    let (body, lines) = listing(&asm, "mandelbrot");
    // (Without the carried values in the body's order this fails; `escape` above, or this
    // loop without the optimizer's pipeline, came out in the right order either way.)
    // `zr * zr - zi * zi` is the loop's first subtraction; `2.0 * zr` is `zr + zr`, an
    // addition of a register to itself.
    let sub = lines.iter().position(|(_, m, _)| *m == "vsubsd");
    let double = lines.iter().position(|(_, m, ops)| {
        let regs: Vec<_> = ops.split(',').map(str::trim).collect();
        *m == "vaddsd" && regs.len() == 3 && regs[1] == regs[2]
    });
    match (sub, double) {
        (Some(s), Some(d)) => assert!(s < d, "zi's update comes before zr's chain:\n{body}"),
        _ => panic!("no subtraction or doubling in the escape loop:\n{body}"),
    }
}
