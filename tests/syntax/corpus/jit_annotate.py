import torch
from typing import List, Dict


@torch.jit.script
def collect(x: torch.Tensor, n: int) -> List[int]:
    out = torch.jit.annotate(List[int], [])
    seen = torch.jit.annotate(Dict[str, int], {})
    for i in range(n):
        if x[i].item() > 0.0:
            out.append(i)
        else:
            raise Exception("negative at " + str(i))
    lst = [0] * n
    lst[0] = 1
    return out
