import torch
from torch import Tensor
from typing import List, Tuple


# fastrnns style LSTM: a cell and a loop over unbind(0) with list += [x]


def lstm_cell(input: Tensor, hidden: Tuple[Tensor, Tensor], w_ih: Tensor, w_hh: Tensor, b_ih: Tensor,
              b_hh: Tensor) -> Tuple[Tensor, Tensor]:
    hx, cx = hidden
    gates = torch.mm(input, w_ih.t()) + torch.mm(hx, w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy


def lstm(input: Tensor, hx: Tensor, cx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor,
         b_hh: Tensor) -> Tuple[Tensor, Tuple[Tensor, Tensor]]:
    inputs = input.unbind(0)
    outputs = torch.jit.annotate(List[Tensor], [])
    state = (hx, cx)
    for i in range(len(inputs)):
        state = lstm_cell(inputs[i], state, w_ih, w_hh, b_ih, b_hh)
        outputs += [state[0]]
    return torch.stack(outputs), state
