"""Cases: recursion, tuples, lists."""
import torch

from cases import C, T, b8, f32, f64, i32, i64, ri, rn, spec


@spec("rec_fib")
def _():
    return [C("fib", 0), C("fib", 1), C("fib", 15)]


@spec("rec_factorial")
def _():
    return [C("factorial", 0), C("factorial", 5), C("factorial", 20, note="fits int64"),
            C("factorial_float", 0), C("factorial_float", 25)]


@spec("rec_tensor_sum")
def _():
    return [C("tree_sum", rn(8, 3)), C("tree_sum", rn(5)), C("tree_sum", T([[1, 2]])),
            C("tree_sum", rn(0, 2), note="empty: assert fails", error=True)]


@spec("rec_power")
def _():
    m = rn(3, 3, dtype=f64) * 0.5
    return [C("fast_pow", 3, 0), C("fast_pow", 3, 13), C("fast_pow", -2, 7), C("matrix_power", m, 0),
            C("matrix_power", m, 5), C("matrix_power", T([[1, 1], [1, 0]]), 10, note="int64 Fibonacci matrix")]


@spec("rec_mutual")
def _():
    return [C("is_even", 0), C("is_even", 7), C("is_odd", 7), C("is_odd", 10)]


@spec("rec_ackermann")
def _():
    return [C("ackermann", 0, 0), C("ackermann", 1, 2), C("ackermann", 2, 3)]


@spec("rec_hanoi")
def _():
    return [C("hanoi_moves", 3), C("hanoi_moves", 0), C("hanoi_moves", 1)]


@spec("rec_binary_digits")
def _():
    return [C("digits", 37, 2), C("digits", 0, 10), C("digits", 255, 16), C("digits", 1000, 10)]


@spec("rec_tensor_cumulative")
def _():
    return [C("smooth", rn(6), 3), C("smooth", rn(6), 0), C("smooth", rn(4, 2, dtype=f64), 2)]


@spec("tup_return")
def _():
    return [C("stats", rn(10)), C("stats", rn(2, 3, dtype=f64)), C("use_stats", rn(6))]


@spec("tup_swap_unpack")
def _():
    return [C("swap", 1, 2), C("rotate3", 1.0, 2.5, -3.0), C("chained_assign", 4)]


@spec("tup_max_dim")
def _():
    return [
        C("row_max", rn(4, 5)),
        C("row_max", T([[3, 1, 2], [0, 5, 4]])),
        C("col_min_keep", rn(3, 4, dtype=f64)),
        C("max_neg_dim", rn(2, 3, 4)),
        C("row_max", rn(4), note="dim 1 out of range for a 1-d tensor", error=True),
    ]


@spec("tup_nested")
def _():
    return [C("pairs", rn(3)), C("unpack_nested", rn(2, 2))]


@spec("tup_param")
def _():
    return [
        C("make_grid", (2, 3), 1.5),
        C("make_grid", (0, 4), 2.0),
        C("add_offset", (1.0, 2.0), (0.5, -4.0)),
        C("tensor_pair", (rn(2, 3), rn(3, 2))),
    ]


@spec("tup_loop_carried")
def _():
    return [C("run", rn(3), 4), C("run", rn(3), 0)]


@spec("list_basic")
def _():
    return [
        C("build", 5),
        C("build", 0, note="xs[0] on an empty list", error=True),
        C("stats", [4, -2, 9, 1]),
        C("stats", [7]),
        C("contains", [1, 2, 3], 2),
        C("contains", [1, 2, 3], 5),
        C("not_contains", [1.5, 2.5], 2.5),
        C("not_contains", [1.5, 2.5], 3.0),
    ]


@spec("list_of_tensors")
def _():
    x = rn(12)
    return [C("split_and_scale", x, 3), C("split_and_scale", x, 1), C("rejoin", x, 4)]


@spec("list_size")
def _():
    return [
        C("shape_list", rn(2, 3, 4)),
        C("shape_list", T(1.0), note="0-d: empty size"),
        C("reshape_roundtrip", rn(2, 3, 4)),
        C("flat_size", rn(2, 0, 3)),
        C("flat_size", rn(3, 5)),
    ]


@spec("list_aliasing")
def _():
    return [C("alias_mutation", 9), C("caller", 3)]


@spec("list_float_bool")
def _():
    return [C("halves", 5), C("halves", 0, note="empty List[float]"), C("flags", [1, 2, 3, 4, -2, -3])]


@spec("list_type_comment")
def _():
    return [C("evens", 7), C("evens", 0), C("halvings", 37), C("halvings", 0), C("scaled", 3, rn(4)), C("scaled", -2, T([1, 2]))]


@spec("list_index_errors")
def _():
    return [
        C("get", [10, 20, 30], 1),
        C("get", [10, 20, 30], -1, note="negative index"),
        C("get", [10, 20, 30], -3),
        C("get", [10, 20, 30], 3, note="out of range", error=True),
        C("get", [10, 20, 30], -4, note="negative out of range", error=True),
        C("set_item", [1.0, 2.0], 1, 5.5),
        C("set_item", [1.0, 2.0], -2, 5.5),
        C("set_item", [1.0, 2.0], 2, 5.5, note="assignment out of range", error=True),
    ]
