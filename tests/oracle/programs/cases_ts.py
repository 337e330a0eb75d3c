"""Cases of the `ts_` programs: functions in the style of real TorchScript libraries (issue 14).

Every function of a `ts_` program must compile under torch.jit.script (gen.py refuses otherwise).
"""
import torch

from cases import COVERAGE_EXEMPT, C, T, b8, f32, f64, i32, i64, ri, rn, spec

# `if not isinstance(x, torch.Tensor): raise ...` on a parameter annotated `Tensor` (TorchScript proves
# it dead and skips it), and `torch.jit.is_scripting()`/`is_tracing()` tests, which take one side in
# eager Python.
_DEAD = "statically dead in TorchScript (isinstance of an annotated parameter)"
_EAGER = "one side only in eager Python (torch.jit.is_scripting/is_tracing)"


def _exempt(name, ifs, lines, why):
    d = COVERAGE_EXEMPT.setdefault(name, {})
    for i in ifs:
        d["%d:true" % i] = why
    for l in lines:
        d[l] = why


_exempt("ts_kn_axis_angle", [34], [35], _DEAD)
_exempt("ts_kn_hls", [10], [11], _DEAD)
_exempt("ts_kn_homogeneous", [10, 21], [11, 22], _DEAD)
_exempt("ts_kn_linear_rgb", [9, 17], [10, 18], _DEAD)
_exempt("ts_kn_min_max", [9, 11, 13], [10, 12, 14], _DEAD)
_exempt("ts_kn_pixel_coords", [10, 16], [11, 17], _DEAD)
_exempt("ts_kn_ycbcr", [9, 24], [10, 25], _DEAD)
_exempt("ts_tf_grayscale", [9], [10], _DEAD)
_exempt("ts_tf_normalize", [10], [11], _DEAD)
_exempt("ts_tv_generalized_iou", [16], [17], _DEAD)
_exempt("ts_tv_clip_small", [14], [15, 16, 17, 18], _EAGER)
COVERAGE_EXEMPT["ts_tv_generalized_iou"]["13:false"] = _EAGER


def boxes(n, scale=10.0, dtype=f32):
    xy = torch.rand(n, 2) * scale
    wh = torch.rand(n, 2) * scale * 0.5 + 0.5
    return torch.cat([xy, xy + wh], 1).to(dtype)


# ---------------------------------------------------------------- torchvision.ops

@spec("ts_tv_box_convert")
def _():
    b = boxes(4)
    return [C("xyxy_to_cxcywh", b), C("cxcywh_to_xyxy", b), C("xywh_to_xyxy", b), C("xyxy_to_xywh", b.double())] + \
        [C("convert_all", b, k, note="format pair %d" % k) for k in range(7)] + \
        [C("convert_all", b, 7, note="unsupported format", error=True)]


@spec("ts_tv_box_upcast")
def _():
    b1, b2 = boxes(3), boxes(4)
    ib = (boxes(3) * 3).to(i64)
    return [C("iou", b1, b2), C("iou", b1.double(), b2.double()), C("area", ib), C("area", ib.to(i32)),
            C("area", ib > 5, note="bool boxes are widened to int32"),
            C("upcast_dtype_code", b1), C("upcast_dtype_code", b1.double()), C("upcast_dtype_code", ib.to(i32)),
            C("upcast_dtype_code", ib)]


@spec("ts_tv_generalized_iou")
def _():
    return [C("generalized_box_iou", boxes(3), boxes(2)), C("generalized_box_iou", boxes(2, dtype=f64), boxes(4, dtype=f64)),
            C("diagonal_giou", boxes(4))]


@spec("ts_tv_clip_small")
def _():
    b = boxes(5, 20.0) - 3.0
    return [C("clip_boxes_to_image", b, (12, 15)), C("remove_small_boxes", b, 4.0),
            C("clip_and_filter", b, 10, 12, 3.0), C("clip_and_filter", b, 10, 12, 100.0, note="nothing kept")]


@spec("ts_tv_batched_nms")
def _():
    b = T([[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 11.0, 11.0], [20.0, 20.0, 30.0, 30.0], [0.0, 0.0, 9.0, 10.0],
           [21.0, 19.0, 31.0, 29.0], [50.0, 50.0, 52.0, 52.0]])
    s = T([0.9, 0.8, 0.7, 0.95, 0.6, 0.1])
    return [C("nms", b, s, 0.5), C("batched_nms", b, s, T([0, 1, 0, 0, 1, 1]), 0.5),
            C("batched_nms", b, s, T([0, 0, 0, 0, 0, 0]), 0.3),
            C("batched_nms", torch.zeros(0, 4), torch.zeros(0), torch.zeros(0, dtype=i64), 0.5, note="no boxes")]


@spec("ts_tv_box_coder")
def _():
    ref, prop = boxes(4), boxes(4)
    codes = rn(4, 4) * 0.5
    codes[0, 2] = 10.0
    return [C("encode", ref, prop, (10.0, 10.0, 5.0, 5.0)), C("decode", codes, prop, note="clip reached for one row"),
            C("decode", codes.double(), prop, 1.0)]


@spec("ts_tv_masks_to_boxes")
def _():
    m = torch.zeros(3, 5, 6, dtype=i64)
    m[0, 1:3, 2:5] = 1
    m[1, 0, 0] = 1
    m[1, 4, 5] = 1
    m[2, 2:5, 1] = 3
    return [C("masks_to_boxes", m), C("masks_to_boxes", m > 0), C("masks_to_boxes", torch.zeros(0, 4, 4), note="no masks"),
            C("mask_centroids", m)]


@spec("ts_tv_iou_losses")
def _():
    b1, b2 = boxes(5), boxes(5)
    return [C("giou_loss", b1, b2), C("giou_mean", b1, b2), C("giou_sum", b1, b2),
            C("giou_mean", torch.zeros(0, 4), torch.zeros(0, 4), note="empty: 0 * sum"),
            C("giou_loss", (b1 * 2).to(i64), (b2 * 2).to(i64), note="integer boxes upcast"),
            C("diou_loss", b1.double(), b2.double()), C("diou_mean", b1, b2),
            C("diou_bad", b1, b2, note="unknown reduction", error=True)]


@spec("ts_tv_ciou_loss")
def _():
    b1, b2 = boxes(4), boxes(4)
    return [C("ciou_loss", b1, b2), C("ciou_mean", b1, b2), C("ciou_sum", b1.double(), b2.double()),
            C("ciou_mean", torch.zeros(0, 4), torch.zeros(0, 4), note="empty")]


@spec("ts_tv_focal_loss")
def _():
    x = rn(3, 5)
    t = (torch.rand(3, 5) > 0.6).float()
    return [C("sigmoid_focal_loss", x, t), C("focal_mean", x, t), C("focal_sum_no_alpha", x.double(), t.double()),
            C("focal_bad", x, t, error=True)]


# ---------------------------------------------------------------- torchvision transforms

@spec("ts_tf_grayscale")
def _():
    img = torch.rand(3, 4, 5)
    return [C("rgb_to_grayscale", img), C("rgb_to_grayscale", torch.rand(2, 3, 2, 3).double(), 3),
            C("rgb_to_grayscale", torch.rand(1, 4, 4), 3, note="one channel: copied"),
            C("rgb_to_grayscale", torch.rand(4, 5), note="2-d", error=True),
            C("rgb_to_grayscale", img, 2, error=True)]


@spec("ts_tf_blend")
def _():
    img = torch.rand(3, 4, 4)
    iimg = ri(0, 200, 3, 4, 4, dtype=i32)
    return [C("adjust_brightness", img, 0.5), C("adjust_brightness", iimg, 1.5),
            C("adjust_brightness", img, -1.0, error=True), C("adjust_contrast", img, 0.3),
            C("adjust_contrast", iimg, 2.0), C("adjust_contrast", img.double(), -0.5, error=True),
            C("max_of", img), C("max_of", iimg), C("max_of", iimg.long()), C("max_of", img > 0.5)]


@spec("ts_tf_normalize")
def _():
    img = torch.rand(3, 4, 4)
    return [C("normalize", img, [0.5, 0.4, 0.3], [0.2, 0.25, 0.3]),
            C("normalize", img.double(), [0.5], [2.0], note="broadcast one value"),
            C("normalize", ri(0, 9, 3, 2, 2), [0.5], [2.0], error=True),
            C("normalize", torch.rand(4, 4), [0.5], [2.0], error=True),
            C("normalize", img, [0.5, 0.4, 0.3], [0.2, 0.0, 0.3], error=True),
            C("normalize_inplace", img, [0.5, 0.4, 0.3], [0.2, 0.25, 0.3])]


@spec("ts_tf_crop_pad")
def _():
    img = torch.rand(3, 5, 6)
    return [C("crop", img, 1, 2, 3, 3), C("crop", img, -1, 4, 4, 4, note="padded"),
            C("center_crop", img, [3]), C("center_crop", img, [3, 4]), C("center_crop", img, [7, 9], note="pad"),
            C("center_crop", img, [5, 8], note="pad width only, exact"),
            C("center_crop", torch.rand(5, 6), [4, 8], note="2-d image"),
            C("flip_both", img, True, False), C("flip_both", img, False, True)]


@spec("ts_tf_hsv")
def _():
    img = torch.rand(3, 4, 5)
    img[:, 0, 0] = 0.5
    img[0, 1, 1], img[1, 1, 1], img[2, 1, 1] = 0.9, 0.9, 0.2
    return [C("rgb2hsv", img), C("hsv2rgb", torch.rand(3, 3, 3)), C("roundtrip", img.double())]


@spec("ts_tf_convert_dtype")
def _():
    img = torch.rand(2, 3, 3)
    iimg = ri(0, 1000, 2, 3, 3, dtype=i32)
    return [C("to_float", img, note="same dtype"), C("to_double", img), C("to_int32", img), C("to_int64", img, error=True),
            C("to_float", iimg), C("to_int64", iimg), C("to_double", iimg.long() * 2 ** 40), C("to_float", iimg > 500)]


@spec("ts_tf_erase_gamma")
def _():
    img = torch.rand(3, 4, 4)
    return [C("erase", img, 1, 1, 2, 2, T(0.0)), C("erase", img, 0, 1, 3, 2, torch.rand(3, 3, 2), True),
            C("erase_twice", img, T(7.0)),
            C("adjust_gamma", img, 2.0), C("adjust_gamma", ri(0, 256, 3, 2, 2), 0.5, 1.2),
            C("adjust_gamma", img, -1.0, error=True)]


@spec("ts_tf_gaussian_kernel")
def _():
    return [C("gaussian_kernel2d", [3, 5], [1.0, 2.0], torch.zeros(1)),
            C("gaussian_kernel2d", [1, 3], [0.5, 0.5], torch.zeros(1, dtype=f64), note="one-step linspace"),
            C("blur_rows", torch.rand(2, 8), 3, 1.0)]


# ---------------------------------------------------------------- torchaudio.functional

@spec("ts_au_amplitude_db")
def _():
    spec3 = torch.rand(2, 5, 6) * 10
    return [C("amplitude_to_db", spec3, 20.0, 1e-5, 0.0), C("amplitude_to_db", spec3, 10.0, 1e-10, 1.0, 30.0),
            C("amplitude_to_db", torch.rand(2, 3, 4, 5), 10.0, 1e-10, 0.0, 10.0, note="4-d"),
            C("amplitude_to_db", torch.rand(4, 5), 10.0, 1e-10, 0.0, 10.0, note="2-d"),
            C("db_to_amplitude", rn(3, 4), 1.0, 0.5), C("power_to_db", spec3), C("power_to_db", spec3, 20.0)]


@spec("ts_au_mel")
def _():
    return [C("fbanks_htk", 9, 4), C("fbanks_slaney", 11, 5), C("fbanks_bad_norm", 9, 4, error=True),
            C("mel_of", 440.0, False), C("mel_of", 440.0, True), C("mel_of", 3000.0, True),
            C("mel_bad", 440.0, error=True)]


@spec("ts_au_mu_law")
def _():
    x = torch.rand(10) * 2 - 1
    return [C("mu_law_encoding", x, 256), C("mu_law_encoding", T([-1, 0, 1]), 16, note="integer input"),
            C("mu_law_decoding", ri(0, 256, 8), 256), C("mu_law_decoding", torch.rand(5) * 255, 256),
            C("roundtrip", x.double(), 64)]


@spec("ts_au_deltas")
def _():
    return [C("compute_deltas", rn(2, 3, 7)), C("compute_deltas", rn(4, 6).double(), 3),
            C("compute_deltas", rn(2, 5), 2, error=True)]


@spec("ts_au_gain_shift")
def _():
    w = torch.rand(12) * 2 - 1
    return [C("gain", w, 0.0), C("gain", w, 6.0), C("gain", w), C("dcshift", w, 0.3), C("dcshift", w, 0.3, 0.05),
            C("dcshift", w, -0.4, 0.05), C("dcshift", w, 0.0, 0.05, note="limiter, no shift")]


@spec("ts_au_mask_axis")
def _():
    s = rn(2, 5, 6)
    return [C("mask_along_axis", s, 1, 2, 0.0, 1), C("mask_along_axis", s, 2, 3, -1.0, 2),
            C("mask_along_axis", rn(2, 2, 4, 3), 0, 1, 9.0, 2), C("mask_along_axis", s, 0, 1, 0.0, 3, error=True)]


@spec("ts_au_centroid")
def _():
    return [C("spectral_centroid_from_spec", torch.rand(2, 5, 4), 16000, 8), C("frame_energy", rn(2, 11), 3)]


@spec("ts_au_convolve")
def _():
    x, y = rn(2, 6), rn(2, 3)
    return [C("convolve", x, y), C("convolve_valid", x, y), C("convolve_same", x, y),
            C("convolve", x, rn(1, 3), note="broadcast leading dim"),
            C("convolve", x, rn(3, 3), error=True), C("convolve", x, rn(3), error=True),
            C("convolve_bad", x, y, error=True), C("apply_mode_bad", x, error=True)]


# ---------------------------------------------------------------- Hugging Face transformers

@spec("ts_hf_activations")
def _():
    x = rn(2, 5) * 4
    return [C("act_by_index", x, i) for i in range(7)] + [C("act_by_index", x, 7, note="unknown", error=True),
                                                           C("gelu_python", x.double())]


@spec("ts_hf_attention_mask")
def _():
    m = T([[1, 1, 1, 0], [1, 1, 0, 0]])
    return [C("expand_like", m, torch.zeros(1)), C("expand_float64", m, 3), C("causal_like", m, torch.zeros(1), 0),
            C("causal_like", m, torch.zeros(1, dtype=f64), 2)]


@spec("ts_hf_rotary")
def _():
    q, k = rn(2, 2, 3, 8), rn(2, 2, 3, 8)
    return [C("rotary", q, k, T([[0, 1, 2], [2, 3, 4]])), C("rotate_half", rn(2, 4).double())]


@spec("ts_hf_positions")
def _():
    ids = T([[1, 5, 6, 7, 1, 1], [4, 1, 3, 2, 8, 1]])
    return [C("position_ids_from_input_ids", ids, 1), C("position_ids_from_input_ids", ids, 1, 3),
            C("position_ids_from_embeds", rn(2, 4, 3), 1)]


@spec("ts_hf_t5_buckets")
def _():
    return [C("bucket_table", 5, 7, True), C("bucket_table", 6, 30, False),
            C("relative_position_bucket", ri(-200, 200, 4, 5))]


@spec("ts_hf_attention")
def _():
    q, k, v = rn(2, 3, 4), rn(2, 5, 4), rn(2, 5, 4)
    return [C("attn", q, k, v, False), C("attn", q, k, v, True, 0.1), C("attn", q.double(), k.double(), v.double(), True,
                                                       note="softmax in float32: float32 precision", tol={"rtol": 1e-6, "atol": 1e-7}),
            C("attn", q, k, v, False, 0.0, False, torch.rand(2, 3, 5))]


@spec("ts_hf_deberta_pos")
def _():
    return [C("build_relative_position", 4, 6), C("build_relative_position", 5, 9, 4, 16),
            C("dynamic_expand", ri(0, 5, 1, 1, 3, 4), rn(2, 3, 3), ri(0, 3, 3, 4))]


@spec("ts_hf_pad_truncate")
def _():
    ids = T([[5, 6, 7], [8, 9, 0]])
    return [C("pad_to_length", ids, 5, 0), C("pad_to_length", ids, 6, -1, True), C("pad_to_length", ids, 2, 0),
            C("attention_mask_from_ids", ids, 0), C("batch_lengths", ids, 0)]


# ---------------------------------------------------------------- kornia

@spec("ts_kn_ycbcr")
def _():
    img = torch.rand(2, 3, 3, 4)
    return [C("rgb_to_ycbcr", img), C("rgb_to_ycbcr", torch.rand(4, 3, 3), error=True),
            C("rgb_to_ycbcr", torch.rand(3, 3), error=True), C("ycbcr_to_rgb", img.double())]


@spec("ts_kn_hls")
def _():
    img = torch.rand(3, 4, 5)
    return [C("rgb_to_hls", img), C("rgb_to_hls", torch.rand(2, 3, 2, 2).double()), C("rgb_to_hls", torch.rand(2, 4, 4), error=True),
            C("lightness", img)]


@spec("ts_kn_homogeneous")
def _():
    p = rn(5, 3)
    p[0, 2] = 0.0
    return [C("convert_points_from_homogeneous", p), C("convert_points_from_homogeneous", rn(3), error=True),
            C("convert_points_to_homogeneous", rn(2, 4, 2)), C("convert_points_to_homogeneous", rn(2), error=True),
            C("transform_points", rn(3, 3).double(), rn(4, 2).double())]


@spec("ts_kn_pixel_coords")
def _():
    return [C("rad2deg", rn(4)), C("deg2rad", rn(3, 2).double() * 90), C("normalize_pixel_coordinates", torch.rand(5, 2) * 8, 6, 9),
            C("normalize_pixel_coordinates", torch.rand(5, 3), 6, 9, error=True)]


@spec("ts_kn_meshgrid")
def _():
    return [C("meshgrid_like", torch.zeros(1, 3, 4), False), C("meshgrid_like", torch.zeros(3, 2, dtype=f64), True),
            C("meshgrid_cpu", 2, 3), C("meshgrid_cpu", 1, 1, note="one-step linspace")]


@spec("ts_kn_axis_angle")
def _():
    aa = rn(4, 3)
    aa[1] = 0.0
    return [C("axis_angle_to_rotation_matrix", aa), C("axis_angle_to_rotation_matrix", aa.double() * 0.1),
            C("axis_angle_to_rotation_matrix", rn(3, 4), error=True)]


@spec("ts_kn_linear_rgb")
def _():
    img = torch.rand(3, 4, 4)
    return [C("rgb_to_linear_rgb", img), C("rgb_to_linear_rgb", torch.rand(2, 4, 4), error=True),
            C("linear_rgb_to_rgb", img.double()), C("rgb_to_bgr", img), C("rgb_to_bgr", img[:2], error=True)]


@spec("ts_kn_min_max")
def _():
    return [C("normalize_min_max", rn(2, 3, 4, 5)), C("normalize_min_max", rn(2, 2, 6).double(), -1.0, 1.0),
            C("normalize_min_max", rn(3, 4), error=True)]


# ---------------------------------------------------------------- fastrnns

def lstm_weights(I, H, dtype=f32):
    return (rn(4 * H, I, dtype=dtype) * 0.3, rn(4 * H, H, dtype=dtype) * 0.3, rn(4 * H, dtype=dtype) * 0.1,
            rn(4 * H, dtype=dtype) * 0.1)


@spec("ts_rnn_lstm")
def _():
    I, H, B = 5, 4, 3
    w = lstm_weights(I, H)
    return [C("lstm_cell", rn(B, I), (rn(B, H), rn(B, H)), *w), C("lstm", rn(6, B, I), rn(B, H), rn(B, H), *w)]


@spec("ts_rnn_reverse")
def _():
    I, H, B = 4, 3, 2
    w_ih, w_hh = rn(H, I) * 0.4, rn(H, H) * 0.4
    x = rn(5, B, I)
    return [C("reverse_layer", x, rn(B, H), w_ih, w_hh), C("bidir_layer", x, rn(B, H), w_ih, w_hh),
            C("reverse", [rn(2), rn(3), rn(1)])]


@spec("ts_rnn_gru")
def _():
    I, H, B = 4, 3, 2
    return [C("gru", rn(5, B, I), rn(B, H), rn(3 * H, I) * 0.4, rn(3 * H, H) * 0.4, rn(3 * H) * 0.1, rn(3 * H) * 0.1)]


@spec("ts_rnn_milstm")
def _():
    I, H, B = 4, 3, 2
    g = 4 * H
    return [C("milstm", rn(5, B, I), rn(B, H), rn(B, H), rn(g, I) * 0.4, rn(g, H) * 0.4, rn(g), rn(g), rn(g), rn(g) * 0.1)]


@spec("ts_rnn_stacked")
def _():
    I, H, B = 4, 3, 2
    states = [(rn(B, H), rn(B, H)) for _ in range(3)]
    return [C("stacked", rn(5, B, I), states, rn(4 * H, I) * 0.4, rn(4 * H, H) * 0.4, rn(4 * H, H) * 0.4)]


@spec("ts_rnn_layernorm")
def _():
    I, H, B = 4, 3, 2
    args = (rn(5, B, I), rn(B, H), rn(B, H), rn(4 * H, I) * 0.4, rn(4 * H, H) * 0.4)
    return [C("ln_lstm", *args, 0.0), C("ln_lstm", *args, 0.3, note="dropout in evaluation mode: identity")]


# ---------------------------------------------------------------- losses

@spec("ts_loss_smooth_l1")
def _():
    a, b = rn(3, 4), rn(3, 4)
    return [C("smooth_l1_loss", a, b, 0.5), C("smooth_l1_loss", a, b, 0.0, note="beta ~ 0: L1"),
            C("smooth_l1_mean", a.double(), b.double(), 1.0), C("smooth_l1_mean", torch.zeros(0), torch.zeros(0), 1.0),
            C("smooth_l1_sum", a, b, 0.1)]


@spec("ts_loss_giou_fvcore")
def _():
    b1, b2 = boxes(4), boxes(4)
    bad = b1.clone()
    bad[1, 0] = 100.0
    bad2 = b1.clone()
    bad2[2, 1] = 100.0
    return [C("giou_loss", b1, b2), C("giou_mean", b1, b2), C("giou_sum", b1.double(), b2.double()),
            C("giou_mean", torch.zeros(0, 4), torch.zeros(0, 4)),
            C("giou_loss", bad, b2, error=True), C("giou_loss", bad2, b2, error=True)]


@spec("ts_loss_focal_star")
def _():
    x = rn(3, 4)
    t = (torch.rand(3, 4) > 0.5).float()
    return [C("sigmoid_focal_loss_star", x, t), C("star_mean", x, t), C("star_sum", x.double(), t.to(i64))]


@spec("ts_loss_weighted")
def _():
    p, t = rn(3, 4), rn(3, 4)
    return [C("l1_loss", p, t), C("l1_loss", p, t, torch.rand(3, 4)), C("l1_loss", p, t, None, 5.0),
            C("l1_loss", torch.zeros(0), torch.zeros(0)), C("l1_none", p, t, None), C("l1_none", p, t, 3.0),
            C("l1_sum_avg", p, t, error=True), C("l1_sum", p, t), C("l1_bad", p, t, error=True),
            C("l1_loss", p, rn(4, 3), error=True)]


@spec("ts_loss_label_smoothing")
def _():
    logits = rn(4, 6)
    target = T([1, 5, -100, 0])
    return [C("label_smoothed_nll", logits, target, 0.1), C("label_smoothed_nll", logits, T([-100, -100, -100, -100]), 0.1),
            C("ls_sum", logits.double(), target, 0.2), C("ls_none", logits, T([1, 0, 3, 0]))]


@spec("ts_loss_dice")
def _():
    x = rn(3, 2, 4)
    t = torch.rand(3, 2, 4) > 0.5
    return [C("dice_loss", x, t, 3.0), C("dice_none", x.double(), t)]


@spec("ts_loss_balanced_l1")
def _():
    p, t = rn(3, 4), rn(3, 4)
    return [C("balanced_l1_loss", p, t), C("balanced_none", p, t, 0.5), C("balanced_sum", p.double(), t.double()),
            C("balanced_l1_loss", torch.zeros(0), torch.zeros(0)), C("balanced_none", p, t, 0.0, error=True),
            C("balanced_l1_loss", p, rn(4, 3), error=True)]


@spec("ts_loss_bce_weights")
def _():
    x = rn(3, 4)
    t = (torch.rand(3, 4) > 0.5).float()
    return [C("bce", x, t), C("bce_none", x.double(), t.double()), C("bce_weighted_sum", x, t, torch.rand(3, 4), torch.rand(4) * 3),
            C("bce", x, t, None, T([1.0, 2.0, 3.0, 4.0]))]


# ---------------------------------------------------------------- constructs in isolation

@spec("ts_misc_named_tuples")
def _():
    x = rn(3, 5)
    return [C("max_values_indices", x, 1), C("max_values_indices", ri(0, 9, 4, 3), 0), C("min_indices", x),
            C("sort_desc", x), C("sort_method", T([3, 1, 2, 1])), C("topk_scores", rn(7), 3), C("topk_smallest", rn(6).double(), 2)]


@spec("ts_misc_comprehensions")
def _():
    x = rn(3, 4)
    return [C("squares", 5), C("squares", 0), C("scaled", [1.0, 2.5, -3.0], 2.0), C("row_sums", x), C("unbind_norms", x),
            C("shapes_after", rn(2, 3, 4), [2, 0, -1]), C("padded", [1, 5, 3, 7], 4)]


@spec("ts_misc_list_arith")
def _():
    x = rn(2, 3, 4)
    return [C("concat_lists", [1, 2], [3]), C("new_shape", x, 5, 6), C("shape_list", x), C("repeat_list", [1, 2], 3),
            C("reshape_tail", x, [4, 3]), C("tuple_concat", (1, 2), (3, 4)), C("extend_shape", x)]


@spec("ts_misc_rebind")
def _():
    return [C("rebind", rn(3), rn(3)), C("rebind_scale", rn(4), 3), C("rebind_param", rn(3, 2), 1),
            C("rebind_param", rn(3, 2), 2)]


@spec("ts_misc_no_grad")
def _():
    return [C("ema_update", rn(4), rn(4), 0.9), C("nested", rn(3).double())]


@spec("ts_misc_item_tolist")
def _():
    big = T([2 ** 53 + 1, 5, -7])
    return [C("big_int", big, note="above 2**53: exact"), C("exact_sum", big), C("exact_sum", T([1, 2], dtype=i32)),
            C("float_item", rn(4)), C("int_list", big), C("float_list", rn(3).double()),
            C("linspace_one", 2.0, 5.0), C("method_where", rn(5), rn(5)), C("method_where_scalar", rn(2, 3))]


@spec("ts_misc_ops")
def _():
    x = rn(3, 4)
    return [C("nonzero_rows", x), C("nonzero_tuple", x), C("einsum_bmm", rn(2, 3, 4), rn(2, 4, 2)), C("einsum_trace", rn(3, 3)),
            C("meshgrid_xy", T([1.0, 2.0, 3.0]), T([4.0, 5.0])), C("clamp_tensor", x, T([-0.5, 0.0, -1.0, 0.2]), T(0.5)),
            C("clamp_inplace", x, torch.zeros(3, 1)), C("slice_by_tensor", rn(6), T(4)), C("to_other", ri(0, 5, 3), rn(3).double()),
            C("with_default", rn(3)), C("with_default", rn(3), T(-2.0))]


@spec("ts_misc_dict")
def _():
    return [C("loss_weights", [T(1.0), T(2.0), T(3.0)]), C("loss_weights", [T(1.0), T(2.0), T(3.0), T(4.0)]),
            C("count_labels", [3, 1, 3, 2, 3, 1]), C("key_count", rn(2, 3)),
            C("weight_of", 0), C("weight_of", 1), C("weight_of", 2), C("weight_of", 3, error=True),
            C("id_to_index", [3, 7, 5, 11]), C("sum_values", rn(2, 3))]


@spec("ts_misc_dtype_values")
def _():
    x = rn(3)
    return [C("dtype_code", x), C("dtype_code", x.double()), C("dtype_code", T([1, 2], dtype=i32)), C("dtype_code", T([1, 2])),
            C("dtype_code", x > 0), C("eps_of", x), C("eps_of", x.double()), C("eps_of", T([1])), C("safe_div", x, x.abs()), C("safe_div", T([4, 6]), T([2, 3])),
            C("cast_like", T([1, 2]), x), C("cast_like", x, x),
            C("same_dtype", x, x), C("same_dtype", x, x.double()), C("same_dtype", T([1]), T([2]))]


@spec("ts_misc_device")
def _():
    x = rn(2, 3)
    return [C("zeros_on", x), C("arange_cpu", 4), C("move_like", x, rn(2, 3).double()), C("ones_device_obj", 3)]
