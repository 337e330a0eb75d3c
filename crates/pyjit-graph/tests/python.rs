//! `pyjit_graph::to_python` (`--emit python`), IR in, Python out: every construct of the mapping
//! (subscripts and index assignment, several results, `while` and `for` with `break` and swapped
//! carried values, optional refinement, messages as f-strings, calls, constants that need care),
//! and the printed text scripts again. The whole corpus round-trips in
//! `crates/pyjit/tests/programs.rs` (`corpus_round_trips_through_python`).

fn print(ir: &str) -> String {
    let m = pyjit_ir::parse_module(ir).expect("the IR parses");
    pyjit_ir::verify_module(&m).expect("the IR verifies");
    pyjit_graph::to_python(&m, pyjit_ir::FuncId::from_u32(0), &[])
}

/// `ir` prints as exactly `want`, which scripts again.
fn prints_as(ir: &str, want: &str) {
    let py = print(ir);
    assert_eq!(py, want, "got:\n{py}");
    scripts(&py);
}

/// The printed Python is accepted by the script frontend (and its IR verifies).
fn scripts(py: &str) {
    let file = pyjit_syntax::SourceFile::new("printed.py", py);
    let ast = pyjit_syntax::parse_module(&file).unwrap_or_else(|d| panic!("{d:?}\n{py}"));
    let m = pyjit_script::script_module(&file, &ast).unwrap_or_else(|d| {
        let msgs: Vec<String> = d.iter().map(|d| d.render(&file)).collect();
        panic!("{}\n{py}", msgs.join("\n"))
    });
    pyjit_ir::verify_module(&m).expect("the scripted IR verifies");
}

const SPECIALIZED_IR: &str = r#"func @"g.specialized"(%x: Tensor[float32, 2], %n: int, %o: Optional[int]) -> Tuple[Tensor, int] {
  %0: int = const 1
  %1: int = const 0
  %2: float = const -2.5
  %3: float = const 7.0
  %4: bool = const false
  %5: int = const 9223372036854775807
  %6: int = const 3
  %7: int = const 10
  %8: str = const "k="
  %9: str = const " {braces}"
  %10: int = const 99
  %11: str = const "no "
  %12: None = const none
  %13: int = const -2
  %14: float = const -1.0
  %15: Optional[int] = opt.wrap(%0)
  %16: Optional[int] = opt.none()
  %17: Index = index.slice(%15, %16, %0)
  %18: Index = index.none()
  %19: Index = index.ellipsis()
  %20: Index = index.int(%1)
  %21: List[Index] = list.new(%17, %18, %19, %20)
  %22: Tensor = tensor.index(%x, %21)
  %23: Tensor = tensor.mul.Scalar(%22, %2)
  %24: List[Index] = list.new(%20)
  %25: Tensor = tensor.index_put_.Scalar(%x, %24, %3)
  %26: Tensor[float32, 1], %27: Tensor[int64, 1] = tensor.max.dim(%x, %0, %4)
  %28: bool = int.gt(%n, %1)
  %29: int = loop(%5, %28, %1) body(%30: int, %31: int) {
    %32: int = int.add(%31, %6)
    %33: bool = int.le(%32, %7)
    %34: bool = if %33 {
      %35: bool = int.lt(%32, %n)
      yield %35
    } else {
      yield %4
    }
    yield %34, %32
  }
  %36: bool = opt.is_none(%o)
  %37: int = if %36 {
    yield %29
  } else {
    %38: int = opt.unwrap(%o)
    %39: int = int.add(%29, %38)
    yield %39
  }
  %40: bool = int.lt(%37, %1)
  if %40 {
    %41: str = str.of[".2f"](%37)
    %42: str = str.concat(%8, %41, %9)
    raise[AssertionError](%42)
  } else {
    yield
  }
  %43: bool = int.eq(%37, %10)
  if %43 {
    %44: str = str.of(%37)
    %45: str = str.concat(%11, %44)
    raise[ValueError](%45)
  } else {
    yield
  }
  %46: float = int.to_float(%n)
  %47: float = math.sqrt(%46)
  %48: float = float.pow(%47, %14)
  %49: Tensor = tensor.sum(%23, %12)
  %50: Tensor = tensor.add.Tensor(%26, %49, %0)
  %51: Tensor = tensor.add.Scalar(%50, %48, %0)
  %52: int = int.floordiv(%37, %13)
  %53: Tuple[Tensor, int] = tuple.new(%51, %52)
  return %53
}
"#;

const SPECIALIZED_PY: &str = r#"import math
import torch
import torch.nn.functional as F
from torch import Tensor
from typing import Dict, List, Optional, Tuple


def g(x: Tensor, n: int, o: Optional[int]) -> Tuple[Tensor, int]:
    _0 = x[1:, None, ..., 0]
    _1 = torch.mul(_0, -2.5)
    x[0] = 7.0
    _2, _3 = torch.max(x, 1)
    _4 = n > 0
    _5 = 0
    _6 = _4
    while _6:
        _7 = _5 + 3
        _8 = _7 <= 10
        if _8:
            _9 = _7 < n
        else:
            _9 = False
        _6 = _9
        _5 = _7
    _10 = o is None
    if _10:
        _11 = _5
    else:
        _12 = o
        assert _12 is not None
        _11 = _5 + _12
    _13 = _11 < 0
    if _13:
        raise AssertionError(f"k={_11:.2f} {{braces}}")
    _14 = _11 == 99
    if _14:
        raise ValueError(f"no {_11}")
    _15 = float(n)
    _16 = math.sqrt(_15)
    _17 = _16 ** (-1.0)
    _18 = torch.sum(_1)
    _19 = torch.add(_2, _18)
    _20 = torch.add(_19, _17)
    _21 = _11 // (-2)
    return (_20, _21)
"#;

#[test]
fn specialized() {
    prints_as(SPECIALIZED_IR, SPECIALIZED_PY);
}

const LOOP_CALL_IR: &str = r#"func @h(%n: int, %xs: List[int]) -> int {
  %0: int = const 0
  %1: int = const 1
  %2: bool = const true
  %3: int, %4: int = loop(%n, %2, %0, %1) body(%i: int, %a: int, %b: int) {
    %5: int = list.len(%xs)
    %6: bool = int.lt(%i, %5)
    %7: int = select(%6, %a, %b)
    %8: int = call @h2(%7)
    %9: int = int.add(%8, %b)
    yield %6, %b, %a
  }
  %10: int = int.add(%3, %4)
  list.append(%xs, %10)
  %11: Tuple[int, int] = tuple.new(%3, %10)
  %12: int = tuple.get[1](%11)
  return %12
}

func @h2(%v: int) -> int {
  %0: int = int.neg(%v)
  return %0
}
"#;

const LOOP_CALL_PY: &str = r#"import math
import torch
import torch.nn.functional as F
from torch import Tensor
from typing import Dict, List, Optional, Tuple


def h2(v: int) -> int:
    _0 = -v
    return _0


def h(n: int, xs: List[int]) -> int:
    _0 = 0
    _1 = 1
    for _2 in range(n):
        _3 = len(xs)
        _4 = _2 < _3
        _5 = _0 if _4 else _1
        _6 = h2(_5)
        _7 = _6 + _1
        _8 = _1
        _9 = _0
        _0 = _8
        _1 = _9
        if not _4:
            break
    _10 = _0 + _1
    xs.append(_10)
    _11 = (_0, _10)[1]
    return _11
"#;

#[test]
fn loop_call() {
    prints_as(LOOP_CALL_IR, LOOP_CALL_PY);
}

const CONSTANTS_IR: &str = r#"func @k(%x: float) -> float {
  %0: int = const -9223372036854775808
  %1: float = const inf
  %2: float = const -0.0
  %3: str = const "a \"quoted\"\n{line}"
  %4: float = int.to_float(%0)
  %5: float = float.mul(%4, %2)
  %6: bool = math.isnan(%x)
  %7: float = if %6 {
    yield %1
  } else {
    %8: float = float.add(%5, %x)
    yield %8
  }
  print(%3, %7)
  %9: float = undef()
  %10: bool = float.gt(%7, %x)
  %11: float = select(%10, %7, %9)
  return %11
}
"#;

const CONSTANTS_PY: &str = r#"import math
import torch
import torch.nn.functional as F
from torch import Tensor
from typing import Dict, List, Optional, Tuple


def k(x: float) -> float:
    _0 = float((-9223372036854775807 - 1))
    _1 = _0 * (-0.0)
    _2 = math.isnan(x)
    if _2:
        _3 = math.inf
    else:
        _3 = _1 + x
    print("a \"quoted\"\n{line}", _3)
    _4 = _3 > x
    _5 = _3 if _4 else 0.0
    return _5
"#;

#[test]
fn constants() {
    prints_as(CONSTANTS_IR, CONSTANTS_PY);
}

#[test]
fn entry_keeps_the_user_name_and_defaults() {
    let ir = SPECIALIZED_IR;
    let m = pyjit_ir::parse_module(ir).unwrap();
    let py = pyjit_graph::to_python(
        &m,
        pyjit_ir::FuncId::from_u32(0),
        &[None, Some("5".into()), Some("None".into())],
    );
    assert!(
        py.contains("def g(x: Tensor, n: int = 5, o: Optional[int] = None) -> Tuple[Tensor, int]:"),
        "{py}"
    );
}

/// A `fastmath` fast form prints as the function it approximates (torch has no `tanh_fast`).
#[test]
fn fast_forms_print_as_the_exact_function() {
    let py = print(
        "func @f(%x: Tensor[float32, 1]) -> Tensor[float32, 1] {
  %0: Tensor[float32, 1] = tensor.tanh_fast(%x)
  return %0
}
",
    );
    assert!(py.contains("_0 = torch.tanh(x)"), "{py}");
    assert!(!py.contains("tanh_fast"), "{py}");
    scripts(&py);
}
