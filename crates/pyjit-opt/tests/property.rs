//! Property test: on randomly generated programs, every pass alone (and the `-O1`/`-O2`
//! pipelines) keeps the IR valid and the results identical on the reference interpreter —
//! result, printed output, and error class and message — for several inputs each.
//!
//! Programs come from a seeded generator (SplitMix64, so failures reproduce by seed): integer,
//! float and bool arithmetic including ops that raise (division by zero, negative shifts,
//! `float.to_int` of NaN), comparisons, `select`, nested `if`s with results, `for`/`while`-style
//! loops with carried values and computed exits, lists written in loops, small tensors with an
//! in-place op and element loads and stores (also out of range), prints, and calls to a helper
//! function (for the inliner).
//!
//! In debug builds (these tests), every pass that keeps a [`pyjit_ir::Uses`] index (constfold,
//! dce, tensor-access) asserts after each round that it equals a fresh build, so the first test
//! also checks the index on every generated program; the second drives the index's own mutation
//! methods at random on the same programs.

mod common;

use pyjit_interp::Value;
use pyjit_ir::{
    BoolBinOp, CastOp, CmpOp, FloatBinOp, FloatUnOp, FuncId, FunctionBuilder, IntBinOp, IntUnOp,
    Module, Type, Value as V, schema, verify_module,
};
use pyjit_opt::manager::{OptLevel, PipelineConfig, run_pipeline};
use pyjit_opt::passes::ALL_PASSES;
use pyjit_syntax::Span;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

#[derive(Clone, Default)]
struct Pool {
    ints: Vec<V>,
    floats: Vec<V>,
    bools: Vec<V>,
    lists: Vec<V>,
    tensors: Vec<V>,
}

struct Gen<'r, 'f> {
    rng: &'r mut Rng,
    b: FunctionBuilder<'f>,
    helper: Option<FuncId>,
    depth: u32,
}

fn pick(rng: &mut Rng, vs: &[V]) -> V {
    // Prefer recent values so chains form.
    let n = vs.len();
    if rng.chance(60) {
        vs[n - 1 - rng.below(n.min(3))]
    } else {
        vs[rng.below(n)]
    }
}

impl Gen<'_, '_> {
    fn int(&mut self, p: &Pool) -> V {
        pick(self.rng, &p.ints)
    }
    fn float(&mut self, p: &Pool) -> V {
        pick(self.rng, &p.floats)
    }
    fn boolean(&mut self, p: &Pool) -> V {
        pick(self.rng, &p.bools)
    }

    fn stmt(&mut self, p: &mut Pool) {
        let r = self.rng.below(100);
        match r {
            0..=7 => {
                let v = [0, 1, -1, 2, 3, 7, -5, 64][self.rng.below(8)];
                let c = self.b.const_int(v);
                p.ints.push(c);
            }
            8..=13 => {
                let v =
                    [0.0, -0.0, 1.0, 2.5, -3.0, f64::NAN, f64::INFINITY, 0.5][self.rng.below(8)];
                let c = self.b.const_float(v);
                p.floats.push(c);
            }
            14..=15 => {
                let v = self.rng.chance(50);
                let c = self.b.const_bool(v);
                p.bools.push(c);
            }
            16..=29 => {
                let op = IntBinOp::ALL[self.rng.below(IntBinOp::ALL.len())];
                let (a, b) = (self.int(p), self.int(p));
                let b = if op == IntBinOp::Pow || op == IntBinOp::Shl {
                    // Keep results small-ish but still allow negative exponents (errors).
                    let three = self.b.const_int(3);
                    self.b.int_bin(IntBinOp::BitAnd, b, three)
                } else {
                    b
                };
                let v = self.b.int_bin(op, a, b);
                p.ints.push(v);
            }
            30..=32 => {
                let op = [IntUnOp::Neg, IntUnOp::Invert, IntUnOp::Abs][self.rng.below(3)];
                let a = self.int(p);
                let v = self.b.int_un(op, a);
                p.ints.push(v);
            }
            33..=45 => {
                let op = FloatBinOp::ALL[self.rng.below(FloatBinOp::ALL.len())];
                let (a, b) = (self.float(p), self.float(p));
                let v = self.b.float_bin(op, a, b);
                p.floats.push(v);
            }
            46 => {
                let a = self.float(p);
                let op = [FloatUnOp::Neg, FloatUnOp::Abs][self.rng.below(2)];
                let v = self.b.float_un(op, a);
                p.floats.push(v);
            }
            47..=52 => {
                let c = [
                    CastOp::IntToFloat,
                    CastOp::FloatToInt,
                    CastOp::BoolToInt,
                    CastOp::IntToBool,
                    CastOp::FloatToBool,
                ][self.rng.below(5)];
                let a = match c {
                    CastOp::IntToFloat | CastOp::IntToBool => self.int(p),
                    CastOp::BoolToInt | CastOp::BoolToFloat => self.boolean(p),
                    _ => self.float(p),
                };
                let v = self.b.cast(c, a);
                // The result goes to the pool of the type the builder gave it.
                match self.b.value_type(v) {
                    Type::Float => p.floats.push(v),
                    Type::Int => p.ints.push(v),
                    _ => p.bools.push(v),
                }
            }
            53..=58 => {
                let c = CmpOp::ALL[self.rng.below(CmpOp::ALL.len())];
                let v = if self.rng.chance(60) {
                    let (a, b) = (self.int(p), self.int(p));
                    self.b.int_cmp(c, a, b)
                } else {
                    let (a, b) = (self.float(p), self.float(p));
                    self.b.float_cmp(c, a, b)
                };
                p.bools.push(v);
            }
            59..=62 => {
                let v = if self.rng.chance(50) {
                    let a = self.boolean(p);
                    self.b.not(a)
                } else {
                    let op = [BoolBinOp::And, BoolBinOp::Or, BoolBinOp::Xor][self.rng.below(3)];
                    let (a, b) = (self.boolean(p), self.boolean(p));
                    self.b.bool_bin(op, a, b)
                };
                p.bools.push(v);
            }
            63..=64 => {
                let c = self.boolean(p);
                let (a, b) = (self.int(p), self.int(p));
                let v = self.b.select(c, a, b);
                p.ints.push(v);
            }
            65..=72 if self.depth < 3 => self.gen_if(p),
            73..=80 if self.depth < 3 => self.gen_loop(p),
            81..=82 => {
                let a = self.int(p);
                let f = self.float(p);
                self.b.print(&[a, f]);
            }
            83..=85 => {
                if let Some(h) = self.helper {
                    let (a, b) = (self.int(p), self.int(p));
                    let v = self.b.call(h, &[a, b], Type::Int);
                    p.ints.push(v);
                }
            }
            86..=88 => {
                let a = self.int(p);
                let l = self.b.list_new(Type::Int, &[a]);
                p.lists.push(l);
            }
            89..=91 if !p.lists.is_empty() => {
                let l = pick(self.rng, &p.lists);
                match self.rng.below(3) {
                    0 => {
                        let a = self.int(p);
                        self.b.list_append(l, a);
                    }
                    1 => {
                        let v = self.b.list_len(l);
                        p.ints.push(v);
                    }
                    _ => {
                        let i = self.int(p);
                        let v = self.b.list_get(l, i);
                        p.ints.push(v);
                    }
                }
            }
            92..=99 => self.gen_tensor(p),
            _ => {}
        }
    }

    fn gen_tensor(&mut self, p: &mut Pool) {
        let none = self.b.const_none();
        if p.tensors.is_empty() || self.rng.chance(25) {
            let n = self.b.const_int(3);
            let shape = self.b.list_new(Type::Int, &[n]);
            let ones = schema::lookup("ones").unwrap();
            let t = self.b.tensor_op1(ones, &[shape, none]).unwrap();
            // What the specializer knows of `torch.ones([3])` (so element accesses can fire).
            self.b.func.set_value_type(
                t,
                Type::Tensor(pyjit_ir::TensorType::shaped(
                    Some(pyjit_ir::DType::Float32),
                    vec![Some(3)],
                )),
            );
            p.tensors.push(t);
            return;
        }
        let t = pick(self.rng, &p.tensors);
        let one = self.b.const_int(1);
        match self.rng.below(10) {
            // Element arithmetic on 0-d tensors (`np.exp(t[i]) + np.float32(a)`, for
            // `scalarize`), read back as a float and a comparison, or stored into `t[j]`.
            8 | 9 => {
                let zero_d =
                    |dtype| Type::Tensor(pyjit_ir::TensorType::shaped(Some(dtype), vec![]));
                let f32_0d = zero_d(pyjit_ir::DType::Float32);
                let i = self.int(p);
                let c = self.b.index(pyjit_ir::IndexKind::Int, &[i]);
                let l = self.b.list_new(Type::Index, &[c]);
                let e = self
                    .b
                    .tensor_op1(schema::lookup("index").unwrap(), &[t, l])
                    .unwrap();
                self.b.func.set_value_type(e, f32_0d.clone());
                let a = self.float(p);
                let dt = self.b.const_dtype(pyjit_ir::DType::Float32);
                let s = self
                    .b
                    .tensor_op1(schema::lookup("scalar_tensor").unwrap(), &[a, dt])
                    .unwrap();
                self.b.func.set_value_type(s, f32_0d.clone());
                let un = ["exp", "tanh", "sigmoid", "neg", "sqrt", "log", "abs"][self.rng.below(7)];
                let u = self
                    .b
                    .tensor_op1(schema::lookup(un).unwrap(), &[e])
                    .unwrap();
                self.b.func.set_value_type(u, f32_0d.clone());
                let w = match self.rng.below(5) {
                    0 => self
                        .b
                        .tensor_op1(schema::lookup("add.Tensor").unwrap(), &[u, s, one]),
                    1 => self
                        .b
                        .tensor_op1(schema::lookup("mul.Tensor").unwrap(), &[u, s]),
                    2 => self
                        .b
                        .tensor_op1(schema::lookup("div.Tensor").unwrap(), &[s, u]),
                    3 => self
                        .b
                        .tensor_op1(schema::lookup("rsub.Scalar").unwrap(), &[u, a, one]),
                    _ => {
                        let k = self.int(p);
                        self.b
                            .tensor_op1(schema::lookup("sub.Scalar").unwrap(), &[u, k, one])
                    }
                }
                .unwrap();
                self.b.func.set_value_type(w, f32_0d.clone());
                if self.rng.chance(50) {
                    let j = self.int(p);
                    let c = self.b.index(pyjit_ir::IndexKind::Int, &[j]);
                    let l = self.b.list_new(Type::Index, &[c]);
                    self.b
                        .tensor_op1(schema::lookup("index_put_").unwrap(), &[t, l, w])
                        .unwrap();
                } else {
                    let gt = self
                        .b
                        .tensor_op1(schema::lookup("gt.Tensor").unwrap(), &[w, e])
                        .unwrap();
                    self.b
                        .func
                        .set_value_type(gt, zero_d(pyjit_ir::DType::Bool));
                    let b = self
                        .b
                        .tensor_op1(schema::lookup("Bool.Tensor").unwrap(), &[gt])
                        .unwrap();
                    p.bools.push(b);
                    let v = self
                        .b
                        .tensor_op1(schema::lookup("Float.Tensor").unwrap(), &[w])
                        .unwrap();
                    p.floats.push(v);
                }
            }
            // `t * a + b`: an elementwise chain (for the fuser).
            7 => {
                let a = self.float(p);
                let b = self.int(p);
                let mul = schema::lookup("mul.Scalar").unwrap();
                let m = self.b.tensor_op1(mul, &[t, a]).unwrap();
                let add = schema::lookup("add.Scalar").unwrap();
                let v = self.b.tensor_op1(add, &[m, b, one]).unwrap();
                p.tensors.push(v);
            }
            // `t[i] = v` and `float(t[i])`: element stores and loads (also out of range).
            5 => {
                let i = self.int(p);
                let c = self.b.index(pyjit_ir::IndexKind::Int, &[i]);
                let l = self.b.list_new(Type::Index, &[c]);
                let v = self.float(p);
                let op = schema::lookup("index_put_.Scalar").unwrap();
                self.b.tensor_op1(op, &[t, l, v]).unwrap();
            }
            6 => {
                let i = self.int(p);
                let c = self.b.index(pyjit_ir::IndexKind::Int, &[i]);
                let l = self.b.list_new(Type::Index, &[c]);
                let op = schema::lookup("index").unwrap();
                let e = self.b.tensor_op1(op, &[t, l]).unwrap();
                let f = schema::lookup("Float.Tensor").unwrap();
                let v = self.b.tensor_op1(f, &[e]).unwrap();
                p.floats.push(v);
            }
            0 => {
                let a = self.int(p);
                let op = schema::lookup("add.Scalar").unwrap();
                let v = self.b.tensor_op1(op, &[t, a, one]).unwrap();
                p.tensors.push(v);
            }
            1 => {
                let a = self.float(p);
                let op = schema::lookup("mul.Scalar").unwrap();
                let v = self.b.tensor_op1(op, &[t, a]).unwrap();
                p.tensors.push(v);
            }
            2 => {
                let a = self.int(p);
                let op = schema::lookup("add_.Scalar").unwrap();
                self.b.tensor_op1(op, &[t, a, one]).unwrap();
            }
            _ => {
                let sum = schema::lookup("sum").unwrap();
                let s = self.b.tensor_op1(sum, &[t, none]).unwrap();
                let item = schema::lookup("Float.Tensor").unwrap();
                let v = self.b.tensor_op1(item, &[s]).unwrap();
                p.floats.push(v);
            }
        }
    }

    fn block(&mut self, p: &mut Pool, n: usize) {
        for _ in 0..n {
            self.stmt(p);
        }
    }

    fn gen_if(&mut self, p: &mut Pool) {
        let c = self.boolean(p);
        self.depth += 1;
        let mut regions = Vec::new();
        for _ in 0..2 {
            let r = self.b.new_region(&[]);
            let saved = self.b.position_at_end(r);
            let mut inner = p.clone();
            let n = 1 + self.rng.below(4);
            self.block(&mut inner, n);
            let (a, f) = (self.int(&inner), self.float(&inner));
            self.b.yield_(&[a, f]);
            self.b.set_insert_point(saved);
            regions.push(r);
        }
        self.depth -= 1;
        let op = self
            .b
            .if_(c, regions[0], regions[1], &[Type::Int, Type::Float]);
        let rs = self.b.results(op);
        p.ints.push(rs[0]);
        p.floats.push(rs[1]);
    }

    fn gen_loop(&mut self, p: &mut Pool) {
        let trip = if self.rng.chance(50) {
            let n = self.rng.below(5) as i64;
            self.b.const_int(n)
        } else {
            let a = self.int(p);
            let three = self.b.const_int(3);
            self.b.int_bin(IntBinOp::BitAnd, a, three)
        };
        let cond = if self.rng.chance(80) {
            self.b.const_bool(true)
        } else {
            self.boolean(p)
        };
        let (ci, cf) = (self.int(p), self.float(p));
        let body = self.b.new_region(&[Type::Int, Type::Int, Type::Float]);
        let params = self.b.func.region_params(body).to_vec();
        let saved = self.b.position_at_end(body);
        self.depth += 1;
        let mut inner = p.clone();
        inner.ints.extend([params[0], params[1]]);
        inner.floats.push(params[2]);
        let n = 1 + self.rng.below(5);
        self.block(&mut inner, n);
        let next = if self.rng.chance(75) {
            self.b.const_bool(true)
        } else {
            let (a, b) = (self.int(&inner), self.int(&inner));
            self.b.int_cmp(CmpOp::Lt, a, b)
        };
        let (a, f) = (self.int(&inner), self.float(&inner));
        self.b.yield_(&[next, a, f]);
        self.depth -= 1;
        self.b.set_insert_point(saved);
        let op = self.b.loop_(trip, cond, &[ci, cf], body);
        let rs = self.b.results(op);
        p.ints.push(rs[0]);
        p.floats.push(rs[1]);
    }
}

fn generate(seed: u64) -> Module {
    let mut rng = Rng(seed);
    let mut m = Module::new();
    let helper = m.declare_function(
        "helper",
        &[("a", Type::Int), ("b", Type::Int)],
        Type::Int,
        Span::DUMMY,
    );
    let main = m.declare_function(
        "main",
        &[
            ("x", Type::Int),
            ("y", Type::Int),
            ("z", Type::Float),
            ("c", Type::Bool),
        ],
        Type::Tuple(vec![Type::Int, Type::Float, Type::Bool]),
        Span::DUMMY,
    );
    {
        let b = FunctionBuilder::new(m.func_mut(helper));
        let mut g = Gen {
            rng: &mut rng,
            b,
            helper: None,
            depth: 1,
        };
        let mut p = Pool {
            ints: vec![g.b.param(0), g.b.param(1)],
            ..Pool::default()
        };
        let f = g.b.const_float(1.5);
        p.floats.push(f);
        let t = g.b.const_bool(true);
        p.bools.push(t);
        let n = 2 + g.rng.below(5);
        g.block(&mut p, n);
        let r = g.int(&p);
        g.b.return_(r);
    }
    {
        let b = FunctionBuilder::new(m.func_mut(main));
        let mut g = Gen {
            rng: &mut rng,
            b,
            helper: Some(helper),
            depth: 0,
        };
        let mut p = Pool {
            ints: vec![g.b.param(0), g.b.param(1)],
            floats: vec![g.b.param(2)],
            bools: vec![g.b.param(3)],
            ..Pool::default()
        };
        let n = 6 + g.rng.below(14);
        g.block(&mut p, n);
        // Print the most recent values so that most computations are observable.
        let mut shown: Vec<V> = Vec::new();
        shown.extend(p.ints.iter().rev().take(6));
        shown.extend(p.floats.iter().rev().take(6));
        shown.extend(p.bools.iter().rev().take(4));
        g.b.print(&shown);
        let (a, f, c) = (g.int(&p), g.float(&p), g.boolean(&p));
        let t = g.b.tuple_new(&[a, f, c]);
        g.b.return_(t);
    }
    m
}

/// [`common::outcome`] of `@main`.
fn outcome(m: &Module, args: &[Value]) -> String {
    common::outcome(m, m.function_by_name("main").unwrap(), args.to_vec())
}

const INPUTS: [(i64, i64, f64, bool); 6] = [
    (3, 4, 2.5, true),
    (0, -2, 0.0, false),
    (-7, 0, -1.5, true),
    (64, 3, f64::NAN, false),
    (1, 1, -0.0, true),
    (2, -1, -0.0, false),
];

#[test]
fn each_pass_preserves_results_and_validity() {
    let mut failures = Vec::new();
    let mut configs: Vec<(String, PipelineConfig)> = ALL_PASSES
        .iter()
        .map(|p| {
            (
                p.to_string(),
                PipelineConfig {
                    passes: Some(vec![p.to_string()]),
                    verify: true,
                    ..PipelineConfig::default()
                },
            )
        })
        .collect();
    for level in [OptLevel::O1, OptLevel::O2] {
        configs.push((
            level.to_string(),
            PipelineConfig {
                verify: true,
                ..PipelineConfig::for_level(level)
            },
        ));
    }
    let mut fired = vec![0u64; configs.len()];
    for seed in 0..400u64 {
        let m = generate(seed);
        if let Err(e) = verify_module(&m) {
            panic!("generator bug, seed {seed}: {e:?}");
        }
        let args: Vec<Vec<Value>> = INPUTS
            .iter()
            .map(|&(x, y, z, c)| {
                vec![
                    Value::Int(x),
                    Value::Int(y),
                    Value::Float(z),
                    Value::Bool(c),
                ]
            })
            .collect();
        let before: Vec<String> = args.iter().map(|a| outcome(&m, a)).collect();
        for (ci, (name, config)) in configs.iter().enumerate() {
            let mut opt = m.clone();
            let report = run_pipeline(&mut opt, config);
            if let Some((p, errs)) = report.verify_failure {
                failures.push(format!("seed {seed}, {name}: `{p}` broke the IR: {errs:?}"));
                continue;
            }
            fired[ci] += report.runs.iter().map(|r| r.stats.rewrites).sum::<u64>();
            for (a, b) in args.iter().zip(&before) {
                let after = outcome(&opt, a);
                if after != *b {
                    failures.push(format!(
                        "seed {seed}, {name}, args {a:?}:\n--- before\n{b}--- after\n{after}--- IR before\n{}--- IR after\n{}",
                        pyjit_ir::print_module(&m),
                        pyjit_ir::print_module(&opt)
                    ));
                }
            }
            if failures.len() > 3 {
                break;
            }
        }
        if failures.len() > 3 {
            break;
        }
    }
    // A property test whose passes never fire tests nothing.
    for ((name, _), n) in configs.iter().zip(&fired) {
        if *n == 0 {
            failures.push(format!("`{name}` never fired on the generated programs"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Random edits through the methods of a [`pyjit_ir::Uses`] index (replace_uses, set_operand,
/// remove_operand, remove_op, insert_op_before of a copied op with regions, raw detach/attach)
/// keep it equal to a fresh build, and its counts equal to `use_counts`. The edits need not keep
/// the IR valid: only the use lists are checked.
#[test]
fn uses_index_stays_exact_under_random_edits() {
    use pyjit_ir::Uses;
    use std::collections::HashMap;
    for seed in 0..150u64 {
        let mut m = generate(seed);
        let mut rng = Rng(seed ^ 0x5eed);
        for f in m.funcs.values_mut() {
            let mut uses = Uses::build(f);
            uses.check(f).unwrap();
            for step in 0..40 {
                let ops = f.all_ops();
                let values: Vec<V> = f.values.keys().collect();
                let op = ops[rng.below(ops.len())];
                let n = f.op(op).operands.len();
                match rng.below(7) {
                    0 => {
                        let (a, b) = (
                            values[rng.below(values.len())],
                            values[rng.below(values.len())],
                        );
                        uses.replace_uses(f, a, b);
                    }
                    1 if n > 0 => {
                        let v = values[rng.below(values.len())];
                        uses.set_operand(f, op, rng.below(n), v);
                    }
                    2 if n > 0 => {
                        uses.remove_operand(f, op, rng.below(n));
                    }
                    3 if f.op(op).parent != Some(f.body) || ops.len() > 4 => {
                        uses.remove_op(f, op);
                    }
                    4 => {
                        let copy = f.copy_op_within(op, &mut HashMap::new());
                        uses.insert_op_before(f, op, copy);
                    }
                    5 => {
                        uses.detach(f, op);
                        let v = values[rng.below(values.len())];
                        f.op_mut(op).operands.push(v);
                        uses.attach(f, op);
                    }
                    _ => {
                        let a = values[rng.below(values.len())];
                        let b = f.params().first().copied().unwrap_or(a);
                        uses.replace_uses(f, a, b);
                    }
                }
                if let Err(e) = uses.check(f) {
                    panic!("seed {seed}, {}, step {step}: {e}", f.name);
                }
            }
            let counts = f.use_counts();
            for v in f.values.keys() {
                assert_eq!(uses.count(v), counts[v] as usize, "seed {seed}");
            }
        }
    }
}
