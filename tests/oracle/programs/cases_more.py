"""Cases: more real-world style functions, early exits, None-returning functions."""
import torch

from cases import C, T, b8, f32, f64, i32, i64, ri, rn, spec


@spec("rw_audio")
def _():
    x = torch.rand(12) * 2.0 - 1.0
    return [C("mu_law_encoding", x, 256), C("mu_law_decoding", T([0, 64, 128, 200, 255]), 256),
            C("amplitude_to_db", torch.rand(3, 4) * 10.0, 10.0, 1e-10, 20.0),
            C("amplitude_to_db", T([0.0, 1e-12, 1.0, 100.0]), 20.0, 1e-5, 0.0, note="top_db disabled")]


@spec("rw_metrics")
def _():
    logits = rn(8, 3)
    target = T([0, 1, 2, 0, 1, 2, 0, 1])
    return [C("accuracy", logits, target), C("confusion_matrix", logits.argmax(1), target, 3),
            C("precision_recall", T([[3, 1, 0], [0, 2, 0], [1, 0, 0]]))]


@spec("rw_sampling")
def _():
    table = rn(6, 6)
    table[0, 3] = 10.0
    table[3, 5] = 10.0
    table[5, 1] = 10.0
    table[1, 4] = 10.0
    table[4, 2] = 10.0
    table[2, 5] = 10.0
    return [C("greedy_decode", table, 0, 4, 10, note="stops at eos"), C("greedy_decode", table, 0, 99, 8, note="stops at max_len"),
            C("top_p_mask", T([0.1, 0.5, 0.15, 0.25]), 0.7), C("top_p_mask", T([0.1, 0.5, 0.15, 0.25], dtype=f64), 0.0, note="zero trips"),
            C("temperature_softmax", rn(5), 0.5), C("temperature_softmax", rn(5), 0.0, note="greedy one-hot")]


@spec("rw_image_ops")
def _():
    img = torch.rand(3, 4, 5)
    return [C("normalize_image", img, T([0.485, 0.456, 0.406]), T([0.229, 0.224, 0.225])), C("hflip", img),
            C("rgb_to_grayscale", img), C("box_blur", img), C("adjust_contrast", img, 1.5)]


@spec("cf_nested_early_exit")
def _():
    x = torch.arange(24.0).view(2, 3, 4)
    return [C("find_in_matrix", x, 17.0), C("find_in_matrix", x, 0.0), C("find_in_matrix", x, 99.0, note="not found"),
            C("count_until", [1, 2, 3, 4, 5], 4, 2), C("count_until", [1, 2, 3], 9, 9),
            C("loop_else_free", 91), C("loop_else_free", 13, note="no divisor found")]


@spec("fn_none_return")
def _():
    return [C("build", 3, 2.5), C("collect", [3, -1, 4, -1, 5]), C("fill_diag", torch.zeros(2, 3), 1.0, note="returns None"),
            C("nothing", rn(2), note="returns None"), C("log_value", [1], -3, note="early bare return")]


@spec("tensor_bool_conditions")
def _():
    return [C("both", T([0.9, -0.1])), C("both", T([0.9, 0.1])), C("both", T([0.1, -2.0])), C("both", T([0.1, 0.2])),
            C("not_tensor", T([0.0, 0.0])), C("not_tensor", T([0.0, 1.0])),
            C("while_tensor", T([1.0, 1.0, 1.0, 0.5])), C("while_tensor", T([0, 1])),
            C("if_on_tensor", T([2.0])), C("if_on_tensor", T(-1)), C("if_on_tensor", T([[True]])),
            C("if_on_tensor", T([1.0, 2.0]), note="condition with two elements", error=True)]


@spec("slicing_variables")
def _():
    x = rn(8)
    return [C("window_sums", x, 3), C("window_sums", x, 8), C("window_sums", x, 10, note="no windows"),
            C("column", rn(3, 4), -1), C("tail_step", torch.arange(10), 1, 3), C("tail_step", torch.arange(10), -4, 2),
            C("dims_of", rn(2, 5))]


@spec("err_defined_paths")
def _():
    return [
        C("pick", 3), C("pick", 0, note="ValueError", error=True), C("pick", -2, note="Exception", error=True),
        C("check_flag", T(0)), C("check_flag", T(1), note="raise without message", error=True),
        C("always_raises", rn(2), error=True),
        C("guarded_loop", T([1.0, 2.0, 3.0])), C("guarded_loop", T([1.0, -2.0, 3.0]), note="f-string with the index", error=True),
    ]
