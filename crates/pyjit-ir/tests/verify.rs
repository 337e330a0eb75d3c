//! Verifier tests: broken IR, one case (or more) per invariant of verify.rs, each asserting the
//! exact messages. Most cases are IR text; the structural ones, which the parser cannot produce,
//! are built and then broken by hand.

use pyjit_ir::*;
use pyjit_syntax::Span;

/// Verifier messages for IR text (which must parse).
fn errors(text: &str) -> Vec<String> {
    let m = parse_module(text).unwrap_or_else(|e| panic!("test IR does not parse: {e}\n{text}"));
    messages(&m)
}

fn messages(m: &Module) -> Vec<String> {
    match verify_module(m) {
        Ok(()) => vec![],
        Err(es) => es.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[track_caller]
fn check(text: &str, expected: &[&str]) {
    assert_eq!(errors(text), expected, "for IR:\n{text}");
}

/// A valid one-function module built with the builder: `f(x: int) -> int { return x + 1 }`.
fn small() -> (Module, FuncId) {
    let mut m = Module::new();
    let f = m.declare_function("f", &[("x", Type::Int)], Type::Int, Span::new(0, 1));
    let mut b = FunctionBuilder::new(m.func_mut(f));
    let x = b.param(0);
    b.set_span(Span::new(5, 9));
    let one = b.const_int(1);
    let y = b.int_bin(IntBinOp::Add, x, one);
    b.return_(y);
    assert_eq!(messages(&m), Vec::<String>::new());
    (m, f)
}

/// [`small`] after `edit` changed its function, given the ops of the body.
fn small_edited(edit: impl FnOnce(&mut Function, &[Op])) -> Module {
    let (mut m, f) = small();
    let func = m.func_mut(f);
    let ops = func.region_ops(func.body).to_vec();
    edit(func, &ops);
    m
}

#[test]
fn valid_ir_has_no_errors() {
    check(
        "func @f(%x: int) -> int {\n  %0: int = const 1\n  %1: int = int.add(%x, %0)\n  return %1\n}\n",
        &[],
    );
}

// ---- 1. structure

#[test]
fn op_listed_in_two_regions() {
    let m = small_edited(|func, ops| {
        let body = func.body;
        func.regions[body].ops.insert(1, ops[0]);
    });
    assert_eq!(messages(&m), ["in @f: op0 appears in more than one region"]);
}

#[test]
fn op_parent_mismatch() {
    let m = small_edited(|func, ops| {
        let other = func.new_region(&[]);
        func.ops[ops[0]].parent = Some(other);
    });
    assert_eq!(
        messages(&m),
        ["in @f: op0's parent is not the region that lists it"]
    );
}

/// `g(c: bool) -> int` returning the result of the op `branch` builds from `c` and a region
/// that yields `1`.
fn branch_on_c(branch: impl FnOnce(&mut FunctionBuilder, Value, Region) -> Op) -> Module {
    g_of_c(|b, c| {
        let r1 = b.new_region(&[]);
        b.build_in(r1, |b| {
            let one = b.const_int(1);
            b.yield_(&[one])
        });
        let op = branch(b, c, r1);
        let v = b.result(op);
        b.return_(v);
    })
}

/// `g(c: bool) -> int` with the body `build` writes given `c`.
fn g_of_c(build: impl FnOnce(&mut FunctionBuilder, Value)) -> Module {
    let mut m = Module::new();
    let f = m.declare_function("g", &[("c", Type::Bool)], Type::Int, Span::DUMMY);
    let mut b = FunctionBuilder::new(m.func_mut(f));
    let c = b.param(0);
    build(&mut b, c);
    m
}

#[test]
fn region_owned_twice() {
    let m = branch_on_c(|b, c, r1| b.if_(c, r1, r1, &[Type::Int]));
    assert_eq!(
        messages(&m),
        ["in @g: region1 is owned by more than one op",]
    );
}

#[test]
fn wrong_region_count() {
    let m = branch_on_c(|b, c, r1| b.insert(OpKind::If, &[c], &[Type::Int], &[r1]));
    assert_eq!(messages(&m), ["in @g: `if` owns 1 regions, expected 2"]);
}

#[test]
fn region_parent_mismatch_and_owned_body() {
    let m = small_edited(|func, ops| {
        let body = func.body;
        func.regions[body].parent = Some(ops[0]);
    });
    assert_eq!(messages(&m), ["in @f: the body region is owned by an op"]);
}

// ---- 2. single definition

#[test]
fn value_defined_twice() {
    let m = small_edited(|func, ops| {
        let one = func.result(ops[0]);
        func.ops[ops[1]].results = vec![one];
    });
    let msgs = messages(&m);
    assert!(
        msgs.contains(&"in @f: value %1 is defined more than once".to_string()),
        "{msgs:?}"
    );
}

#[test]
fn value_def_record_mismatch() {
    let m = small_edited(|func, ops| {
        let one = func.result(ops[0]);
        func.values[one].def = ValueDef::Result(ops[1], 0);
    });
    assert_eq!(
        messages(&m),
        [
            "in @f: value %0 records its definition as Result(op1, 0), but is defined by Result(op0, 0)"
        ]
    );
}

// ---- 3. scope

#[test]
fn use_of_value_from_sibling_branch() {
    check(
        "func @f(%c: bool) -> int {
  %0: int = if %c {
    %1: int = const 1
    yield %1
  } else {
    yield %1
  }
  return %0
}",
        &["in @f: `yield` operand 0 (%1) is used where its definition is not in scope"],
    );
}

#[test]
fn use_of_inner_value_after_region() {
    check(
        "func @f(%n: int) -> int {
  %t: bool = const true
  loop(%n, %t) body(%i: int) {
    %k: int = int.add(%i, %i)
    yield %t
  }
  return %k
}",
        &["in @f: `return` operand 0 (%2) is used where its definition is not in scope"],
    );
}

#[test]
fn use_of_later_value_and_own_result() {
    // Built by hand: the parser cannot express a use before its definition.
    let m = g_of_c(|b, c| {
        let then_r = b.new_region(&[]);
        let else_r = b.new_region(&[]);
        let if_op = b.if_(c, then_r, else_r, &[Type::Int]);
        let r = b.result(if_op);
        b.build_in(then_r, |b| b.yield_(&[r]));
        let later = b.const_int(5);
        b.build_in(else_r, |b| b.yield_(&[later]));
        b.return_(r);
    });
    assert_eq!(
        messages(&m),
        [
            "in @g: `yield` operand 0 (%0) is used where its definition is not in scope",
            "in @g: `yield` operand 0 (%1) is used where its definition is not in scope",
        ]
    );
}

// ---- 4. terminators

#[test]
fn missing_return() {
    check(
        "func @f(%x: int) -> int {\n  %0: int = int.neg(%x)\n}",
        &["in @f: region does not end with a terminator (last op is `int.neg`)"],
    );
}

#[test]
fn terminator_not_last() {
    check(
        "func @f(%x: int) -> int {\n  return %x\n  %0: int = int.neg(%x)\n}",
        &[
            "in @f: `return` must be the last op of its region",
            "in @f: region does not end with a terminator (last op is `int.neg`)",
        ],
    );
}

#[test]
fn empty_region() {
    check(
        "func @f(%c: bool) -> int {
  %0: int = if %c {
  } else {
    %1: int = const 0
    yield %1
  }
  return %0
}",
        &["in @f: region is empty (it needs a terminator)"],
    );
}

#[test]
fn return_inside_if() {
    check(
        "func @f(%c: bool, %x: int) -> int {
  if %c {
    return %x
  } else {
    yield
  }
  return %x
}",
        &["in @f: `return` outside the function body (early returns must be rewritten to flags)"],
    );
}

#[test]
fn yield_in_body() {
    check(
        "func @f(%x: int) -> int {\n  yield %x\n}",
        &["in @f: `yield` in a function body (use `return`)"],
    );
}

// ---- 5. well-formed types and functions

#[test]
fn malformed_tensor_type() {
    let mut m = Module::new();
    let bad = Type::Tensor(TensorType {
        dtype: None,
        rank: Some(3),
        dims: Some(vec![Some(1), Some(2)]),
    });
    let f = m.declare_function("g", &[("x", Type::tensor())], Type::tensor(), Span::DUMMY);
    let mut b = FunctionBuilder::new(m.func_mut(f));
    let x = b.param(0);
    b.return_(x);
    m.func_mut(f).set_value_type(x, bad);
    assert_eq!(messages(&m), ["in @g: malformed type Tensor[?, [1, 2]]"]);
}

#[test]
fn param_names_mismatch() {
    let (mut m, f) = small();
    m.func_mut(f).param_names.push("extra".into());
    assert_eq!(
        messages(&m),
        ["in @f: function has 2 parameter names for 1 parameters"]
    );
}

#[test]
fn duplicate_function_names() {
    let (mut m, f) = small();
    let g = m.clone_function(f, "f");
    assert_ne!(f, g);
    assert_eq!(messages(&m), ["in @f: function name `f` is defined twice"]);
}

// ---- 6. op signatures

#[test]
fn scalar_operand_types() {
    check(
        "func @f(%x: int, %y: float) -> int {
  %0: int = int.add(%x, %y)
  %1: float = float.mul(%y)
  %2: bool = float.lt(%y, %y)
  %3: float = bool.not(%2)
  %4: float = math.floor(%y)
  %5: int = float.to_int(%x)
  return %0
}",
        &[
            "in @f: `int.add` operand 1 has type float, expected int",
            "in @f: `float.mul` takes 2 operands, got 1",
            "in @f: `bool.not` result 0 has type float, expected bool",
            "in @f: `math.floor` result 0 has type float, expected int",
            "in @f: `float.to_int` operand 0 has type int, expected float",
        ],
    );
}

#[test]
fn const_type_mismatch() {
    check(
        "func @f() -> float {\n  %0: float = const 1\n  return %0\n}",
        &["in @f: `const` result 0 has type float, expected int"],
    );
}

#[test]
fn tuples_lists_optionals() {
    check(
        "func @f(%t: Tuple[int, float], %l: List[int], %o: Optional[int], %x: int) -> int {
  %0: int = tuple.get[2](%t)
  %1: float = tuple.get[0](%t)
  %2: int = tuple.get[0](%x)
  %3: int = list.new(%x)
  %4: List[float] = list.new(%x)
  %5: int = list.get(%x, %x)
  list.set(%l, %x, %t)
  list.append(%l)
  %6: int = opt.unwrap(%x)
  %7: int = opt.none()
  %8: Optional[float] = opt.wrap(%x)
  %9: float = select(%x, %x, %x)
  %10: str = str.concat(%x)
  return %x
}",
        &[
            "in @f: `tuple.get` index 2 is out of range for a 2-tuple",
            "in @f: `tuple.get` result 0 has type float, expected int",
            "in @f: `tuple.get` operand 0 has type int, expected a tuple",
            "in @f: `list.new` result has type int, expected a list",
            "in @f: `list.new` operand 0 has type int, expected float",
            "in @f: `list.get` operand 0 has type int, expected a list",
            "in @f: `list.set` operand 2 has type Tuple[int, float], expected int",
            "in @f: `list.append` takes 2 operands, got 1",
            "in @f: `opt.unwrap` operand 0 has type int, expected an Optional",
            "in @f: `opt.none` result has type int, expected an Optional",
            "in @f: `opt.wrap` result 0 has type Optional[float], expected Optional[int]",
            "in @f: `select` operand 0 has type int, expected bool",
            "in @f: `select` result 0 has type float, expected int",
            "in @f: `str.concat` operand 0 has type int, expected str",
        ],
    );
}

#[test]
fn index_and_effects_ops() {
    check(
        "func @f(%x: int, %s: str) -> int {
  %0: Index = index.slice(%x, %x, %x)
  %1: Index = index.tensor(%x)
  %2: int = index.none()
  print(%x, %s)
  raise[ValueError](%x)
}",
        &[
            "in @f: `index.slice` operand 0 has type int, expected Optional[int]",
            "in @f: `index.slice` operand 1 has type int, expected Optional[int]",
            "in @f: `index.tensor` operand 0 has type int, expected Tensor",
            "in @f: `index.none` result 0 has type int, expected Index",
            "in @f: `raise` operand 0 has type int, expected str",
        ],
    );
}

#[test]
fn check_op_types() {
    check(
        "func @f(%x: int, %s: str) -> int {\n  check[AssertionError](%s, %x)\n  return %x\n}",
        &[
            "in @f: `check` operand 0 has type str, expected bool",
            "in @f: `check` operand 1 has type int, expected str",
        ],
    );
}

// ---- 7. if

#[test]
fn if_condition_and_yields() {
    check(
        "func @f(%x: int, %y: float) -> int {
  %0: int, %1: float = if %x {
    yield %x, %y
  } else {
    yield %x
  }
  %2: int = if %y {
    yield %y
  } else {
    yield %x
  }
  return %0
}",
        &[
            "in @f: `if` operand 0 has type int, expected bool",
            "in @f: the else region of `if` yields 1 values, expected 2",
            "in @f: `if` operand 0 has type float, expected bool",
            "in @f: the then region of `if` yields float as value 0, expected int",
        ],
    );
}

#[test]
fn if_region_with_params() {
    let m = g_of_c(|b, c| {
        let then_r = b.new_region(&[Type::Int]);
        b.build_in(then_r, |b| {
            let p = b.func.region_params(then_r)[0];
            b.yield_(&[p])
        });
        let else_r = b.new_region(&[]);
        b.build_in(else_r, |b| {
            let z = b.const_int(0);
            b.yield_(&[z])
        });
        let if_op = b.if_(c, then_r, else_r, &[Type::Int]);
        let r = b.result(if_op);
        b.return_(r);
    });
    assert_eq!(
        messages(&m),
        ["in @g: the then region of `if` has parameters"]
    );
}

// ---- 8. loop

#[test]
fn loop_operands_params_results() {
    check(
        "func @f(%n: int, %x: float, %b: bool) -> int {
  %0: float = loop(%x, %n, %x) body(%i: int, %a: float) {
    yield %b, %a
  }
  %1: int = loop(%n, %b, %x) body(%i2: float, %a2: int) {
    yield %b, %a2
  }
  %2: int, %3: int = loop(%n, %b, %n) body(%i3: int, %a3: int) {
    yield %b, %a3
  }
  %4: int = loop(%n, %b, %n) body(%i4: int) {
    yield %b
  }
  %5: int = loop(%n, %b, %n) body(%i5: int, %a5: int) {
    yield %a5, %x
  }
  %6: int = loop(%n) body(%i6: int) {
    yield %b
  }
  return %n
}",
        &[
            "in @f: `loop` operand 0 has type float, expected int",
            "in @f: `loop` operand 1 has type int, expected bool",
            "in @f: `loop` body parameter 0 (the iteration index) has type float, expected int",
            "in @f: `loop` operand 2 has type float, expected int",
            "in @f: `loop` has 2 results, expected 1 (one per carried value)",
            "in @f: `loop` body has 1 parameters, expected 2 (the iteration index and 1 carried values)",
            "in @f: the `loop` body yields int as value 0, expected bool",
            "in @f: the `loop` body yields float as value 1, expected int",
            "in @f: `loop` takes (max_trip, cond, carried...), got 1 operands",
        ],
    );
}

// ---- 9. return

#[test]
fn return_type_and_arity() {
    check(
        "func @f(%x: int, %y: float) -> int {\n  return %y\n}\n\nfunc @g(%x: int) -> int {\n  return\n}",
        &[
            "in @f: `return` operand 0 has type float, expected int",
            "in @g: `return` takes 1 operands, got 0",
        ],
    );
}

// ---- 10. call

#[test]
fn call_arity_and_types() {
    check(
        "func @f(%x: int, %y: float) -> int {
  %0: int = call @f(%x)
  %1: int = call @f(%y, %y)
  %2: float = call @f(%x, %y)
  return %0
}",
        &[
            "in @f: `call @f` passes 1 arguments, the function takes 2",
            "in @f: `call` operand 0 has type float, expected int",
            "in @f: `call` result 0 has type float, expected int",
        ],
    );
}

#[test]
fn call_of_missing_function() {
    let (mut m, f) = small();
    let mut b = FunctionBuilder::new(m.func_mut(f));
    let x = b.param(0);
    let first = b.func.region_ops(b.func.body)[0];
    b.position_before(first);
    b.call(FuncId::from_u32(7), &[x], Type::Int);
    assert_eq!(
        messages(&m),
        ["in @f: `call` of func7, which is not in the module"]
    );
}

// ---- 12. guards

#[test]
fn guard_types() {
    check(
        "func @f(%x: int, %y: float) -> int {
  guard[2.5, \"x\"](%x)
  guard[\"s\", \"y\"](%y)
  return %x
}",
        &[
            "in @f: `guard` operand 0 has type int, expected float",
            "in @f: `guard` expects an int, float or bool constant",
        ],
    );
}

#[test]
fn errors_carry_the_op_span() {
    let m = parse_module(
        "func @f(%x: int) -> int {  # a.py:1:1\n  %0: float = int.neg(%x)  # a.py:2:5\n  return %x  # a.py:3:5\n}\n",
    )
    .unwrap();
    let errs = verify_module(&m).unwrap_err();
    assert_eq!(errs.len(), 1);
    let src = m.source.as_ref().unwrap();
    assert_eq!(src.location(errs[0].span), "a.py:2:5");
}

// ---- 11. tensor ops

#[test]
fn tensor_op_arity_operands_results() {
    check(
        "func @f(%x: Tensor, %n: int, %s: str) -> Tensor {
  %0: Tensor = tensor.relu(%x, %x)
  %1: Tensor = tensor.mul.Scalar(%x, %s)
  %2: Tensor = tensor.mul.Scalar(%n, %n)
  %3: int = tensor.relu(%x)
  %4: Tensor = tensor.max.dim(%x, %n, %n)
  %5: List[float] = tensor.size(%x)
  return %x
}",
        &[
            "in @f: `tensor.relu` takes 1 operands, got 2",
            "in @f: `tensor.mul.Scalar` operand 1 (`other`) has type str, which the schema's `Scalar` does not accept",
            "in @f: `tensor.mul.Scalar` operand 0 (`self`) has type int, which the schema's `Tensor` does not accept",
            "in @f: `tensor.relu` result 0 has type int, expected Tensor",
            "in @f: `tensor.max.dim` has 2 results, got 1",
            "in @f: `tensor.size` result 0 has type List[float], expected List[int]",
        ],
    );
}

#[test]
fn tensor_op_optional_and_list_params() {
    // What the runtime binds, the verifier accepts: None / T / Optional[T] for `T?`, tuples and
    // single ints for `int[]`, lists of Index for `Index[]`.
    check(
        "func @f(%x: Tensor, %n: int, %o: Optional[int]) -> Tensor {
  %0: None = const none
  %1: Tensor = tensor.clamp(%x, %0, %n)
  %2: Optional[int] = opt.wrap(%n)
  %3: Tensor = tensor.argmax(%x, %2, %n)
  %4: Tuple[int, int] = tuple.new(%n, %n)
  %5: Tensor = tensor.reshape(%x, %4)
  %6: Tensor = tensor.reshape(%x, %n)
  %7: Tuple[int, float] = tuple.new(%n, %n)
  return %x
}",
        &[
            "in @f: `tensor.argmax` operand 2 (`keepdim`) has type int, which the schema's `bool` does not accept",
            "in @f: `tuple.new` result 0 has type Tuple[int, float], expected Tuple[int, int]",
        ],
    );
}

#[test]
fn tensor_item_has_no_ir_type() {
    check(
        "func @f(%x: Tensor) -> float {\n  %0: float = tensor.item(%x)\n  return %0\n}",
        &[
            "in @f: `tensor.item` returns `Scalar`, which has no IR type (use `tensor.Int.Tensor`, `tensor.Float.Tensor` or `tensor.Bool.Tensor`)",
        ],
    );
}

#[test]
fn fused_body_is_isolated_and_elementwise() {
    check(
        "func @f(%x: Tensor, %y: Tensor) -> Tensor {
  %r: Tensor = fused(%x) body(%a: Tensor) {
    %b: Tensor = tensor.mul.Tensor(%a, %y)
    yield %b
  }
  return %r
}",
        &["in @f: `fused` body uses %y, which is defined outside it (pass it as an operand)"],
    );
    check(
        "func @f(%x: Tensor) -> Tensor {
  %r: Tensor = fused(%x) body(%a: Tensor) {
    %n: None = const none
    %b: Tensor = tensor.sum(%a, %n)
    yield %b
  }
  return %r
}",
        &[
            "in @f: `tensor.sum` inside a `fused` body (only `const` and fusable tensor ops: elementwise, and reductions over dims)",
        ],
    );
    check(
        "func @f(%x: Tensor) -> Tensor {
  %r: Tensor = fused(%x) body(%a: Tensor, %c: Tensor) {
    %b: Tensor = tensor.exp(%a)
    yield %b
  }
  return %r
}",
        &["in @f: `fused` body has 2 parameters, expected 1 (one per operand)"],
    );
}
