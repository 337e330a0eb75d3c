import torch
from torch import Tensor
from typing import Tuple


# fastrnns style multiplicative-integration LSTM cell, run over time steps


def milstm_cell(x: Tensor, hx: Tensor, cx: Tensor, w_ih: Tensor, w_hh: Tensor, alpha: Tensor, beta_i: Tensor,
                beta_h: Tensor, bias: Tensor) -> Tuple[Tensor, Tensor]:
    Wx = x.mm(w_ih.t())
    Uz = hx.mm(w_hh.t())
    gates = alpha * Wx * Uz + beta_i * Wx + beta_h * Uz + bias
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = ingate.sigmoid()
    forgetgate = forgetgate.sigmoid()
    cellgate = cellgate.tanh()
    outgate = outgate.sigmoid()
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * cy.tanh()
    return hy, cy


def milstm(input: Tensor, hx: Tensor, cx: Tensor, w_ih: Tensor, w_hh: Tensor, alpha: Tensor, beta_i: Tensor,
           beta_h: Tensor, bias: Tensor) -> Tensor:
    steps = [t for t in input.unbind(0)]
    for t in steps:
        hx, cx = milstm_cell(t, hx, cx, w_ih, w_hh, alpha, beta_i, beta_h, bias)
    return hx
