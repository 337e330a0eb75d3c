import torch
from torch import Tensor
from typing import List


# fastrnns style GRU cell and loop


def gru_cell(x: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor, b_hh: Tensor) -> Tensor:
    gi = torch.mm(x, w_ih.t()) + b_ih
    gh = torch.mm(hx, w_hh.t()) + b_hh
    i_r, i_i, i_n = gi.chunk(3, 1)
    h_r, h_i, h_n = gh.chunk(3, 1)
    resetgate = torch.sigmoid(i_r + h_r)
    inputgate = torch.sigmoid(i_i + h_i)
    newgate = torch.tanh(i_n + resetgate * h_n)
    return newgate + inputgate * (hx - newgate)


def gru(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor, b_hh: Tensor) -> Tensor:
    outputs: List[Tensor] = []
    for x in input.unbind(0):
        hx = gru_cell(x, hx, w_ih, w_hh, b_ih, b_hh)
        outputs += [hx]
    return torch.stack(outputs)
