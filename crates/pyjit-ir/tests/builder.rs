//! Builder, utilities (walk, copy, compaction, type refinement) and printer snapshots of IR built
//! the way the frontend and the tracer build it.

use pyjit_ir::*;
use pyjit_syntax::{SourceFile, Span};
use std::collections::HashMap;
use std::sync::Arc;

const COND_PY: &str = "def conditional_op(x, threshold: float):
    if x.sum() > threshold:
        result = x * 2
    else:
        result = x + 1
    return result
";

fn span_of(src: &str, needle: &str) -> Span {
    let start = src.find(needle).expect("needle in source");
    Span::new(start, start + needle.len())
}

fn op(name: &str) -> OpId {
    schema::lookup(name).unwrap_or_else(|| panic!("no op {name}"))
}

/// `conditional_op` of the seed, built as the script frontend would.
fn conditional_op() -> Module {
    let src = Arc::new(SourceFile::new("cond.py", COND_PY));
    let mut m = Module::with_source(src.clone());
    let f = m.declare_function(
        "conditional_op",
        &[("x", Type::tensor()), ("threshold", Type::Float)],
        Type::tensor(),
        span_of(COND_PY, "def conditional_op"),
    );
    let mut b = FunctionBuilder::new(m.func_mut(f));
    let (x, threshold) = (b.param(0), b.param(1));
    b.set_span(span_of(COND_PY, "x.sum()"));
    let none = b.const_none();
    let s = b.tensor_op1(op("sum"), &[x, none]).unwrap();
    b.set_span(span_of(COND_PY, "x.sum() > threshold"));
    let gt = b.tensor_op1(op("gt.Scalar"), &[s, threshold]).unwrap();
    let c = b.tensor_op1(op("Bool.Tensor"), &[gt]).unwrap();
    let then_r = b.new_region(&[]);
    b.build_in(then_r, |b| {
        b.set_span(span_of(COND_PY, "2"));
        let two = b.const_int(2);
        b.set_span(span_of(COND_PY, "x * 2"));
        let r = b.tensor_op1(op("mul.Scalar"), &[x, two]).unwrap();
        b.set_span(span_of(COND_PY, "result = x * 2"));
        b.yield_(&[r]);
    });
    let else_r = b.new_region(&[]);
    b.build_in(else_r, |b| {
        b.set_span(span_of(COND_PY, "1\n"));
        let one = b.const_int(1);
        b.set_span(span_of(COND_PY, "x + 1"));
        let r = b.tensor_op1(op("add.Scalar"), &[x, one, one]).unwrap();
        b.set_span(span_of(COND_PY, "result = x + 1"));
        b.yield_(&[r]);
    });
    b.set_span(span_of(COND_PY, "if x.sum()"));
    let if_op = b.if_(c, then_r, else_r, &[Type::tensor()]);
    let r = b.result(if_op);
    b.set_span(span_of(COND_PY, "return result"));
    b.return_(r);
    verify_module(&m).expect("conditional_op verifies");
    m
}

#[test]
fn conditional_op_prints_both_branches() {
    let m = conditional_op();
    insta::assert_snapshot!(print_module(&m), @r"
    func @conditional_op(%x: Tensor, %threshold: float) -> Tensor {  # cond.py:1:1
      %0: None = const none                                 # cond.py:2:8
      %1: Tensor = tensor.sum(%x, %0)                       # cond.py:2:8
      %2: Tensor = tensor.gt.Scalar(%1, %threshold)         # cond.py:2:8
      %3: bool = tensor.Bool.Tensor(%2)                     # cond.py:2:8
      %4: Tensor = if %3 {                                  # cond.py:2:5
        %5: int = const 2                                   # cond.py:3:22
        %6: Tensor = tensor.mul.Scalar(%x, %5)              # cond.py:3:18
        yield %6                                            # cond.py:3:9
      } else {
        %7: int = const 1                                   # cond.py:5:22
        %8: Tensor = tensor.add.Scalar(%x, %7, %7)          # cond.py:5:18
        yield %8                                            # cond.py:5:9
      }
      return %4                                             # cond.py:6:5
    }
    ");
}

#[test]
fn printed_ir_round_trips_with_real_source() {
    let m = conditional_op();
    let text = print_module(&m);
    // Through the synthetic source: same text.
    let p = parse_module(&text).unwrap();
    assert_eq!(print_module(&p), text);
    verify_module(&p).unwrap();
    // Through the real source: same text, and spans point at the real bytes again.
    let src = m.source.clone().unwrap();
    let q = parse_module_with_source(&text, src.clone()).unwrap();
    assert_eq!(print_module(&q), text);
    let f = q.function_by_name("conditional_op").unwrap();
    let ret = q.func(f).terminator(q.func(f).body).unwrap();
    assert_eq!(
        &COND_PY[q.func(f).op(ret).span.start as usize..][..6],
        "return"
    );
    // The source's name must match the comments'.
    let other = Arc::new(SourceFile::new("other.py", COND_PY));
    let err = parse_module_with_source(&text, other).unwrap_err();
    assert_eq!(
        err.to_string(),
        "1:1: locations name `cond.py` but the source file is `other.py`"
    );
}

#[test]
fn without_spans_printing() {
    let m = conditional_op();
    let text = print_module_without_spans(&m);
    assert!(!text.contains('#'));
    assert!(text.contains("  %4: Tensor = if %3 {\n"));
    let p = parse_module(&text).unwrap();
    assert!(p.source.is_none());
    assert_eq!(print_module(&p), text);
}

/// `while` with a data-dependent trip count, a loop-carried tensor and a `break`-style flag:
/// `while x.sum() < limit: x = x * 2` (the frontend's shape for `while`).
fn doubling_loop() -> Module {
    let mut m = Module::new();
    let f = m.declare_function(
        "double_until",
        &[("x", Type::tensor()), ("limit", Type::Float)],
        Type::tensor(),
        Span::DUMMY,
    );
    let mut b = FunctionBuilder::new(m.func_mut(f));
    let (x, limit) = (b.param(0), b.param(1));
    let cond_of = |b: &mut FunctionBuilder, t: Value| {
        let none = b.const_none();
        let s = b.tensor_op1(op("sum"), &[t, none]).unwrap();
        let lt = b.tensor_op1(op("lt.Scalar"), &[s, limit]).unwrap();
        b.tensor_op1(op("Bool.Tensor"), &[lt]).unwrap()
    };
    let c0 = cond_of(&mut b, x);
    let max = b.const_int(i64::MAX);
    let body = b.new_region(&[Type::Int, Type::tensor()]);
    let cur = b.func.region_params(body)[1];
    b.build_in(body, |b| {
        let two = b.const_int(2);
        let next = b.tensor_op1(op("mul.Scalar"), &[cur, two]).unwrap();
        let c = cond_of(b, next);
        b.yield_(&[c, next]);
    });
    let l = b.loop_(max, c0, &[x], body);
    let r = b.result(l);
    b.return_(r);
    m
}

#[test]
fn loop_builder() {
    let m = doubling_loop();
    verify_module(&m).unwrap();
    insta::assert_snapshot!(print_module(&m), @r"
    func @double_until(%x: Tensor, %limit: float) -> Tensor {
      %0: None = const none
      %1: Tensor = tensor.sum(%x, %0)
      %2: Tensor = tensor.lt.Scalar(%1, %limit)
      %3: bool = tensor.Bool.Tensor(%2)
      %4: int = const 9223372036854775807
      %5: Tensor = loop(%4, %3, %x) body(%6: int, %7: Tensor) {
        %8: int = const 2
        %9: Tensor = tensor.mul.Scalar(%7, %8)
        %10: None = const none
        %11: Tensor = tensor.sum(%9, %10)
        %12: Tensor = tensor.lt.Scalar(%11, %limit)
        %13: bool = tensor.Bool.Tensor(%12)
        yield %13, %9
      }
      return %5
    }
    ");
    let text = print_module(&m);
    assert_eq!(print_module(&parse_module(&text).unwrap()), text);
}

#[test]
fn insertion_points() {
    let mut m = Module::new();
    let f = m.declare_function("ins", &[("a", Type::Int)], Type::Int, Span::DUMMY);
    let mut b = FunctionBuilder::new(m.func_mut(f));
    let a = b.param(0);
    let ret = b.return_(a);
    assert!(b.is_terminated());
    // Insert before the return, twice: the insertion point advances.
    b.position_before(ret);
    let one = b.const_int(1);
    let sum = b.int_bin(IntBinOp::Add, a, one);
    assert!(!b.is_terminated());
    b.func.op_mut(ret).operands[0] = sum;
    verify_module(&m).unwrap();
    assert_eq!(
        print_module(&m),
        "func @ins(%a: int) -> int {\n  %0: int = const 1\n  %1: int = int.add(%a, %0)\n  return %1\n}\n"
    );
}

#[test]
fn late_results_and_region_params() {
    // The frontend learns only after building both branches that `y` must be yielded too.
    let mut m = Module::new();
    let f = m.declare_function("late", &[("c", Type::Bool)], Type::Int, Span::DUMMY);
    let mut b = FunctionBuilder::new(m.func_mut(f));
    let c = b.param(0);
    let then_r = b.new_region(&[]);
    let t = b.build_in(then_r, |b| b.const_int(1));
    let else_r = b.new_region(&[]);
    let e = b.build_in(else_r, |b| b.const_int(2));
    let if_op = b.if_(c, then_r, else_r, &[]);
    b.build_in(then_r, |b| b.yield_(&[t]));
    b.build_in(else_r, |b| b.yield_(&[e]));
    let y = b.func.add_result(if_op, Type::Int);
    b.return_(y);
    verify_module(&m).unwrap();
    // A loop whose carried set grows after its body was started.
    let g = m.declare_function("grow", &[("n", Type::Int)], Type::Int, Span::DUMMY);
    let mut b = FunctionBuilder::new(m.func_mut(g));
    let n = b.param(0);
    let t = b.const_bool(true);
    let body = b.new_region(&[Type::Int]);
    let acc = b.func.add_region_param(body, Type::Int);
    let i = b.func.region_params(body)[0];
    b.build_in(body, |b| {
        let s = b.int_bin(IntBinOp::Add, acc, i);
        b.yield_(&[t, s]);
    });
    let l = b.loop_(n, t, &[n], body);
    let r = b.result(l);
    b.return_(r);
    verify_module(&m).unwrap();
}

#[test]
fn builder_never_panics_on_ill_typed_requests() {
    let mut m = Module::new();
    let f = m.declare_function("bad", &[("x", Type::Int)], Type::Int, Span::new(3, 4));
    let mut b = FunctionBuilder::new(m.func_mut(f));
    let x = b.param(0);
    let g = b.tuple_get(x, 3);
    let h = b.list_get(x, x);
    let u = b.opt_unwrap(x);
    assert_eq!(b.value_type(g), &Type::None);
    assert_eq!(b.value_type(h), &Type::None);
    assert_eq!(b.value_type(u), &Type::None);
    b.return_(x);
    let errs = verify_module(&m).unwrap_err();
    assert_eq!(errs.len(), 3);
    assert!(errs.iter().all(|e| e.span == Span::new(3, 4)));
}

#[test]
fn every_builder_helper_produces_valid_ir() {
    let mut m = Module::new();
    let callee = m.declare_function("id", &[("v", Type::Float)], Type::Float, Span::DUMMY);
    {
        let mut b = FunctionBuilder::new(m.func_mut(callee));
        let v = b.param(0);
        b.return_(v);
    }
    let f = m.declare_function(
        "all",
        &[("i", Type::Int), ("x", Type::Float), ("t", Type::tensor())],
        Type::Tuple(vec![Type::Int, Type::Str]),
        Span::DUMMY,
    );
    let mut b = FunctionBuilder::new(m.func_mut(f));
    let (i, x, t) = (b.param(0), b.param(1), b.param(2));
    let bt = b.const_bool(true);
    let y = b.const_float(2.5);
    let _d = b.const_dtype(DType::Int32);
    let s = b.const_str("msg");
    let n = b.int_un(IntUnOp::Neg, i);
    let fx = b.float_un(FloatUnOp::Abs, x);
    let fb = b.float_bin(FloatBinOp::Pow, fx, y);
    let c1 = b.float_cmp(CmpOp::Lt, fb, y);
    let c2 = b.bool_cmp(CmpOp::Eq, c1, bt);
    let c3 = b.bool_bin(BoolBinOp::Xor, c2, c1);
    let c4 = b.not(c3);
    let fi = b.cast(CastOp::BoolToInt, c4);
    let _m = b.math(MathFn::Atan2, &[x, y]);
    let sel = b.select(c4, n, fi);
    let tup = b.tuple_new(&[sel, x]);
    let e0 = b.tuple_get(tup, 0);
    let l = b.list_new(Type::Int, &[e0]);
    b.list_append(l, i);
    b.list_set(l, i, n);
    let li = b.list_get(l, i);
    let ln = b.list_len(l);
    let on = b.opt_none(Type::Int);
    let ow = b.opt_wrap(li);
    let isn = b.opt_is_none(on);
    let un = b.opt_unwrap(ow);
    let st = b.str_of(un, ".2f");
    let cat = b.str_concat(&[s, st]);
    b.check("AssertionError", isn, cat);
    b.guard(ln, Const::Int(2), "len was 2");
    b.print(&[ln, cat, t]);
    let _u = b.undef(Type::tensor());
    let called = b.call(callee, &[x], Type::Float);
    let _ = called;
    let ix = b.index(IndexKind::Int, &[i]);
    let sl = b.index(IndexKind::Slice, &[on, on, i]);
    let nn = b.index(IndexKind::None, &[]);
    let idx = b.list_new(Type::Index, &[ix, sl, nn]);
    let _sub = b.tensor_op1(op("index"), &[t, idx]).unwrap();
    let out = b.tuple_new(&[ln, cat]);
    b.return_(out);
    verify_module(&m).unwrap();
    let text = print_module(&m);
    assert_eq!(print_module(&parse_module(&text).unwrap()), text);
}

#[test]
fn walk_visits_in_print_order() {
    let m = conditional_op();
    let f = m.func(m.function_by_name("conditional_op").unwrap());
    let names: Vec<String> = f.all_ops().iter().map(|&o| f.op(o).kind.name()).collect();
    assert_eq!(
        names,
        [
            "const",
            "tensor.sum",
            "tensor.gt.Scalar",
            "tensor.Bool.Tensor",
            "if",
            "const",
            "tensor.mul.Scalar",
            "yield",
            "const",
            "tensor.add.Scalar",
            "yield",
            "return"
        ]
    );
    assert_eq!(f.all_regions().len(), 3);
    let counts = f.use_counts();
    assert_eq!(counts[f.params()[0]], 3);
}

#[test]
fn replace_uses_and_remove_op() {
    let mut m = doubling_loop();
    let id = m.function_by_name("double_until").unwrap();
    let f = m.func_mut(id);
    // Replace the loop's result by the parameter, then drop the loop: `return %x`.
    let ops = f.region_ops(f.body).to_vec();
    let lp = ops[ops.len() - 2];
    let res = f.result(lp);
    let x = f.params()[0];
    f.replace_uses(res, x);
    f.remove_op(lp);
    verify_module(&m).unwrap();
    let f = m.func(id).compacted();
    assert_eq!(f.ops.len(), 6);
    assert_eq!(f.regions.len(), 1);
}

#[test]
fn inline_by_copying_a_region() {
    // The inliner's recipe: map the callee's parameters to the call's arguments and copy the
    // callee body before the call, then use the returned value.
    let mut m = Module::new();
    let sq = m.declare_function("sq", &[("v", Type::Int)], Type::Int, Span::new(1, 2));
    {
        let mut b = FunctionBuilder::new(m.func_mut(sq));
        let v = b.param(0);
        let r = b.int_bin(IntBinOp::Mul, v, v);
        b.return_(r);
    }
    let main = m.declare_function("main", &[("a", Type::Int)], Type::Int, Span::DUMMY);
    let call = {
        let mut b = FunctionBuilder::new(m.func_mut(main));
        let a = b.param(0);
        let r = b.call(sq, &[a], Type::Int);
        b.return_(r);
        b.func.defining_op(r).unwrap()
    };
    let callee = m.func(sq).clone();
    let f = m.func_mut(main);
    let a = f.op(call).operands[0];
    let mut map: HashMap<Value, Value> = HashMap::new();
    map.insert(callee.params()[0], a);
    for &o in callee.region_ops(callee.body) {
        if callee.op(o).kind == OpKind::Return {
            let ret = map[&callee.op(o).operands[0]];
            let res = f.result(call);
            f.replace_uses(res, ret);
        } else {
            let new = f.copy_op_from(&callee, o, &mut map);
            f.insert_op_before(call, new);
        }
    }
    f.remove_op(call);
    verify_module(&m).unwrap();
    assert_eq!(
        print_function(&m, main),
        "func @main(%a: int) -> int {\n  %0: int = int.mul(%a, %a)\n  return %0\n}\n"
    );
    assert_eq!(
        m.func(main).op(m.func(main).all_ops()[0]).span,
        Span::new(1, 2)
    );
}

#[test]
fn clone_and_refine_for_specialization() {
    let mut m = conditional_op();
    let id = m.function_by_name("conditional_op").unwrap();
    let spec = m.clone_function(id, "conditional_op__f32_2");
    let f = m.func_mut(spec);
    let x = f.params()[0];
    let f32_2 = Type::Tensor(TensorType::ranked(Some(DType::Float32), 2));
    f.refine_type(x, f32_2.clone()).unwrap();
    f.refine_type(
        x,
        Type::Tensor(TensorType::shaped(None, vec![Some(4), None])),
    )
    .unwrap();
    assert_eq!(f.value_type(x).to_string(), "Tensor[float32, [4, ?]]");
    let err = f
        .refine_type(x, Type::Tensor(TensorType::with_dtype(DType::Int64)))
        .unwrap_err();
    assert_eq!(
        err,
        "cannot refine Tensor[float32, [4, ?]] to Tensor[int64]"
    );
    assert!(f.refine_type(f.params()[1], Type::Int).is_err());
    verify_module(&m).unwrap();
    let text = print_function(&m, spec);
    assert!(text.starts_with(
        "func @conditional_op__f32_2(%x: Tensor[float32, [4, ?]], %threshold: float) -> Tensor {"
    ));
    // The original is untouched.
    assert!(print_function(&m, id).starts_with("func @conditional_op(%x: Tensor, "));
    // A contradicting refinement is a verifier error (a yield of float64 into a float32 result).
    let f = m.func_mut(spec);
    let if_op = f
        .all_ops()
        .into_iter()
        .find(|&o| f.op(o).kind == OpKind::If)
        .unwrap();
    let r = f.result(if_op);
    f.set_value_type(r, Type::Tensor(TensorType::with_dtype(DType::Float64)));
    let then_yield = f.terminator(f.op(if_op).regions[0]).unwrap();
    let y = f.op(then_yield).operands[0];
    f.set_value_type(y, Type::Tensor(TensorType::with_dtype(DType::Float32)));
    let msgs: Vec<String> = verify_module(&m)
        .unwrap_err()
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(
        msgs,
        [
            "in @conditional_op__f32_2: the then region of `if` yields Tensor[float32] as value 0, expected Tensor[float64]"
        ]
    );
}

#[test]
fn effects() {
    let add = OpKind::IntBin(IntBinOp::Add);
    assert!(add.is_pure());
    let div = OpKind::IntBin(IntBinOp::FloorDiv);
    assert!(!div.has_side_effects() && div.may_raise() && !div.is_pure());
    assert!(OpKind::ListAppend.has_side_effects());
    assert!(OpKind::ListNew.returns_fresh_object() && !OpKind::ListNew.has_side_effects());
    let relu = OpKind::Tensor(op("relu"));
    assert!(!relu.has_side_effects() && relu.returns_fresh_object());
    let add_ = OpKind::Tensor(op("add_.Tensor"));
    assert!(add_.has_side_effects());
    let size = OpKind::Tensor(op("size.int"));
    assert!(!size.returns_fresh_object());
    assert!(OpKind::Print.has_side_effects());
    assert!(OpKind::Const(Const::Float(f64::NAN)) == OpKind::Const(Const::Float(f64::NAN)));
    assert!(OpKind::Const(Const::Float(0.0)) != OpKind::Const(Const::Float(-0.0)));
}

#[test]
fn runtime_type_info_bridge() {
    use pyjit_ir::schema::{TensorInfo, TypeInfo, tensor_info, type_from_info};
    let ti = TensorInfo {
        dtype: DType::Int32,
        rank: 3,
    };
    let t = type_from_info(&TypeInfo::Tensor(ti));
    assert_eq!(t.to_string(), "Tensor[int32, 3]");
    assert_eq!(tensor_info(t.as_tensor().unwrap()), Some(ti));
    assert_eq!(tensor_info(&TensorType::with_dtype(DType::Bool)), None);
    assert_eq!(
        type_from_info(&TypeInfo::TensorList(ti, Some(2))).to_string(),
        "List[Tensor[int32, 3]]"
    );
    assert_eq!(type_from_info(&TypeInfo::IntList), Type::list(Type::Int));
}

#[test]
fn batch_replacement() {
    let (a, b_, c) = {
        let mut m = Module::new();
        let f = m.declare_function(
            "r",
            &[("a", Type::Int), ("b", Type::Int)],
            Type::Int,
            Span::DUMMY,
        );
        let mut b = FunctionBuilder::new(m.func_mut(f));
        let (a, bb) = (b.param(0), b.param(1));
        let s = b.int_bin(IntBinOp::Sub, a, bb);
        b.return_(s);
        let mut map = HashMap::new();
        map.insert(a, bb);
        map.insert(bb, a);
        m.func_mut(f).replace_uses_with(&map);
        (print_module(&m), a, bb)
    };
    assert_eq!(
        a,
        "func @r(%a: int, %b: int) -> int {\n  %0: int = int.sub(%b, %a)\n  return %0\n}\n"
    );
    assert_ne!(b_, c);
}
