import torch
from torch import Tensor
from typing import List, Tuple


# fastrnns style stacked layers with a list of (h, c) states and output_states += [state]


def cell(x: Tensor, state: Tuple[Tensor, Tensor], w: Tensor, u: Tensor) -> Tuple[Tensor, Tensor]:
    hx, cx = state
    gates = x @ w.t() + hx @ u.t()
    i, f, g, o = gates.chunk(4, 1)
    cy = torch.sigmoid(f) * cx + torch.sigmoid(i) * torch.tanh(g)
    hy = torch.sigmoid(o) * torch.tanh(cy)
    return hy, cy


def layer(input: Tensor, state: Tuple[Tensor, Tensor], w: Tensor, u: Tensor) -> Tuple[Tensor, Tuple[Tensor, Tensor]]:
    outputs = torch.jit.annotate(List[Tensor], [])
    for x in input.unbind(0):
        state = cell(x, state, w, u)
        outputs += [state[0]]
    return torch.stack(outputs), state


def stacked(input: Tensor, states: List[Tuple[Tensor, Tensor]], w0: Tensor, w: Tensor,
            u: Tensor) -> Tuple[Tensor, List[Tuple[Tensor, Tensor]]]:
    output_states = torch.jit.annotate(List[Tuple[Tensor, Tensor]], [])
    output = input
    i = 0
    for state in states:
        output, out_state = layer(output, state, w0 if i == 0 else w, u)
        output_states += [out_state]
        i += 1
    return output, output_states
