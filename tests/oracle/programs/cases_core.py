"""Cases: the seed's programs and the peer-benchmark workloads (torch and NumPy spellings)."""
import math

import numpy as np
import torch

from cases import C, T, b8, f32, f64, i32, i64, nrn, ri, rn, spec


@spec("simple_op")
def _():
    return [
        C("simple_op", T([1.0]), T([2.0]), note="the seed's trace example"),
        C("simple_op", rn(3, 4), rn(3, 4), note="float32 2-d"),
        C("simple_op", rn(3, 1, dtype=f64), rn(4), note="broadcast to 3x4, float64+float32 -> float64"),
        C("simple_op", ri(-5, 5, 6), ri(-5, 5, 6), note="int64 stays int64"),
        C("simple_op", ri(-5, 5, 5, dtype=i32), rn(5), note="int32 + float32 -> float32"),
        C("simple_op", rn(3), rn(4), note="shape mismatch", error=True),
    ]


@spec("simple_op_annotated")
def _():
    return [
        C("simple_op", rn(5), rn(5)),
        C("simple_op", T(2.0), T(3.0), note="0-d tensors"),
        C("simple_op", rn(2, 3, dtype=f64), rn(3, dtype=f64)),
    ]


@spec("conditional_op")
def _():
    x = rn(64)
    return [
        C("conditional_op", x + 0.5, 0.0, note="sum > threshold: x * 2 branch"),
        C("conditional_op", x - 0.5, 0.0, note="sum < threshold: x + 1 branch"),
        C("conditional_op", T([1.0, 2.0, 3.0]), 6.0, note="sum == threshold: else branch"),
        C("conditional_op", T([1.0, 2.0, 3.0]), 5, note="int literal for a float parameter"),
        C("conditional_op", ri(0, 10, 4, 4), 1000.0, note="int64 tensor, else branch keeps int64"),
        C("conditional_op", rn(2, 3, dtype=f64) + 2.0, -1.5, note="float64 2-d, then branch"),
    ]


@spec("elementwise_chain")
def _():
    return [
        C("elementwise_chain", rn(1000), rn(1000)),
        C("elementwise_chain", rn(4, 5, dtype=f64), rn(4, 5, dtype=f64)),
        C("elementwise_chain", rn(3, 1), rn(1, 4), note="broadcasting"),
    ]


@spec("iterate")
def _():
    x = rn(100)
    return [
        C("iterate", x, 50),
        C("iterate", x, 10),
        C("iterate", x, 0, note="zero trips: returns x"),
        C("iterate", x, -3, note="negative n: zero trips"),
        C("iterate", rn(3, 3, dtype=f64), 1),
    ]


@spec("converge")
def _():
    return [
        C("converge", rn(1000) * 1000.0, note="~20 halvings"),
        C("converge", rn(1000) * 1e5, note="more halvings"),
        C("converge", T([1e-4, -2e-4]), note="zero trips"),
        C("converge", T([1.0, -8.0], dtype=f64), note="float64"),
    ]


@spec("mlp")
def _():
    def args(b):
        return (rn(b, 16), rn(16, 32) / 4.0, rn(32) * 0.1, rn(32, 8) / 5.66, rn(8) * 0.1)

    return [
        C("mlp", *args(4)),
        C("mlp", *args(1)),
        C("mlp", rn(2, 15), *args(1)[1:], note="inner-dimension mismatch", error=True),
    ]


@spec("rnn")
def _():
    xs = rn(5, 3, 8)
    w, u, h0 = rn(8, 8) / 2.83, rn(8, 8) / 2.83, rn(3, 8) * 0.5
    return [
        C("rnn", xs, w, u, h0, note="T=5"),
        C("rnn", xs[:2].clone(), w, u, h0, note="T=2"),
        C("rnn", xs[:0].clone(), w, u, h0, note="T=0: returns h0"),
    ]


@spec("scalar_loop")
def _():
    return [
        C("scalar_loop", 1000),
        C("scalar_loop", 100),
        C("scalar_loop", 2, note="one outer trip, zero inner trips"),
        C("scalar_loop", 1, note="zero trips"),
        C("scalar_loop", 0, note="empty range"),
    ]


@spec("softmax_rows")
def _():
    return [
        C("softmax_rows", rn(16, 32) * 3.0),
        C("softmax_rows", rn(3, 5, dtype=f64) * 100.0, note="large logits, float64"),
        C("softmax_rows", T([[1000.0, 1000.0], [-1000.0, 0.0]]), note="overflow-safe"),
    ]


@spec("mandelbrot")
def _():
    return [
        C("mandelbrot", 12, 30),
        C("mandelbrot", 5, 100),
        C("mandelbrot", 3, 0, note="max_iter 0: while never runs"),
        C("mandelbrot", 0, 10, note="empty grid"),
    ]


@spec("np_conditional_op")
def _():
    x = nrn(32)
    return [
        C("conditional_op", x + np.float32(0.5), 0.0, note="then"),
        C("conditional_op", x - np.float32(0.5), 0.0, note="else"),
    ]


@spec("np_softmax_rows")
def _():
    x = nrn(6, 7) * np.float32(3.0)
    return [
        C("softmax_rows", x),
        C("softmax_rows_loops", x),
        C("softmax_rows", nrn(3, 4, dtype=np.float64)),
    ]


@spec("np_mandelbrot")
def _():
    return [C("mandelbrot", 8, 25), C("mandelbrot", 1, 5)]


@spec("np_elementwise_chain")
def _():
    x, y = nrn(50), nrn(50)
    return [C("elementwise_chain", x, y), C("elementwise_chain_loops", x, y)]


@spec("np_reductions")
def _():
    return [
        # float32 sums stored into a float64 array: float32 precision (tests/programs/README.md)
        C("column_stats", nrn(5, 4), tol={"rtol": 1e-6, "atol": 1e-7}),
        C("column_stats", nrn(2, 3, dtype=np.float64)),
        C("converge", nrn(20) * np.float32(100.0)),
    ]
