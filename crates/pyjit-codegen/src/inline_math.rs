//! Native code's inline copies of the runtime's exponential-family kernels (`exp`, `expm1`,
//! `tanh`, `sigmoid`, float32 and float64, and fastmath's `tanh_fast`): the same operations, in the same order, on the
//! same constants (`pyjit_runtime::ops::vmath`'s public `EXP_F32`, `LN2_REDUCTION_F64` …, never
//! retyped here), so that an `elem` op computed inline gives the bits of
//! `pyjit_runtime::ops::elem::eval`, that is of the tensor kernels. Where the kernel's FMA
//! flavour fuses (`mul_add`), this emits Cranelift's `fma` (`vfmadd` with the ISA's `has_fma`);
//! in the plain flavour a multiply and an add. The flavour is the runtime's
//! ([`vmath::fma_flavour`]), as for the C entries the other functions are called through.
//!
//! These kernels are branch-free (clamps and special cases are selects), so inline they are a
//! few dozen instructions with no call: a loop around one keeps its values in registers (SysV
//! preserves no XMM register across a call). `tests/inline_math.rs` compares them with the
//! runtime over every float32 exponent and the specials, in both flavours.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type, Value, types};
use cranelift_frontend::FunctionBuilder;
use pyjit_runtime::ops::elem::{ElemFn, Prec};
use pyjit_runtime::ops::vmath::{
    self, EXP_F32, EXP_F64, EXPM1_F32, EXPM1_F64, ExpConsts, Expm1Consts, Ln2Reduction,
    TANH_F32_CLAMP, TANH_F32_POLY, TANH_F32_SMALL, TANH_F64_CLAMP, TANH_F64_POLY, TANH_F64_SMALL,
    TANH_FAST_F32_CLAMP, TANH_FAST_F32_P, TANH_FAST_F32_Q, TWO_PROD32_MASK, TWO_PROD32_TINY,
    TWO_PROD64_MASK, TWO_PROD64_TINY,
};

/// The flavour native code computes the kernels in: the runtime's.
pub(crate) fn fma_flavour() -> bool {
    vmath::fma_flavour()
}

/// Whether [`emit_lanes`] inlines `f` (at either precision).
pub(crate) fn inlines(f: ElemFn) -> bool {
    matches!(
        f,
        ElemFn::Exp | ElemFn::Expm1 | ElemFn::Tanh | ElemFn::TanhFast | ElemFn::Sigmoid
    )
}

/// `f(x)` at precision `p` for each value of `xs` (each an `f32` for [`Prec::F32`], else an
/// `f64`; for `lanes` > 1 vectors of them, as the loop vectorizer's `f32x4`, each lane computed
/// by the same operations as a scalar), in the FMA flavour when `fma`; `None` for the functions
/// it does not inline. Several values (the vectorizer's parts of one iteration) are computed
/// together, instruction by instruction, so their independent dependency chains interleave.
pub(crate) fn emit_lanes(
    b: &mut FunctionBuilder<'_>,
    f: ElemFn,
    p: Prec,
    fma: bool,
    xs: &[Value],
    lanes: u32,
) -> Option<Vec<Value>> {
    let mut e = Emit {
        b,
        fma,
        p,
        lanes,
        parts: xs.len(),
    };
    let x = xs.to_vec();
    Some(match (f, p) {
        (ElemFn::Exp, Prec::F32) => e.exp(&x, &EXP_F32),
        (ElemFn::Exp, Prec::F64) => e.exp(&x, &EXP_F64),
        (ElemFn::Expm1, Prec::F32) => e.expm1(&x, &EXPM1_F32),
        (ElemFn::Expm1, Prec::F64) => e.expm1(&x, &EXPM1_F64),
        (ElemFn::Tanh, Prec::F32) => {
            e.tanh(&x, &TANH_F32_POLY, TANH_F32_SMALL, TANH_F32_CLAMP, &EXP_F32)
        }
        (ElemFn::Tanh, Prec::F64) => {
            e.tanh(&x, &TANH_F64_POLY, TANH_F64_SMALL, TANH_F64_CLAMP, &EXP_F64)
        }
        (ElemFn::TanhFast, Prec::F32) => e.tanh_fast_f32(&x),
        // (`tanh_fast_f64` is `tanh_f64`.)
        (ElemFn::TanhFast, Prec::F64) => {
            e.tanh(&x, &TANH_F64_POLY, TANH_F64_SMALL, TANH_F64_CLAMP, &EXP_F64)
        }
        (ElemFn::Sigmoid, Prec::F32) => e.sigmoid_f32(&x),
        (ElemFn::Sigmoid, Prec::F64) => e.sigmoid_f64(&x),
        _ => return None,
    })
}

/// A float constant of either precision (the runtime's `f32` constants widen exactly).
trait Num: Copy + Into<f64> {}
impl Num for f32 {}
impl Num for f64 {}

/// One value per part.
type V = Vec<Value>;

struct Emit<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    fma: bool,
    p: Prec,
    /// 1 (scalars) or the lane count of the vectors the operations apply to.
    lanes: u32,
    /// How many independent values each operation is applied to.
    parts: usize,
}

impl Emit<'_, '_> {
    fn lane_fty(&self) -> Type {
        match self.p {
            Prec::F32 => types::F32,
            Prec::F64 => types::F64,
        }
    }

    fn lane_ity(&self) -> Type {
        match self.p {
            Prec::F32 => types::I32,
            Prec::F64 => types::I64,
        }
    }

    fn fty(&self) -> Type {
        self.lane_fty().by(self.lanes).unwrap_or(self.lane_fty())
    }

    fn ity(&self) -> Type {
        self.lane_ity().by(self.lanes).unwrap_or(self.lane_ity())
    }

    /// `f` of each part.
    fn un(&mut self, a: &[Value], f: impl Fn(&mut FunctionBuilder<'_>, Value) -> Value) -> V {
        a.iter().map(|&x| f(self.b, x)).collect()
    }

    /// `f` of each part's pair.
    fn bin(
        &mut self,
        a: &[Value],
        b: &[Value],
        f: impl Fn(&mut FunctionBuilder<'_>, Value, Value) -> Value,
    ) -> V {
        a.iter().zip(b).map(|(&x, &y)| f(self.b, x, y)).collect()
    }

    /// One value in every part (itself for scalars, splat for vectors).
    fn same(&mut self, v: Value, ty: Type) -> V {
        let v = if self.lanes > 1 {
            self.b.ins().splat(ty, v)
        } else {
            v
        };
        vec![v; self.parts]
    }

    /// The float constant `v` (exactly a value of the precision).
    fn k(&mut self, v: impl Num) -> V {
        let v: f64 = v.into();
        let c = match self.p {
            Prec::F32 => self.b.ins().f32const(v as f32),
            Prec::F64 => self.b.ins().f64const(v),
        };
        let ty = self.fty();
        self.same(c, ty)
    }

    /// The integer constant `v` of the integer type as wide as the precision.
    fn int(&mut self, v: i64) -> V {
        let lane = self.lane_ity();
        let v = if lane == types::I32 {
            i64::from(v as i32 as u32)
        } else {
            v
        };
        let c = self.b.ins().iconst(lane, v);
        let ty = self.ity();
        self.same(c, ty)
    }

    fn fcmp(&mut self, cc: FloatCC, a: &[Value], b: &[Value]) -> V {
        self.bin(a, b, |b, x, y| b.ins().fcmp(cc, x, y))
    }

    fn bitcast(&mut self, ty: Type, a: &[Value]) -> V {
        self.un(a, |b, x| b.ins().bitcast(ty, MemFlagsData::new(), x))
    }

    /// `if c { a } else { b }` for the results `c` of an `fcmp` (lane masks for vectors).
    fn select(&mut self, c: &[Value], a: &[Value], b: &[Value]) -> V {
        let vector = self.lanes > 1;
        c.iter()
            .zip(a)
            .zip(b)
            .map(|((&c, &x), &y)| {
                if !vector {
                    return self.b.ins().select(c, x, y);
                }
                let ty = self.b.func.dfg.value_type(x);
                let c = if self.b.func.dfg.value_type(c) == ty {
                    c
                } else {
                    self.b.ins().bitcast(ty, MemFlagsData::new(), c)
                };
                self.b.ins().bitselect(c, x, y)
            })
            .collect()
    }

    /// `|y|` with the sign of `x` (Cranelift's x64 `fcopysign` takes scalars only).
    fn copysign(&mut self, y: &[Value], x: &[Value]) -> V {
        if self.lanes == 1 {
            return self.bin(y, x, |b, y, x| b.ins().fcopysign(y, x));
        }
        let (ity, fty) = (self.ity(), self.fty());
        let sign = match self.p {
            Prec::F32 => i64::from(i32::MIN),
            Prec::F64 => i64::MIN,
        };
        let sign = self.int(sign);
        let yi = self.bitcast(ity, y);
        let xi = self.bitcast(ity, x);
        let mag = self.bin(&yi, &sign, |b, y, s| b.ins().band_not(y, s));
        let s = self.bin(&xi, &sign, |b, x, s| b.ins().band(x, s));
        let r = self.bin(&mag, &s, |b, m, s| b.ins().bor(m, s));
        self.bitcast(fty, &r)
    }

    /// The bits of the float constant `v`, as an integer constant.
    fn bits_of(&mut self, v: impl Num) -> V {
        let v: f64 = v.into();
        let bits = match self.p {
            Prec::F32 => i64::from((v as f32).to_bits()),
            Prec::F64 => v.to_bits() as i64,
        };
        self.int(bits)
    }

    fn add(&mut self, a: &[Value], b: &[Value]) -> V {
        self.bin(a, b, |b, x, y| b.ins().fadd(x, y))
    }

    fn sub(&mut self, a: &[Value], b: &[Value]) -> V {
        self.bin(a, b, |b, x, y| b.ins().fsub(x, y))
    }

    fn mul(&mut self, a: &[Value], b: &[Value]) -> V {
        self.bin(a, b, |b, x, y| b.ins().fmul(x, y))
    }

    fn div(&mut self, a: &[Value], b: &[Value]) -> V {
        self.bin(a, b, |b, x, y| b.ins().fdiv(x, y))
    }

    fn neg(&mut self, a: &[Value]) -> V {
        self.un(a, |b, x| b.ins().fneg(x))
    }

    fn abs(&mut self, a: &[Value]) -> V {
        self.un(a, |b, x| b.ins().fabs(x))
    }

    /// The kernels' `fma32::<F>` / `fma64::<F>`: `a b + c`, fused in the FMA flavour.
    fn fma(&mut self, a: &[Value], b: &[Value], c: &[Value]) -> V {
        if self.fma {
            a.iter()
                .zip(b)
                .zip(c)
                .map(|((&x, &y), &z)| self.b.ins().fma(x, y, z))
                .collect()
        } else {
            let m = self.mul(a, b);
            self.add(&m, c)
        }
    }

    /// `horner32`/`horner64`: `c` highest coefficient first.
    fn horner<T: Num>(&mut self, x: &[Value], c: &[T]) -> V {
        let mut p = self.k(c[0]);
        for &k in &c[1..] {
            let k = self.k(k);
            p = self.fma(&p, x, &k);
        }
        p
    }

    /// `clamp32`/`clamp64`: `lo` if `x < lo`, else `hi` if `x > hi`, else `x` (NaN passes).
    /// Computed as `u = hi if hi < x else x`, then `lo if u < lo else u` (the same value, as
    /// `lo < hi`): each a select of a comparison of its own two arms, which Cranelift emits as
    /// `minss`/`maxss` (`minps`/`maxps`), whose unordered case gives the second arm, as the
    /// select does, instead of a branch or a blend.
    fn clamp(&mut self, x: &[Value], lo: impl Num, hi: impl Num) -> V {
        let lo = self.k(lo);
        let hi = self.k(hi);
        let above = self.fcmp(FloatCC::LessThan, &hi, x);
        let upper = self.select(&above, &hi, x);
        let below = self.fcmp(FloatCC::LessThan, &upper, &lo);
        self.select(&below, &lo, &upper)
    }

    /// `if c { a } else { b }` of the comparison `x cc y`, selected as integers: Cranelift
    /// lowers a float `select` to a branch, which data-dependent picks (tanh's two forms)
    /// mispredict; an integer one is a `cmov`. The same bits either way.
    fn pick(&mut self, cc: FloatCC, x: &[Value], y: &[Value], a: &[Value], b: &[Value]) -> V {
        let c = self.fcmp(cc, x, y);
        let (ity, fty) = (self.ity(), self.fty());
        let ai = self.bitcast(ity, a);
        let bi = self.bitcast(ity, b);
        let r = self.select(&c, &ai, &bi);
        self.bitcast(fty, &r)
    }

    /// `reduce_ln2_f32`/`reduce_ln2_f64`: `(n, r)`, `n` an integer of the precision's width.
    fn reduce<T: Num>(&mut self, x: &[Value], c: &Ln2Reduction<T>) -> (V, V) {
        let (ni, _, _, r) = self.reduce_parts(x, c);
        (ni, r)
    }

    /// `reduce_ln2_lo_f64` (at either precision): `(n, r, rl)` with the rounding error `rl` of
    /// the reduction's last step.
    fn reduce_lo<T: Num>(&mut self, x: &[Value], c: &Ln2Reduction<T>) -> (V, V, V) {
        let (ni, neg_n, r1, r) = self.reduce_parts(x, c);
        let lo = self.k(c.ln2_lo);
        let d = self.sub(&r1, &r);
        let rl = self.fma(&neg_n, &lo, &d);
        (ni, r, rl)
    }

    /// The reduction's steps: `(n, -n as a float, x - n ln2_hi, r)`.
    fn reduce_parts<T: Num>(&mut self, x: &[Value], c: &Ln2Reduction<T>) -> (V, V, V, V) {
        let log2e = self.k(c.log2e);
        let round = self.k(c.round);
        let nf = self.fma(x, &log2e, &round);
        let ity = self.ity();
        let nbits = self.bitcast(ity, &nf);
        let rbits = self.bits_of(c.round);
        let ni = self.bin(&nbits, &rbits, |b, x, y| b.ins().isub(x, y));
        let n = self.sub(&nf, &round);
        let neg_n = self.neg(&n);
        let hi = self.k(c.ln2_hi);
        let r1 = self.fma(&neg_n, &hi, x);
        let lo = self.k(c.ln2_lo);
        let r = self.fma(&neg_n, &lo, &r1);
        (ni, neg_n, r1, r)
    }

    /// `pow2i_f32`/`pow2i_f64`: `2^n` from its exponent bits.
    fn pow2i(&mut self, n: &[Value]) -> V {
        let (bias, shift) = match self.p {
            Prec::F32 => (127, 23),
            Prec::F64 => (1023, 52),
        };
        let bias = self.int(bias);
        let e = self.bin(n, &bias, |b, x, y| b.ins().iadd(x, y));
        let bits = self.un(&e, |b, x| b.ins().ishl_imm_u(x, shift));
        let fty = self.fty();
        self.bitcast(fty, &bits)
    }

    /// `expm1_poly32`/`expm1_poly64`: `r + r^2 P(r)`.
    fn expm1_poly<T: Num>(&mut self, r: &[Value], c: &[T]) -> V {
        let h = self.horner(r, c);
        let r2 = self.mul(r, r);
        self.fma(&h, &r2, r)
    }

    /// `exp_f32`/`exp_f64`.
    fn exp<T: Num>(&mut self, x: &[Value], c: &ExpConsts<T>) -> V {
        let xc = self.clamp(x, c.lo, c.hi);
        let (n, r) = self.reduce(&xc, &c.reduce);
        let p = self.expm1_poly(&r, c.poly);
        let one = self.k(1.0f32);
        let y = self.add(&p, &one);
        let n1 = self.un(&n, |b, x| b.ins().sshr_imm_u(x, 1));
        let n2 = self.bin(&n, &n1, |b, x, y| b.ins().isub(x, y));
        let s1 = self.pow2i(&n1);
        let s2 = self.pow2i(&n2);
        let y = self.mul(&y, &s1);
        self.mul(&y, &s2)
    }

    /// `expm1_f32`/`expm1_f64`.
    fn expm1<T: Num>(&mut self, x: &[Value], c: &Expm1Consts<T>) -> V {
        let xc = self.clamp(x, c.lo, c.hi);
        // The reduction's rounding error: carried by the float64 form only.
        let (n, r, rl) = if matches!(self.p, Prec::F64) {
            let (n, r, rl) = self.reduce_lo(&xc, &c.reduce);
            (n, r, Some(rl))
        } else {
            let (n, r) = self.reduce(&xc, &c.reduce);
            (n, r, None)
        };
        let near_bound = self.k(c.near);
        let below = self.fcmp(FloatCC::LessThan, x, &near_bound);
        let neg_bound = self.k(c.near_neg);
        let neg_bound = self.neg(&neg_bound);
        let above = self.fcmp(FloatCC::GreaterThan, x, &neg_bound);
        let near = self.bin(&below, &above, |b, p, q| b.ins().band(p, q));
        let zero = self.int(0);
        let n = self.select(&near, &zero, &n);
        let r = self.select(&near, x, &r);
        let p = self.expm1_poly(&r, c.poly);
        let one = self.int(1);
        let nm1 = self.bin(&n, &one, |b, x, y| b.ins().isub(x, y));
        let t = self.pow2i(&nm1);
        let two = self.k(2.0f32);
        let half = self.k(0.5f32);
        // From `t = wide_t` on: the rounding error of `t p + t` carried (`expm1_f32`).
        let s = self.fma(&t, &p, &t);
        let ts = self.sub(&t, &s);
        let e = self.fma(&t, &p, &ts);
        let eh = self.sub(&e, &half);
        let se = self.add(&s, &eh);
        let wide = self.mul(&two, &se);
        let th = self.sub(&t, &half);
        let y = match self.p {
            // `expm1_f32`: `2 (t p + (t - 1/2))`, one FMA.
            Prec::F32 => {
                let f = self.fma(&t, &p, &th);
                self.mul(&two, &f)
            }
            // `expm1_f64`: `rl` carried, `(t - 1/2) + t p` by Fast2Sum.
            Prec::F64 => {
                let rl = rl.expect("the float64 reduction's error");
                let fzero = self.k(0.0f32);
                let rl = self.select(&near, &fzero, &rl);
                let m = self.mul(&t, &p);
                let sum = self.add(&th, &m);
                let hs = self.sub(&th, &sum);
                let err = self.add(&hs, &m);
                let pl = self.fma(&rl, &p, &rl);
                let small = self.fma(&t, &pl, &err);
                let f = self.add(&sum, &small);
                self.mul(&two, &f)
            }
        };
        let wide_t = self.k(c.wide_t);
        let y = self.pick(FloatCC::LessThan, &t, &wide_t, &y, &wide);
        let a = self.abs(x);
        let tiny = self.k(c.tiny);
        self.pick(FloatCC::LessThan, &a, &tiny, x, &y)
    }

    /// `tanh_f32`/`tanh_f64`: `x + x z Q(z)` (z = x^2) below `small`, [`Self::tanh_big`] above.
    fn tanh<T: Num>(
        &mut self,
        x: &[Value],
        poly: &[T],
        small: T,
        clamp: T,
        exp: &ExpConsts<T>,
    ) -> V {
        let a = self.abs(x);
        let z = self.mul(x, x);
        let h = self.horner(&z, poly);
        let hz = self.mul(&h, &z);
        let near = self.fma(&hz, x, x);
        let big = self.tanh_big(&a, clamp, exp);
        let bound = self.k(small);
        let y = self.pick(FloatCC::LessThan, &a, &bound, &near, &big);
        self.copysign(&y, x)
    }

    /// `tanh_fast_f32` (fastmath): `a P(a^2) / Q(a^2)` on `a = |x|` clamped, at most 1, with the
    /// sign of `x`.
    fn tanh_fast_f32(&mut self, x: &[Value]) -> V {
        let a = self.abs(x);
        let a = self.clamp(&a, 0.0f32, TANH_FAST_F32_CLAMP);
        let z = self.mul(&a, &a);
        let p = self.horner(&z, &TANH_FAST_F32_P);
        let q = self.horner(&z, &TANH_FAST_F32_Q);
        let ap = self.mul(&a, &p);
        let r = self.div(&ap, &q);
        let one = self.k(1.0f32);
        let r = self.pick(FloatCC::GreaterThan, &r, &one, &one, &r);
        self.copysign(&r, x)
    }

    /// `tanh_big_f32`/`tanh_big_f64`: `1 - 2/(e^(2a) + 1)` with the denominator's and the
    /// quotient's rounding errors carried.
    fn tanh_big<T: Num>(&mut self, a: &[Value], clamp: T, c: &ExpConsts<T>) -> V {
        let two = self.k(2.0f32);
        let a2 = self.mul(&two, a);
        let t = self.clamp(&a2, 0.0f32, clamp);
        let (n, r) = self.reduce(&t, &c.reduce);
        let p = self.expm1_poly(&r, c.poly);
        let s = self.pow2i(&n);
        let one = self.k(1.0f32);
        let s1 = self.add(&s, &one);
        let sp = self.mul(&s, &p);
        let d = self.add(&s1, &sp);
        let sd = self.sub(&s1, &d);
        let de = self.add(&sd, &sp);
        let q0 = self.div(&two, &d);
        let neg_q0 = self.neg(&q0);
        let rem = if self.fma {
            self.fma(&neg_q0, &d, &two)
        } else {
            let (qd, qde) = self.two_prod(&q0, &d);
            let r = self.sub(&two, &qd);
            self.sub(&r, &qde)
        };
        let rem = self.fma(&neg_q0, &de, &rem);
        let m = self.mul(&rem, &q0);
        let half = self.k(0.5f32);
        let q = self.fma(&m, &half, &q0);
        self.sub(&one, &q)
    }

    /// `two_prod32`/`two_prod64` of the plain flavour: `(p, e)` with `p = a b` rounded and `e`
    /// from Dekker's product of the halves (0 where `|p|` is below the tiny bound).
    fn two_prod(&mut self, a: &[Value], b: &[Value]) -> (V, V) {
        let p = self.mul(a, b);
        let (ity, fty) = (self.ity(), self.fty());
        let mask = match self.p {
            Prec::F32 => self.int(i64::from(TWO_PROD32_MASK)),
            Prec::F64 => self.int(TWO_PROD64_MASK as i64),
        };
        let mut split = |v: &[Value]| {
            let bits = self.bitcast(ity, v);
            let hb = self.bin(&bits, &mask, |b, x, m| b.ins().band(x, m));
            let h = self.bitcast(fty, &hb);
            let l = self.sub(v, &h);
            (h, l)
        };
        let (ah, al) = split(a);
        let (bh, bl) = split(b);
        let hh = self.mul(&ah, &bh);
        let e = self.sub(&hh, &p);
        let hl = self.mul(&ah, &bl);
        let e = self.add(&e, &hl);
        let lh = self.mul(&al, &bh);
        let e = self.add(&e, &lh);
        let ll = self.mul(&al, &bl);
        let e = self.add(&e, &ll);
        let pa = self.abs(&p);
        let tiny = match self.p {
            Prec::F32 => self.k(TWO_PROD32_TINY),
            Prec::F64 => self.k(TWO_PROD64_TINY),
        };
        let zero = self.k(0.0f32);
        let e = self.pick(FloatCC::LessThan, &pa, &tiny, &zero, &e);
        (p, e)
    }

    /// `sigmoid_f32`: `1/(1+t)` or `t/(1+t)` with `t = e^-|x|`, the rounding of `1 + t` fed
    /// back.
    fn sigmoid_f32(&mut self, x: &[Value]) -> V {
        let a = self.abs(x);
        let na = self.neg(&a);
        let t = self.exp(&na, &EXP_F32);
        let one = self.k(1.0f32);
        let zero = self.k(0.0f32);
        let num = self.pick(FloatCC::GreaterThanOrEqual, x, &zero, &one, &t);
        let s = self.add(&one, &t);
        let d = self.sub(&one, &s);
        let err = self.add(&d, &t);
        let q = self.div(&num, &s);
        let neg_q = self.neg(&q);
        let es = self.div(&err, &s);
        self.fma(&neg_q, &es, &q)
    }

    /// `sigmoid_f64`.
    fn sigmoid_f64(&mut self, x: &[Value]) -> V {
        let a = self.abs(x);
        let na = self.neg(&a);
        let t = self.exp(&na, &EXP_F64);
        let one = self.k(1.0f32);
        let zero = self.k(0.0f32);
        let num = self.pick(FloatCC::GreaterThanOrEqual, x, &zero, &one, &t);
        let s = self.add(&one, &t);
        self.div(&num, &s)
    }
}
