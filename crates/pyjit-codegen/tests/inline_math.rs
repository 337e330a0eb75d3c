//! Native code computes `elem.exp`, `elem.expm1`, `elem.tanh` and `elem.sigmoid` inline
//! (`src/inline_math.rs`), copying the runtime kernels' operations; it must give exactly the
//! bits of `pyjit_runtime::ops::elem::eval` (NaN for NaN: payloads are not kept, an x86
//! instruction passes on the payload of whichever operand it takes first). Checked over a
//! strided sweep of all float32 bit patterns (every exponent, both signs) and, for float64, a
//! random sweep of bit patterns and of the range the kernels reduce, plus the special values
//! and the neighbours of every bound (clamps, overflow, underflow to subnormals and to zero,
//! the kernels' branch points). The FMA flavour and the plain one: on a CPU with FMA the test
//! runs itself again with `PYJIT_SIMD=scalar`, the runtime's switch to the plain flavour, which
//! native code follows. Both with the loop vectorizer (the float32 loops run eight iterations at a
//! time, `inline_math` emitting the same operations on `f32x4`) and without it.

use pyjit_codegen::{NativeModule, Options, Value};
use pyjit_ir::parse_module;
use pyjit_runtime::ops::elem::{ElemFn, Prec, eval};
use pyjit_runtime::ops::vmath;
use pyjit_runtime::{DType, Element, Tensor};

const FNS: [ElemFn; 5] = [
    ElemFn::Exp,
    ElemFn::Expm1,
    ElemFn::Tanh,
    ElemFn::TanhFast,
    ElemFn::Sigmoid,
];

/// `out[i] = f(x[i])` for every `i`, one function per kernel and precision.
fn module() -> pyjit_ir::Module {
    let mut src = String::new();
    for p in Prec::ALL {
        let (dt, pn) = match p {
            Prec::F32 => ("float32", "f32"),
            Prec::F64 => ("float64", "f64"),
        };
        for f in FNS {
            let name = f.name();
            src.push_str(&format!(
                "
func @{name}_{pn}(%x: Tensor[{dt}, 1], %out: Tensor[{dt}, 1], %n: int) -> int {{
  %t: bool = const true
  loop(%n, %t) body(%i: int) {{
    %v: float = tensor.load(%x, %i)
    %e: float = elem.{name}.{pn}(%v)
    tensor.store(%out, %i, %e)
    yield %t
  }}
  return %n
}}
"
            ));
        }
    }
    parse_module(&src).unwrap()
}

/// `v` and its `k` neighbours on either side (in the precision's ulps).
fn around32(out: &mut Vec<f32>, v: f32, k: i32) {
    for d in -k..=k {
        let b = v.to_bits() as i64 + i64::from(d);
        if (0..=u32::MAX as i64).contains(&b) {
            out.push(f32::from_bits(b as u32));
        }
    }
}

fn around64(out: &mut Vec<f64>, v: f64, k: i64) {
    for d in -k..=k {
        out.push(f64::from_bits(v.to_bits().wrapping_add(d as u64)));
    }
}

/// Bounds and thresholds whose neighbours each kernel must get right, both signs.
const EDGES: [f64; 28] = [
    // expm1: `|x|` below which it is `x` (float32, float64), and where `t = 2^(n-1)` reaches
    // the first value whose `t - 1/2` rounds (`n = 25`, `n = 54`).
    2.980_232_238_769_531_2e-8,
    5.551_115_123_125_783e-17,
    16.982_105_923_718_66,
    37.083_374_159_957_074,
    0.0,
    0.5,
    0.55,
    0.625,
    0.7,
    1.0,
    18.0,
    40.0,
    87.336_544,
    88.722_84,
    89.0,
    103.972_08,
    104.0,
    200.0,
    708.396_42,
    709.782_7,
    709.8,
    710.0,
    745.133_2,
    746.0,
    1e-8,
    1e-30,
    f64::MAX,
    f64::INFINITY,
];

fn inputs32() -> Vec<f32> {
    // A stride that is odd and not a multiple of small primes, so every exponent and many
    // mantissa patterns come up (about 430k values).
    let mut xs: Vec<f32> = (0..=u32::MAX).step_by(10_007).map(f32::from_bits).collect();
    for &e in &EDGES {
        for s in [1.0f32, -1.0] {
            around32(&mut xs, s * e as f32, 12);
        }
    }
    for s in [1.0f32, -1.0] {
        for b in [1u32, 2, 0x7f_ffff, 0x40_0000, 0x80_0000] {
            around32(&mut xs, s * f32::from_bits(b), 2); // subnormals and the smallest normals
        }
        xs.extend([s * f32::NAN, s * f32::from_bits(0x7fc0_1234)]);
    }
    xs
}

fn inputs64() -> Vec<f64> {
    let mut xs = Vec::new();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..40_000 {
        xs.push(f64::from_bits(next()));
    }
    // The range the kernels reduce and scale, uniformly, and small arguments log-uniformly.
    for _ in 0..40_000 {
        let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
        xs.push(1500.0 * u - 750.0);
    }
    for _ in 0..20_000 {
        let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
        let m = (2.0f64).powf(-60.0 * u);
        xs.push(if next() & 1 == 0 { m } else { -m });
    }
    for &e in &EDGES {
        for s in [1.0, -1.0] {
            around64(&mut xs, s * e, 12);
        }
    }
    for s in [1.0f64, -1.0] {
        for b in [1u64, 2, 0xf_ffff_ffff_ffff, 0x10_0000_0000_0000] {
            around64(&mut xs, s * f64::from_bits(b), 2);
        }
        xs.extend([s * f64::NAN, s * f64::from_bits(0x7ff8_0000_0000_1234)]);
    }
    xs
}

fn run(native: &NativeModule, name: &str, x: Tensor, dtype: DType) -> Tensor {
    let n = x.shape()[0];
    let out = Tensor::zeros(&[n], dtype).unwrap();
    let f = native.function(name).unwrap();
    f.call(&[
        Value::Tensor(x),
        Value::Tensor(out.clone()),
        Value::Int(n as i64),
    ])
    .unwrap();
    out
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Every function of [`FNS`] at precision `prec`, run natively on `xs`, gives the runtime's
/// bits (`bits` shows an input's).
fn check_precision<T: Element + std::fmt::LowerExp>(
    native: &NativeModule,
    xs: Vec<T>,
    prec: Prec,
    bits: fn(T) -> u64,
) {
    let t = Tensor::from_vec(xs.clone(), &[xs.len()]).unwrap();
    for f in FNS {
        let got = run(
            native,
            &format!("{}_{}", f.name(), prec.name()),
            t.clone(),
            prec.dtype(),
        );
        for (&x, &g) in xs.iter().zip(&got.to_vec::<T>()) {
            let want = eval(f, prec, x.to_f64(), 0.0);
            assert!(
                same(g.to_f64(), want),
                "{}.{}({x:e} = {:#x}) native {g:e}, runtime {want:e} (fma flavour: {})",
                f.name(),
                prec.name(),
                bits(x),
                vmath::fma_flavour()
            );
        }
    }
}

#[test]
fn inline_math_matches_the_kernels() {
    for vectorize in [true, false] {
        let options = Options {
            keep_clif: true,
            vectorize,
            ..Options::default()
        };
        let native = NativeModule::compile(&module(), &options).unwrap();
        for (name, clif) in native.clif() {
            // Inline: no call of the runtime's per-element entries.
            assert!(
                !clif.contains("pjn_elem"),
                "{name} calls the runtime:\n{clif}"
            );
            // The float32 loops run on `f32x4` vectors (when vectorizing).
            assert_eq!(
                clif.contains("f32x4"),
                vectorize && name.ends_with("_f32"),
                "{name} (vectorize: {vectorize}):\n{clif}"
            );
        }
        check_precision(&native, inputs32(), Prec::F32, |x| u64::from(x.to_bits()));
        check_precision(&native, inputs64(), Prec::F64, f64::to_bits);
    }

    // The other flavour, in a process of its own (the runtime picks its flavour once).
    if std::env::var_os("PYJIT_SIMD").is_some_and(|v| v == "scalar") {
        assert!(!vmath::fma_flavour());
    } else if vmath::fma_flavour() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "inline_math_matches_the_kernels",
                "--test-threads=1",
            ])
            .env("PYJIT_SIMD", "scalar")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "the plain flavour:\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
