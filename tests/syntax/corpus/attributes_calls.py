import torch
import torch.nn.functional as F


def f(x: torch.Tensor) -> torch.Tensor:
    y = F.relu(x).sum(dim=-1, keepdim=True)
    z = torch.nn.functional.softmax(x, dim=1).t().contiguous()
    n = x.size(0)
    s = x.shape[1]
    w = torch.zeros(3, 4, dtype=torch.float32)
    return y.view(-1).unsqueeze(0) + z.mean()
