"""Cases: errors, print, dtypes, and functions in the style of real TorchScript code."""
import math

import torch

from cases import C, T, b8, f32, f64, i32, i64, ri, rn, spec


@spec("err_assert")
def _():
    return [
        C("checked_log", T([1.0, 2.0])),
        C("checked_log", T([1.0, -2.0]), note="assert with message fails", error=True),
        C("checked_div", 7, 2),
        C("checked_div", 7, 0, note="assert without message fails", error=True),
        C("shape_check", rn(2, 3), rn(2, 1)),
        C("shape_check", rn(2, 3), rn(3, 1), note="first assert fails", error=True),
        C("shape_check", rn(2, 3), rn(2), note="second assert fails", error=True),
    ]


@spec("err_raise")
def _():
    return [
        C("check_range", 5), C("check_range", -1, note="ValueError", error=True),
        C("check_range", 101, note="Exception", error=True),
        C("raise_in_loop", T([1.0, 50.0]), 10), C("raise_in_loop", T([1.0, 50.0]), 2, note="RuntimeError in loop", error=True),
        C("raise_fstring", 4), C("raise_fstring", 7, note="f-string message", error=True),
    ]


@spec("err_runtime")
def _():
    return [
        C("add_shapes", rn(2), rn(2), note="y[2:4] is empty: third iteration mismatches", error=True),
        C("add_shapes", rn(2), rn(3), note="size-1 window broadcasts"),
        C("add_shapes", rn(3, 1), rn(5)),
        C("int_div_in_loop", 3, note="reaches i == 0", error=True),
        C("int_div_in_loop", -2, note="empty range: no division"),
        C("mod_zero", 5, 3), C("mod_zero", 5, 0, note="integer modulo by zero", error=True),
        C("after_print", rn(3), note="prints, then index out of range", error=True),
        C("recursion_guard", [1, 2, 3], 0),
    ]


@spec("print_basic")
def _():
    return [C("show", T([1.0, 2.5]), 3, 0.1, True), C("show", T([[1, 2], [3, 4]]), -7, 1e-8, False),
            C("loop_print", 4), C("loop_print", 0)]


@spec("print_formats")
def _():
    return [C("formats", T([-1.5, 0.0, 2.25])), C("containers", 4), C("containers", 0),
            C("float_repr", 1.0), C("float_repr", 0.1), C("float_repr", -2.5e-7)]


@spec("dtype_int32")
def _():
    return [C("int32_ops", T([7, -7, 9], dtype=i32), T([2, 2, -4], dtype=i32)),
            C("int32_accumulate", T([[1, 2], [3, 4], [5, 6]], dtype=i32))]


@spec("dtype_float64")
def _():
    return [C("precise", T([0.25, 1.5], dtype=f64)), C("precise", T([0.25, 1.5])), C("series", 1000)]


@spec("dtype_bool")
def _():
    a, b = T([True, False, True]), T([True, True, False])
    return [C("bool_logic", a, b), C("bool_logic", a, a), C("count_true", a), C("mask_from_threshold", rn(2, 3), 0.0)]


def boxes(n, scale=10.0):
    xy = torch.rand(n, 2) * scale
    wh = torch.rand(n, 2) * scale * 0.5 + 0.5
    return torch.cat([xy, xy + wh], 1)


@spec("rw_box_ops")
def _():
    b1, b2 = boxes(4), boxes(3)
    return [C("box_area", b1), C("box_inter_union", b1, b2), C("box_iou", b1, b2), C("box_iou", b1.double(), b2.double()),
            C("clip_boxes_to_image", boxes(5, 20.0) - 3.0, (12, 15)), C("box_cxcywh_to_xyxy", torch.rand(2, 3, 4))]


@spec("rw_nms")
def _():
    b = T([[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 11.0, 11.0], [20.0, 20.0, 30.0, 30.0], [0.0, 0.0, 9.0, 10.0],
           [21.0, 19.0, 31.0, 29.0], [50.0, 50.0, 52.0, 52.0]])
    s = T([0.9, 0.8, 0.7, 0.95, 0.6, 0.1])
    return [C("nms", b, s, 0.5), C("nms", b, s, 0.95, note="nothing suppressed"), C("nms", b, s, 0.0, note="everything overlapping suppressed"),
            C("iou_one", b[0], b)]


@spec("rw_attention")
def _():
    q, k, v = rn(2, 4, 8), rn(2, 5, 8), rn(2, 5, 8)
    return [C("attention", q, k, v), C("attention", q, k, v, torch.rand(4, 5) > 0.7, note="with mask"),
            C("causal_mask", 4), C("causal_attention", rn(3, 6))]


@spec("rw_lstm_cell")
def _():
    I, H, B = 6, 5, 3
    w = (rn(4 * H, I) * 0.3, rn(4 * H, H) * 0.3, rn(4 * H) * 0.1, rn(4 * H) * 0.1)
    return [C("lstm_cell", rn(B, I), rn(B, H), rn(B, H), *w), C("lstm", rn(4, B, I), rn(B, H), rn(B, H), *w)]


@spec("rw_gru_cell")
def _():
    return [C("gru_cell", rn(2, 4), rn(2, 3), rn(9, 4) * 0.4, rn(9, 3) * 0.4, rn(9) * 0.1, rn(9) * 0.1)]


@spec("rw_norms")
def _():
    x = rn(3, 8) * 2.0 + 1.0
    return [C("layer_norm", x, rn(8), rn(8)), C("layer_norm", x, None, None), C("layer_norm", x, rn(8), None, 0.1),
            C("rms_norm", x, rn(8)), C("batch_norm_eval", rn(4, 3), rn(3), rn(3).abs() + 0.5, rn(3), rn(3))]


@spec("rw_gelu_bert")
def _():
    return [C("gelu_tanh", rn(10) * 2.0), C("bias_gelu", rn(4), rn(3, 4)), C("mish", rn(8) * 3.0)]


@spec("rw_make_positions")
def _():
    return [C("make_positions", T([[5, 6, 1, 1], [7, 1, 8, 9]]), 1), C("sinusoidal", 4, 8)]


@spec("rw_losses")
def _():
    x = rn(4, 3)
    t = (torch.rand(4, 3) > 0.5).float()
    return [C("sigmoid_focal_loss", x, t), C("sigmoid_focal_loss", x, t, -1.0, 0.0, note="alpha < 0 branch"),
            C("dice_loss", rn(2, 2, 3), (torch.rand(2, 2, 3) > 0.5).float()),
            C("label_smoothing_ce", rn(5, 4), T([0, 3, 1, 1, 2]), 0.1)]


@spec("rw_box_coder")
def _():
    ref, prop = boxes(4), boxes(4)
    codes = rn(4, 4) * 0.5
    codes[0, 2] = 10.0
    return [C("encode", ref, prop, (10.0, 10.0, 5.0, 5.0)), C("decode", codes, prop, note="clip reached for one row"),
            C("decode", codes, prop, 1.0)]


@spec("rw_kmeans")
def _():
    x = torch.cat([rn(6, 2) * 0.3 + 2.0, rn(6, 2) * 0.3 - 2.0, rn(6, 2) * 0.3 + T([2.0, -2.0])])
    return [C("kmeans", x, x[[0, 1, 2]].clone(), 20, note="converges: break"), C("kmeans", x, x[[0, 6, 12]].clone(), 1, note="max_iter reached"),
            C("kmeans", x, T([[2.0, 2.0], [100.0, 100.0]]), 10, note="one empty cluster")]


@spec("rw_conv1d_loops")
def _():
    x, w = rn(2, 9), rn(3, 2, 3)
    return [C("conv1d", x, w), C("conv1d", x, w, 2), C("conv1d", x, w, 1, 2), C("conv1d", x.double(), w.double(), 3, 1)]


@spec("rw_power_iteration")
def _():
    a = T([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]], dtype=f64)
    return [C("power_iteration", a, T([1.0, 1.0, 1.0], dtype=f64), 1e-10, 500, note="converges: early return"),
            C("power_iteration", a, T([1.0, 0.0, 0.0], dtype=f64), 1e-10, 3, note="max_iter reached")]


@spec("rw_viterbi")
def _():
    return [C("viterbi", torch.log_softmax(rn(6, 3), 1), torch.log_softmax(rn(3, 3), 1)),
            C("viterbi", torch.log_softmax(rn(1, 4), 1), torch.log_softmax(rn(4, 4), 1), note="T=1: no history")]


@spec("rw_adam_step")
def _():
    return [C("adam_step", rn(3), rn(3), torch.zeros(3), torch.zeros(3), 1),
            C("adam_step", rn(3), rn(3), rn(3) * 0.1, rn(3).abs() * 0.1, 5, 0.01),
            C("train", rn(4), rn(4), 25)]


@spec("rw_rotary")
def _():
    return [C("rotate_half", rn(3, 4)), C("apply_rotary", rn(5, 8)), C("apply_rotary", rn(3, 4), 100.0)]


@spec("rw_ema_scan")
def _():
    x = rn(7)
    return [C("ema", x, 0.3), C("ema", rn(5, 2), 0.9), C("running_max_min", x)]


@spec("rw_jit_test_style")
def _():
    return [
        C("test_while", T([1.0, 2.0]), T([1.0, 1.0]), 100, note="stops on the tensor condition"),
        C("test_while", T([1.0, 2.0]), T([1.0, 1.0]), 1, note="stops on the count"),
        C("test_if_else", T([3.0]), T([2.0])), C("test_if_else", T([1.0]), T([2.0])),
        C("test_sum_list", [1, 2, 3, 4]), C("test_nested_loops", 5, 4),
        C("test_tuple_return", rn(3)), C("test_loop_unroll", rn(2), 4),
        C("test_multiple_returns", 20), C("test_multiple_returns", 5), C("test_multiple_returns", -5),
    ]


@spec("rw_topk_loop")
def _():
    return [C("topk_by_argmax", rn(10), 3), C("topk_by_argmax", T([5, 1, 9, 3]), 4), C("topk_by_argmax", rn(4), 0)]


@spec("syntax_literals")
def _():
    return [C("int_literals"), C("float_literals"), C("unary_ops", 5, -2.5, True), C("unary_ops", -3, 0.0, False),
            C("in_tuple", 2), C("in_tuple", 4), C("parenthesized", 7, 3)]


@spec("syntax_main_block")
def _():
    return [C("gate", T([0.1, 0.5, 0.9, -2.0]))]


@spec("syntax_decorator")
def _():
    x = rn(5)
    return [C("scaled_residual", x, 0.25), C("caller", x)]


@spec("syntax_isinstance")
def _():
    return [C("describe", rn(2), 3, [1, 2]), C("torch_tensor_annotation", rn(3)), C("torch_tensor_annotation", rn(3), rn(3))]


@spec("tensor_augassign_ops")
def _():
    return [C("all_aug", rn(3, 3), rn(3, 3)), C("all_aug", rn(2, 2, dtype=f64), rn(2, 2, dtype=f64)),
            C("int_bits_aug", T([12, -5, 0, 7])), C("tensor_aug_on_scalar_tensor", rn(5), 3),
            C("tensor_aug_on_scalar_tensor", rn(5), 6, note="index 5 out of range", error=True)]


@spec("cf_while_optional")
def _():
    return [C("walk", [3, 1, 4, 1, 5]), C("walk", [9]), C("halve_until_small", rn(6) * 10.0, 100),
            C("halve_until_small", rn(6) * 10.0, 2, note="break on the limit"), C("halve_until_small", T([0.1]), 5, note="zero trips")]


@spec("err_inplace_overlap")
def _():
    return [
        C("sub_first_row", rn(3, 4), False, note="y -= y[0]: partial overlap", error=True),
        C("sub_first_row", rn(1, 4), False, note="1-row y: y[0] has other strides", error=True),
        C("sub_first_row", rn(3, 4), True),
        C("sub_each_row", rn(3, 4), False, note="for r in y: y -= r", error=True),
        C("sub_each_row", rn(3, 4), True),
        C("add_element", rn(4), False, note="x += x[0]", error=True),
        C("add_element", rn(4), True),
        C("shift_right", rn(6), False, note="x[1:] = x[:-1]", error=True),
        C("shift_right", rn(6), True),
        C("copy_row", rn(3, 4), False, note="x.copy_(x[0])", error=True),
        C("copy_row", rn(3, 4), True),
        C("disjoint_views", rn(3, 4), note="non-overlapping and identical views"),
    ]
