"""Cases: classic algorithms written with loops, lists and tensors."""
import math

import torch

from cases import C, T, b8, f32, f64, i32, i64, ri, rn, spec


@spec("alg_dtw")
def _():
    return [C("dtw", T([0.0, 1.0, 2.0, 1.0]), T([0.0, 2.0, 1.0])), C("dtw", rn(6), rn(4), note="float stores into a float64 tensor must keep double precision (TorchScript rounds via float32)"), C("dtw", T([1.0]), T([3.0]))]


@spec("alg_edit_distance")
def _():
    return [C("edit_distance", [1, 2, 3, 4], [1, 3, 4, 5]), C("edit_distance", [], [1, 2]), C("edit_distance", [7, 7], [7, 7])]


@spec("alg_floyd_warshall")
def _():
    inf = math.inf
    w = T([[0.0, 3.0, inf, 7.0], [8.0, 0.0, 2.0, inf], [5.0, inf, 0.0, 1.0], [2.0, inf, inf, 0.0]])
    neg = T([[0.0, 1.0], [-2.0, 0.0]])
    return [C("floyd_warshall", w), C("has_negative_cycle", w), C("has_negative_cycle", neg)]


@spec("alg_ctc_decode")
def _():
    e = torch.zeros(8, 4)
    for t, c in enumerate([1, 1, 0, 1, 2, 2, 0, 3]):
        e[t, c] = 1.0
    return [C("ctc_greedy_decode", e, 0), C("ctc_greedy_decode", rn(10, 5), 4)]


@spec("alg_knapsack")
def _():
    return [C("knapsack", T([1, 3, 4, 5]), T([1, 4, 5, 7]), 7), C("knapsack", T([10, 3]), T([100, 4]), 5, note="item too heavy: continue"),
            C("knapsack", T([2]), T([3]), 0)]


@spec("alg_quicksort")
def _():
    return [C("quicksort", [5, 3, 9, 3, -1, 0, 12, 5]), C("quicksort", []), C("quicksort", [4, 4, 4])]


@spec("index_assign_precision")
def _():
    return [C("store_scalars", torch.zeros(2, 2, dtype=f64), torch.zeros(2, dtype=i64), 0.1, 9007199254740993,
              note="2**53 + 1 is not a double"),
            C("store_scalars", torch.zeros(2, 2), torch.zeros(2, dtype=i32), 0.1, 7, note="float32/int32 targets round")]
