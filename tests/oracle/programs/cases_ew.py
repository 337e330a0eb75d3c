"""Cases: in-place updates, index assignment, slicing, creation and elementwise ops."""
import math

import torch

from cases import C, T, b8, f32, f64, i32, i64, ri, rn, spec


@spec("inplace_dtype")
def _():
    return [
        C("keep_dtype", rn(4), rn(4, dtype=f64), note="float32 += float64 stays float32"),
        C("keep_dtype", rn(2, 3), rn(3, dtype=f64), note="broadcast in place"),
        C("keep_dtype", rn(3), rn(2, 3), note="in-place result cannot broadcast to a bigger shape", error=True),
        C("int_inplace", T([-7, -1, 0, 3, 12])),
        C("int_inplace", T([5, -9], dtype=i32)),
        C("int_true_div_inplace", T([4, 5]), note="int64 /= 2: PyTorch raises", error=True),
        C("int_true_div_inplace", T([4.0, 5.0])),
        C("bool_inplace", T([True, True, False, False]), T([True, False, True, False])),
    ]


@spec("inplace_views")
def _():
    x = rn(3, 4)
    return [C("through_view", x), C("through_view", x.double()), C("alias_vs_rebind", rn(3)),
            C("reshape_view_inplace", rn(3, 3)), C("mutate_argument", T([1, 2, 3]))]


@spec("index_assign")
def _():
    x = rn(4, 3)
    return [
        C("set_scalars", 4), C("set_scalars", 1),
        C("set_slices", x, rn(2, 3)),
        C("set_slices", x, rn(1, 3), note="1x3 broadcast into the 2x3 slice"),
        C("set_slices", x, rn(2, 2), note="shape mismatch in slice assignment", error=True),
        C("set_mask", x, 0.0), C("set_mask", x.double(), -9.5), C("set_mask", T([[1, -2], [-3, 4]]), 7.0),
        C("set_row_broadcast", rn(5, 2), rn(2)),
        C("set_row_broadcast", rn(3, 2), T(9.0), note="0-d value"),
        C("set_int_from_float", 5),
        C("set_out_of_range", rn(3), 2), C("set_out_of_range", rn(3), -3),
        C("set_out_of_range", rn(3), 3, note="index out of range", error=True),
    ]


@spec("slicing")
def _():
    return [
        C("basic", torch.arange(10) * 2),
        C("basic", rn(6, 2)),
        C("multi", rn(2, 4, 5)),
        C("clamped", rn(6)),
        C("strided_sum", torch.arange(20), 3), C("strided_sum", torch.arange(20.0), 1),
        C("strided_sum", torch.arange(20), 0, note="slice step 0", error=True),
        C("index_by_int", rn(3, 4), 2, -1), C("index_by_int", rn(3, 4), -3, 0),
        C("index_by_int", rn(3, 4), 1, 4, note="index out of range", error=True),
        C("negative_step", rn(4), note="negative slice step", error=True),
    ]


@spec("creation_ops")
def _():
    return [
        C("basic_creation", 3), C("basic_creation", 1), C("with_dtypes", 3), C("ranges", 7), C("ranges", 2),
        C("likes", rn(2, 3)), C("likes", T([1, 2], dtype=i32)), C("empty_then_fill", 4), C("literals"),
        C("full_int_fill", 3), C("arange_float_dtype", 5),
        C("basic_creation", -1, note="negative dimension", error=True),
    ]


@spec("ew_arith")
def _():
    x, y = rn(3, 4), rn(3, 4)
    xi, yi = T([7, -7, 7, -7, 0]), T([2, 2, -2, -2, 3])
    return [
        C("arith", x, y), C("arith", x.double(), y.double()),
        C("methods", x, y), C("methods", xi, yi, note="int64: div is true division"),
        C("operators", x, y), C("operators", xi, yi),
        C("floor_mod", xi, yi, note="int64 floor semantics"),
        C("floor_mod", T([7.5, -7.5, 7.5, -7.5]), T([2.0, 2.0, -2.0, -2.0]), note="float floor semantics"),
        C("floor_mod", T([7, -7], dtype=i32), T([3, 3], dtype=i32)),
    ]


@spec("ew_unary_math")
def _():
    return [
        C("unary_all", rn(10)), C("unary_all", rn(2, 3, dtype=f64)),
        C("inverse_trig", rn(8), rn(8)),
        C("as_methods", rn(5)),
        C("domain", T([-1.0, 0.0, 4.0, math.inf, math.nan]), note="nan/inf propagate"),
        C("unary_all", T([1, 2, 3]), note="int64 input: float ops promote to float32"),
    ]


@spec("ew_rounding_clamp")
def _():
    r = T([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.2])
    return [C("rounding", r), C("rounding", r.double()), C("clamps", rn(10) * 2.0), C("int_clamp", T([-5, 0, 2, 9])),
            C("min_max_elementwise", rn(6), rn(6)),
            C("min_max_elementwise", T([1.0, math.nan, 3.0]), T([2.0, 0.0, math.nan]), note="nan propagates")]


@spec("ew_compare_logical")
def _():
    x = T([1.0, -2.0, 3.0, 0.0, 5.0])
    y = T([1.0, 2.0, -3.0, 0.0, 6.0])
    a, b = T([True, True, False, False]), T([True, False, True, False])
    return [
        C("compares", x, y), C("compares", T([1, 2, 3]), T([3, 2, 1])),
        C("logical", a, b),
        C("float_checks", T([1.0, math.nan, math.inf, -math.inf, 0.0])),
        C("where_ops", x > 0, x, y), C("where_ops", T([True, False]), rn(3, 2), rn(2)),
        C("int_bitwise", T([12, -5, 0]), T([10, 3, 7])),
    ]


@spec("ew_activations")
def _():
    return [C("activations", rn(12) * 3.0), C("activations", rn(2, 3, dtype=f64)), C("manual_gelu", rn(7)),
            C("swish_beta", rn(5), 1.702)]


@spec("ew_promotion")
def _():
    return [
        C("promote", T([1, 2, 3]), T([4, 5, 6], dtype=i32), rn(3), rn(3, dtype=f64), T([True, False, True])),
        C("int_div_tensor", T([7, -7, 8]), T([2, 2, -3])),
        C("int_div_tensor", T([7, -7], dtype=i32), T([2, 2], dtype=i32)),
        C("int_zero_div", T([1, 2]), note="integer tensor division by zero", error=True),
        C("int_zero_div", T([1.0, -2.0, 0.0]), note="float // 0 gives inf/nan"),
    ]


@spec("ew_broadcasting")
def _():
    return [
        C("bcast", rn(3, 1), rn(1, 4)), C("bcast", rn(2, 3, 4), rn(4)), C("bcast", rn(5), T(2.0)),
        C("bcast", rn(2, 3), rn(3, 2), note="incompatible shapes", error=True),
        C("outer_sum", rn(3), rn(4)),
        C("scalar_tensor_ops", rn(4).abs() + 0.1, 1.5, 3),
        C("scalar_tensor_ops", T([1.0, 2.0], dtype=f64), -0.5, -2),
    ]
