import torch
import torch.nn.functional as F
from torch import Tensor
from typing import List, Tuple


# fastrnns style layer-normalized LSTM with dropout between steps (evaluation mode)


def layer_norm(x: Tensor, eps: float = 1e-5) -> Tensor:
    mu = x.mean(-1, keepdim=True)
    sigma = x.std(-1, keepdim=True, unbiased=False)
    return (x - mu) / (sigma + eps)


def ln_lstm_cell(x: Tensor, hx: Tensor, cx: Tensor, w_ih: Tensor, w_hh: Tensor) -> Tuple[Tensor, Tensor]:
    igates = layer_norm(torch.mm(x, w_ih.t()))
    hgates = layer_norm(torch.mm(hx, w_hh.t()))
    gates = igates + hgates
    i, f, g, o = gates.chunk(4, 1)
    cy = layer_norm(torch.sigmoid(f) * cx + torch.sigmoid(i) * torch.tanh(g))
    hy = torch.sigmoid(o) * torch.tanh(cy)
    return hy, cy


def ln_lstm(input: Tensor, hx: Tensor, cx: Tensor, w_ih: Tensor, w_hh: Tensor, dropout: float) -> Tensor:
    outputs: List[Tensor] = []
    for x in input.unbind(0):
        hx, cx = ln_lstm_cell(x, hx, cx, w_ih, w_hh)
        out = hx
        if dropout > 0:
            out = F.dropout(out, p=dropout, training=False)
        outputs += [out]
    return torch.stack(outputs, 0)
