"""Cases: control flow (loops with data-dependent trip counts, break/continue/return, short circuit)."""
import torch

from cases import C, T, b8, f32, f64, i32, i64, ri, rn, spec


@spec("cf_while_tensor_cond")
def _():
    return [
        C("grow_until", T([0.5, 0.25]), 10.0, note="4 trips"),
        C("grow_until", T([3.0, 4.0]), 5.0, note="zero trips"),
        C("grow_until", rn(3, 3, dtype=f64).abs() + 0.1, 100.0, note="float64"),
    ]


@spec("cf_collatz")
def _():
    return [
        C("collatz_steps", 27),
        C("collatz_steps", 1, note="zero trips"),
        C("collatz_steps", 97),
        C("longest_below", 100),
        C("longest_below", 2),
    ]


@spec("cf_collatz_tensor")
def _():
    return [
        C("collatz_tensor", T([1, 2, 3, 6, 7, 27])),
        C("collatz_tensor", T([1, 1]), note="zero trips"),
        C("collatz_tensor", T([[5, 9], [12, 1]])),
    ]


@spec("cf_nested_break")
def _():
    return [
        C("find_pair", 12, 10, note="found: break both loops"),
        C("find_pair", 49, 10, note="found late"),
        C("find_pair", 13, 10, note="prime > n: inner break on overshoot, not found"),
        C("find_pair", 5, 1, note="no trips"),
    ]


@spec("cf_continue")
def _():
    return [
        C("sum_filtered", 20),
        C("sum_filtered", 0),
        C("while_continue", 10),
        C("while_continue", 3),
    ]


@spec("cf_early_return_nested")
def _():
    return [
        C("first_negative_index", T([[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]]), note="found in row 1"),
        C("first_negative_index", T([[1.0, 2.0], [3.0, 4.0]]), note="not found"),
        C("first_negative_index", T([[-1, 2], [3, 4]]), note="int64, found at once"),
        C("classify", -5, note="negative"),
        C("classify", 2, note="loop does not run"),
        C("classify", 49, note="composite"),
        C("classify", 47, note="prime: d*d > n"),
        C("classify", 4, note="composite, first divisor"),
    ]


@spec("cf_while_true_break")
def _():
    return [
        C("newton_sqrt", 2.0, 1e-12),
        C("newton_sqrt", 0.25, 1e-9, note="a < 1 branch of the ternary"),
        C("newton_sqrt", 1e6, 1e-6),
        C("tensor_newton", T([4.0, 9.0, 2.0]), 6),
        C("tensor_newton", T([4.0, 9.0], dtype=f64), 0, note="breaks at once"),
    ]


@spec("cf_if_elif_chain")
def _():
    return [C("bucket", v, note="bucket %d" % k) for k, v in enumerate([-3.5, -0.5, 0.0, 0.75, 2.0])] + [
        C("tensor_bucket", rn(5) + 3.0, note="m > 1"),
        C("tensor_bucket", rn(5) - 3.0, note="m < -1"),
        C("tensor_bucket", rn(5) * 0.1, note="else"),
    ]


@spec("cf_fib_iter")
def _():
    return [C("fib", 0), C("fib", 1), C("fib", 10), C("fib", 90, note="needs 64-bit")]


@spec("cf_range_forms")
def _():
    return [
        C("ranges", 5),
        C("ranges", 1),
        C("ranges", 0, note="all ranges empty: empty List[int]"),
        C("count_down", 10, 0, -3),
        C("count_down", 0, 10, -1, note="empty"),
        C("count_down", -5, 5, 2),
        C("count_down", 0, 5, 0, note="range step 0", error=True),
    ]


@spec("cf_for_over_tensor")
def _():
    return [
        C("row_norms", rn(4, 3)),
        C("row_norms", rn(0, 3), note="no rows"),
        C("sum_elements", T([1.5, 2.5, -1.0])),
        C("sum_elements", T([1.5, 2.5], dtype=f64)),
    ]


@spec("cf_for_over_list")
def _():
    return [
        C("weighted", [rn(3), rn(3), rn(3)], [0.5, 1.0, -2.0]),
        C("weighted", [rn(2, 2)], [3.0]),
        C("weighted", [rn(3), rn(3)], [1.0], note="ws shorter: list index out of range", error=True),
        C("total_len", [3, -1, 4, 1, -5, 9]),
        C("total_len", [-1]),
    ]


@spec("cf_for_over_tuple")
def _():
    return [
        C("apply_scales", rn(4)),
        C("apply_scales", T([1, 2, 3]), note="int tensor * float -> float"),
        C("mixed_tuple", rn(3), rn(3)),
    ]


@spec("cf_enumerate_zip")
def _():
    return [
        C("dot_lists", [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]),
        C("dot_lists", [1.0, 2.0, 3.0], [4.0], note="zip stops at the shorter"),
        C("index_weighted", [5, 6, 7, 8]),
        C("index_weighted", [7]),
        C("enumerate_rows", rn(3, 2)),
        C("zip_tensors", rn(3, 4), rn(5, 4), note="zip stops at 3 rows"),
    ]


@spec("cf_bubble_sort")
def _():
    return [
        C("bubble_sort", [5, 1, 4, 2, 8, -3, 0]),
        C("bubble_sort", [1, 2, 3], note="already sorted: early break"),
        C("bubble_sort", [9]),
    ]


@spec("cf_binary_search")
def _():
    x = T([-3.0, -1.0, 0.5, 2.0, 2.0, 7.0, 10.0])
    return [
        C("search_sorted", x, 2.0, note="first of equal elements"),
        C("search_sorted", x, -10.0, note="before all"),
        C("search_sorted", x, 11.0, note="after all"),
        C("search_sorted", x.double(), 0.0),
    ]


@spec("cf_gcd")
def _():
    return [C("gcd", 48, 18), C("gcd", 7, 0), C("gcd", 0, 5), C("gcd", -12, 8, note="floor % with a negative"),
            C("lcm", 4, 6), C("lcm", 21, 6), C("lcm", 0, 0, note="gcd 0: integer division by zero", error=True)]


@spec("cf_sieve")
def _():
    return [C("primes_below", 50), C("primes_below", 3), C("primes_below", 2, note="no primes: empty list")]


@spec("cf_zero_trip")
def _():
    x = rn(3)
    return [
        C("maybe_loop", x, 0, note="neither loop runs"),
        C("maybe_loop", x, 3, note="for runs, while does not"),
        C("maybe_loop", x, 8, note="both run"),
    ]


@spec("cf_loop_carried_tensors")
def _():
    x = rn(4)
    return [C("two_state", x, 5), C("two_state", T([8.0, -1.0]), 3, note="a exceeds 3 in the last trip"),
            C("two_state", x, 0)]


@spec("cf_nested_while_for")
def _():
    return [C("staircase", 4), C("staircase", 1), C("staircase", 0)]


@spec("cf_short_circuit")
def _():
    return [
        C("first_positive", [-1, 0, -5, 3, 2]),
        C("first_positive", [-1, -2], note="runs off the end: short circuit guards xs[i]"),
        C("first_positive", [4]),
        C("safe_ratio", 7, 0, note="b == 0 short circuits"),
        C("safe_ratio", 7, 2),
        C("safe_ratio", 7, 3),
    ] + [C("any_flag", a, b, c) for a in (False, True) for b in (False, True) for c in (False, True)]


@spec("cf_ternary")
def _():
    return [
        C("relu_scalar", 2.5), C("relu_scalar", -1.0),
        C("pick", T([1.0, 2.0]), T([-1.0, -2.0]), True, note="x, positive"),
        C("pick", T([1.0, 2.0]), T([-1.0, -2.0]), False, note="y, negative"),
        C("sign_int", 5), C("sign_int", -5), C("sign_int", 0),
    ]


@spec("cf_chained_compare")
def _():
    return [
        C("in_range", 3, 0, 5), C("in_range", 5, 0, 5), C("in_range", -1, 0, 5),
        C("ordered", 1.0, 2.0, 3.0), C("ordered", 1.0, 3.0, 2.0), C("ordered", 2.0, 1.0, 3.0),
        C("count_inside", 10, 4, 50),
        C("not_equal_chain", 1, 2, 1, note="pairwise, not transitive: True"),
        C("not_equal_chain", 1, 1, 2),
    ]
