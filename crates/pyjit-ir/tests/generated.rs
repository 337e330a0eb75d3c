//! Generated programs: random well-typed functions built with the builder (nested `if`s and
//! `loop`s, scalars, tuples, lists, optionals, calls including recursion, tensor ops) must verify,
//! print → parse → print to the same text, and survive compaction and cloning unchanged.

use pyjit_ir::*;
use pyjit_syntax::{SourceFile, Span};
use std::sync::Arc;

mod common;

use common::Rng;

struct Gen<'a, 'f> {
    b: FunctionBuilder<'f>,
    rng: &'a mut Rng,
    /// Values in scope, innermost region last.
    scopes: Vec<Vec<Value>>,
    callees: Vec<(FuncId, Vec<Type>, Type)>,
    text_len: usize,
}

impl Gen<'_, '_> {
    fn visible(&self, ty: &Type) -> Vec<Value> {
        self.scopes
            .iter()
            .flatten()
            .copied()
            .filter(|&v| self.b.value_type(v) == ty)
            .collect()
    }

    fn push(&mut self, v: Value) -> Value {
        self.scopes.last_mut().unwrap().push(v);
        v
    }

    /// Some value of type `ty`: an existing one, or a new constant/op.
    fn value(&mut self, ty: &Type, depth: u32) -> Value {
        let have = self.visible(ty);
        if !have.is_empty() && self.rng.below(3) > 0 {
            return have[self.rng.below(have.len())];
        }
        self.make(ty, depth)
    }

    fn span(&mut self) {
        let s = self.rng.below(self.text_len);
        self.b.set_span(Span::new(s, s + 1));
    }

    fn make(&mut self, ty: &Type, depth: u32) -> Value {
        self.span();
        let v = match ty {
            Type::Int => match self.rng.below(6) {
                0 => self
                    .b
                    .const_int(self.rng.next() as i64 >> self.rng.below(64)),
                1 => {
                    let a = self.value(&Type::Int, depth);
                    let c = self.value(&Type::Int, depth);
                    let ops = [
                        IntBinOp::Add,
                        IntBinOp::Sub,
                        IntBinOp::Mul,
                        IntBinOp::FloorDiv,
                        IntBinOp::Mod,
                        IntBinOp::BitXor,
                        IntBinOp::Shl,
                    ];
                    let op = ops[self.rng.below(ops.len())];
                    self.b.int_bin(op, a, c)
                }
                2 => {
                    let f = self.value(&Type::Float, depth);
                    self.b.math(MathFn::Floor, &[f])
                }
                3 if !self.callees.is_empty() && depth < 3 => {
                    let (id, params, ret) =
                        self.callees[self.rng.below(self.callees.len())].clone();
                    if ret == Type::Int {
                        let args: Vec<Value> =
                            params.iter().map(|p| self.value(p, depth + 1)).collect();
                        self.b.call(id, &args, Type::Int)
                    } else {
                        self.b.const_int(3)
                    }
                }
                4 if depth < 3 => return self.control(Type::Int, depth),
                _ => {
                    let t = self.value(&Type::Tuple(vec![Type::Int, Type::Float]), depth + 1);
                    self.b.tuple_get(t, 0)
                }
            },
            Type::Float => match self.rng.below(4) {
                0 => {
                    let x = f64::from_bits(self.rng.next());
                    self.b.const_float(x)
                }
                1 => {
                    let i = self.value(&Type::Int, depth);
                    self.b.cast(CastOp::IntToFloat, i)
                }
                2 => {
                    let a = self.value(&Type::Float, depth);
                    let c = self.value(&Type::Float, depth);
                    self.b.float_bin(FloatBinOp::Div, a, c)
                }
                _ => {
                    let t = self.value(&Type::tensor(), depth);
                    let id = schema::lookup("Float.Tensor").unwrap();
                    self.b.tensor_op1(id, &[t]).unwrap()
                }
            },
            Type::Bool => match self.rng.below(3) {
                0 => self.b.const_bool(self.rng.below(2) == 0),
                1 => {
                    let a = self.value(&Type::Int, depth);
                    let c = self.value(&Type::Int, depth);
                    self.b.int_cmp(CmpOp::Le, a, c)
                }
                _ => {
                    let o = self.value(&Type::optional(Type::Int), depth);
                    self.b.opt_is_none(o)
                }
            },
            Type::Tuple(ts) => {
                let elems: Vec<Value> = ts.iter().map(|t| self.value(t, depth)).collect();
                self.b.tuple_new(&elems)
            }
            Type::Optional(inner) => {
                if self.rng.below(2) == 0 {
                    self.b.opt_none((**inner).clone())
                } else {
                    let v = self.value(inner, depth);
                    self.b.opt_wrap(v)
                }
            }
            Type::List(inner) => {
                let n = self.rng.below(3);
                let elems: Vec<Value> = (0..n).map(|_| self.value(inner, depth)).collect();
                let l = self.b.list_new((**inner).clone(), &elems);
                if self.rng.below(2) == 0 {
                    let e = self.value(inner, depth);
                    self.b.list_append(l, e);
                }
                l
            }
            Type::Tensor(_) => {
                let x = self.value(&Type::tensor(), depth);
                let s = self.value(&Type::Float, depth);
                let one = self.b.const_int(1);
                let id = schema::lookup("add.Scalar").unwrap();
                self.b.tensor_op1(id, &[x, s, one]).unwrap()
            }
            _ => self.b.const_none(),
        };
        self.push(v)
    }

    /// An `if` or a `loop` producing a value of type `ty`.
    fn control(&mut self, ty: Type, depth: u32) -> Value {
        if self.rng.below(2) == 0 {
            let c = self.value(&Type::Bool, depth);
            let mut regions = Vec::new();
            for _ in 0..2 {
                let r = self.b.new_region(&[]);
                let saved = self.b.position_at_end(r);
                self.scopes.push(Vec::new());
                let n = self.rng.below(3);
                for _ in 0..n {
                    let t = [Type::Int, Type::Float, Type::Bool][self.rng.below(3)].clone();
                    self.make(&t, depth + 1);
                }
                if self.rng.below(8) == 0 {
                    let m = self.b.const_str("generated raise");
                    self.b.raise("RuntimeError", m);
                } else {
                    let v = self.value(&ty, depth + 1);
                    self.span();
                    self.b.yield_(&[v]);
                }
                self.scopes.pop();
                self.b.set_insert_point(saved);
                regions.push(r);
            }
            self.span();
            let op = self.b.if_(c, regions[0], regions[1], &[ty]);
            let v = self.b.result(op);
            self.push(v)
        } else {
            let n = self.value(&Type::Int, depth);
            let c = self.value(&Type::Bool, depth);
            let init = self.value(&ty, depth);
            let body = self.b.new_region(&[Type::Int, ty.clone()]);
            let saved = self.b.position_at_end(body);
            self.scopes.push(self.b.func.region_params(body).to_vec());
            let k = self.rng.below(3);
            for _ in 0..k {
                let t = [Type::Int, Type::Float, Type::Bool][self.rng.below(3)].clone();
                self.make(&t, depth + 1);
            }
            let cont = self.value(&Type::Bool, depth + 1);
            let next = self.value(&ty, depth + 1);
            self.b.yield_(&[cont, next]);
            self.scopes.pop();
            self.b.set_insert_point(saved);
            self.span();
            let op = self.b.loop_(n, c, &[init], body);
            let v = self.b.result(op);
            self.push(v)
        }
    }
}

fn generate(seed: u64) -> Module {
    let mut rng = Rng(seed.wrapping_mul(0x9e3779b97f4a7c15) | 1);
    let text = "x = 1\nif x:\n    y = 2\nelse:\n    y = 3\n".repeat(4);
    let mut m = Module::with_source(Arc::new(SourceFile::new("gen.py", text.clone())));
    let nfuncs = 1 + rng.below(3);
    let mut sigs = Vec::new();
    for i in 0..nfuncs {
        let params = vec![
            ("n".to_string(), Type::Int),
            ("x".to_string(), Type::Float),
            ("t".to_string(), Type::tensor()),
            ("o".to_string(), Type::optional(Type::Int)),
        ];
        let ret = [
            Type::Int,
            Type::Float,
            Type::Tuple(vec![Type::Int, Type::Float]),
            Type::list(Type::Int),
        ][rng.below(4)]
        .clone();
        let ps: Vec<(&str, Type)> = params
            .iter()
            .map(|(n, t)| (n.as_str(), t.clone()))
            .collect();
        let id = m.declare_function(format!("f{i}"), &ps, ret.clone(), Span::new(0, 3));
        sigs.push((id, params.into_iter().map(|p| p.1).collect::<Vec<_>>(), ret));
    }
    for (id, _, ret) in sigs.clone() {
        let b = FunctionBuilder::new(m.func_mut(id));
        let params = b.func.params().to_vec();
        let mut g = Gen {
            b,
            rng: &mut rng,
            scopes: vec![params],
            callees: sigs.clone(),
            text_len: text.len(),
        };
        let steps = 2 + g.rng.below(8);
        for _ in 0..steps {
            let t =
                [Type::Int, Type::Float, Type::Bool, Type::list(Type::Int)][g.rng.below(4)].clone();
            g.make(&t, 0);
        }
        let r = g.value(&ret, 0);
        g.b.return_(r);
    }
    m
}

#[test]
fn generated_programs_verify_and_round_trip() {
    // How often each construct appeared, so the test proves it covered them.
    let mut seen = std::collections::HashMap::<&str, usize>::new();
    for seed in 1..=300u64 {
        let m = generate(seed);
        for f in m.funcs.values() {
            for op in f.all_ops() {
                let k = match f.op(op).kind {
                    OpKind::If => "if",
                    OpKind::Loop => "loop",
                    OpKind::Call(_) => "call",
                    OpKind::Raise(_) => "raise",
                    OpKind::Tensor(_) => "tensor",
                    OpKind::ListAppend => "list.append",
                    OpKind::OptWrap => "opt.wrap",
                    _ => continue,
                };
                *seen.entry(k).or_default() += 1;
            }
        }
        if let Err(e) = verify_module(&m) {
            panic!("seed {seed}: {e:?}\n{}", print_module(&m));
        }
        let text = print_module(&m);
        let p = parse_module(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        verify_module(&p).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
        assert_eq!(print_module(&p), text, "seed {seed}");
        // Compaction and cloning change no printed text.
        let mut c = m.clone();
        for f in c.funcs.values_mut() {
            *f = f.compacted();
        }
        assert_eq!(print_module(&c), text, "seed {seed}");
        let first = m.funcs.keys().next().unwrap();
        let mut d = m.clone();
        let copy = d.clone_function(first, "copy");
        assert_eq!(
            print_function(&d, copy).replacen(
                "func @copy(",
                &format!("func @{}(", m.func(first).name),
                1
            ),
            print_function(&m, first),
            "seed {seed}"
        );
    }
    for k in [
        "if",
        "loop",
        "call",
        "raise",
        "tensor",
        "list.append",
        "opt.wrap",
    ] {
        assert!(
            seen.get(k).copied().unwrap_or(0) >= 10,
            "{k} generated too rarely: {seen:?}"
        );
    }
}
