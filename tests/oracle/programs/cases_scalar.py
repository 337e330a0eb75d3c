"""Cases: Optional, module constants, defaults and keywords, int/float semantics, math, builtins."""
import math

import torch

from cases import C, T, b8, f32, f64, i32, i64, ri, rn, spec


@spec("opt_default_none")
def _():
    x, w, b = rn(2, 3), rn(3, 4), rn(4)
    return [
        C("affine", x, w, b, note="bias given"),
        C("affine", x, w, None, note="bias None"),
        C("affine", x, w, note="bias defaulted"),
        C("maybe_scale", x, 3.0),
        C("maybe_scale", x, 2, note="int literal into Optional[float]"),
        C("maybe_scale", x),
    ]


@spec("opt_int")
def _():
    x = rn(5)
    return [C("clamp_len", 7, None), C("clamp_len", 7, 3), C("clamp_len", 2, 3),
            C("narrow_or_all", x, 2), C("narrow_or_all", x), C("narrow_or_all", x, None)]


@spec("opt_return_none")
def _():
    return [
        C("positive_part", T([-1.0, 2.0, -3.0, 4.0])),
        C("positive_part", T([-1.0, -2.0]), note="returns None"),
        C("count_or_none", T([[1, -2], [3, 4]])),
        C("count_or_none", T([-1.0]), note="None path"),
    ]


@spec("opt_assert_refine")
def _():
    x = rn(2, 3)
    return [
        C("require", x, x > 0),
        C("require", x, None, note="assert fails", error=True),
        C("first_set", 4, 5), C("first_set", None, 5), C("first_set", None, None),
    ]


@spec("opt_loop_update")
def _():
    return [C("running_max", rn(4, 3)),
            C("running_max", rn(0, 3), note="no rows: assert best is not None fails", error=True)]


@spec("module_constants")
def _():
    return [C("normalize", rn(8)), C("apply", rn(5) * 0.2), C("limit_width")]


@spec("default_kwargs")
def _():
    x = rn(4)
    return [
        C("scale_shift", x), C("scale_shift", x, 0.5), C("scale_shift", x, 0.5, 1.0),
        C("scale_shift", x, 0.5, 1.0, True), C("use_keywords", x),
        C("repeat_add", 3), C("repeat_add", 3, 0), C("repeat_add", 3, 0, -4),
    ]


@spec("int_floor_semantics")
def _():
    return [
        C("floor_ops", 7, 2), C("floor_ops", 7, 3), C("floor_ops", -7, 3), C("floor_ops", 6, 3),
        C("floor_ops", 0, 5),
        C("floor_ops", 7, 0, note="integer division by zero", error=True),
        C("true_div", 7, 2), C("true_div", -7, 2), C("true_div", 1, 3),
        C("true_div", 1, 0, note="division by zero", error=True),
        C("int_pow", 3, 4), C("int_pow", -2, 5), C("int_pow", 7, 0), C("int_pow", 2, 62),
        C("literal_pow"),
    ]


@spec("int_bitwise")
def _():
    return [C("bits", 12, 10), C("bits", -5, 3), C("popcount", 255), C("popcount", 0), C("popcount", 1 << 40),
            C("bool_ops", True, False), C("bool_ops", True, True), C("bool_ops", False, False)]


@spec("int_augassign")
def _():
    return [C("aug", 5), C("aug", -13), C("float_aug", 3.0), C("float_aug", -1.25)]


@spec("float_semantics")
def _():
    return [
        C("float_ops", 7.5, 2.0), C("float_ops", -7.5, 2.0), C("float_ops", 7.5, -2.0), C("float_ops", 0.1, 0.2),
        C("float_ops", 1.0, 0.0, note="float division by zero", error=True),
        C("mixed", 3, 0.5), C("mixed", -4, 2.25),
        C("specials", 1.0), C("specials", math.inf), C("specials", math.nan), C("specials", -math.inf),
        C("inf_arith"),
    ]


@spec("math_functions")
def _():
    return [
        C("unary", 0.5), C("unary", 2.0), C("unary", 10.0),
        C("rounding", 2.5), C("rounding", 3.5), C("rounding", -2.5), C("rounding", -2.7), C("rounding", 2.2),
        C("constants"), C("gelu_scalar", 0.7), C("gelu_scalar", -1.3),
        C("bad_sqrt", -1.0, note="math domain error", error=True),
        C("nan_checks"),
    ]


@spec("builtins_scalar")
def _():
    return [
        C("min_max", 3, -7, 5), C("min_max", 0, 0, 0),
        C("float_min_max", -2.75, 1.5), C("float_min_max", 3.5, 2.5),
        C("conversions", -2.7, 0, True), C("conversions", 0.0, 5, False),
        C("round_half_even", 0.5), C("round_half_even", 1.5), C("round_half_even", -0.5),
        C("round_half_even", 2.6),
        C("list_builtins", [3, 9, -4]),
        C("list_builtins", [], note="min() of an empty list", error=True),
    ]
