"""Cases: reductions, scans, matmul, shape ops, join/split, gather/index, conversions."""
import math

import torch

from cases import C, T, b8, f32, f64, i32, i64, ri, rn, spec


@spec("red_basic")
def _():
    x = rn(3, 4)
    m = T([[True, True, False], [True, True, True]])
    return [
        C("full_reductions", x), C("full_reductions", x.double()), C("full_reductions", rn(6)),
        C("dim_reductions", x), C("dim_reductions", rn(2, 5, dtype=f64)),
        C("bool_reductions", m), C("bool_reductions", ~m),
        C("int_sums", T([[1, 2], [3, 4]], dtype=i32), note="int32 sums -> int64"),
        C("int_sums", T([[True, False], [True, True]]), note="bool sums -> int64"),
        C("int_mean", T([1.0, 2.0])),
        C("int_mean", T([1, 2]), note="mean of int64 raises", error=True),
    ]


@spec("red_multi_dim")
def _():
    return [C("dims3", rn(2, 3, 4)), C("reduce_then_loop", rn(4, 6)), C("bad_dim", rn(2, 3), note="dim out of range", error=True),
            C("empty_reductions", rn(0)), C("empty_reductions", torch.zeros(0, 3, dtype=f64)),
            C("empty_max", T([3.0, -1.0])), C("empty_max", rn(0), note="max of an empty tensor", error=True)]


@spec("red_scan_softmax")
def _():
    x = rn(3, 4)
    return [C("scans", x), C("scans", x.double() * 0.5), C("softmaxes", x * 3.0), C("softmaxes", rn(2, 6, dtype=f64)),
            C("int_cumsum", T([1, 2, 3], dtype=i32), note="int32 cumsum -> int64"), C("int_cumsum", T([True, True, False]))]


@spec("mm_forms")
def _():
    return [
        C("matmuls", rn(3), rn(3), rn(2, 3), rn(3, 4)),
        C("matmuls", rn(3, dtype=f64), rn(3, dtype=f64), rn(2, 3, dtype=f64), rn(3, 4, dtype=f64)),
        C("batched", rn(2, 3, 4), rn(2, 4, 5), rn(4, 2)),
        C("broadcast_batch", rn(2, 1, 3, 4), rn(3, 4, 2)),
        C("int_matmul", T([[1, 2], [3, 4]]), T([[5], [6]])),
        C("mismatch", rn(2, 3), rn(2, 3), note="mm shape mismatch", error=True),
        C("mismatch", rn(2, 3), rn(3, 2, dtype=f64), note="mm dtype mismatch", error=True),
    ]


@spec("mm_linear")
def _():
    x = rn(4, 5)
    return [C("linear", x, rn(3, 5), rn(3)), C("linear", x, rn(3, 5), None), C("linear", rn(2, 4, 5), rn(3, 5), rn(3)),
            C("two_layer", x, rn(8, 5), rn(8), rn(2, 8))]


@spec("shape_queries")
def _():
    x = rn(2, 3, 4)
    return [
        C("queries", x), C("queries", rn(5, 1)),
        C("reshapes", x), C("reshapes", torch.arange(24).view(2, 3, 4)),
        C("squeezes", rn(1, 3, 1, 2)),
        C("perms", x), C("perms", rn(3, 2, 2, dtype=f64)),
        C("view_noncontiguous", rn(3, 4), note="view on a transposed tensor", error=True),
        C("view_noncontiguous", rn(1, 4), note="a 1-row transpose is still viewable"),
        C("bad_reshape", rn(2, 3), note="6 elements do not reshape to (5, -1)", error=True),
    ]


@spec("shape_expand")
def _():
    return [C("expands", rn(3, 1), rn(3, 4)), C("clone_is_copy", rn(2, 2)),
            C("bad_expand", rn(3, 2), note="expand a non-singleton dimension", error=True)]


@spec("join_split")
def _():
    return [
        C("joins", rn(2, 3), rn(2, 3)), C("joins", T([[1, 2]]), T([[3, 4]])),
        C("splits", rn(5, 4)), C("flips", torch.arange(6).view(2, 3)), C("flips", rn(3, 2)),
        C("cat_mismatch", rn(2, 3), rn(2, 3)), C("cat_mismatch", rn(2, 3), rn(2, 4), note="cat shape mismatch", error=True),
    ]


@spec("gather_index")
def _():
    x = rn(3, 4)
    return [
        C("selects", x, T([2, 0])), C("selects", torch.arange(12).view(3, 4), T([1, 1, 0])),
        C("masks", x), C("masks", rn(2, 2, dtype=f64)),
        C("bad_index", x, T([0, 5]), note="index out of range", error=True),
        C("gather_rows", rn(4, 5), T([0, 4, 2, 2])),
    ]


@spec("conversions")
def _():
    return [
        C("tensor_casts", T([-2.7, -0.5, 0.0, 0.5, 3.9])), C("tensor_casts", T([0, 3, -2])), C("tensor_casts", T([True, False])),
        C("to_scalars", T([1.5, 2.5])), C("to_scalars", T([-1.0, 4.0], dtype=f64)), C("to_scalars", T([-1, 4]), note="mean() of int64 raises", error=True),
        C("item_int", T([3, 4])), C("item_multi", T([2.5])), C("item_multi", T(7.0, dtype=f64)),
        C("item_multi", T([1.0, 2.0]), note="item() of a 2-element tensor", error=True),
        C("bool_of_tensor", T([0.0])), C("bool_of_tensor", T(3)), C("bool_of_tensor", T([True])),
        C("bool_of_tensor", T([1, 2]), note="ambiguous truth value", error=True),
    ]
