import torch


def norm_dim(x: torch.Tensor) -> torch.Tensor:
    return torch.norm(x, dim=1)


def norm_dim_keepdim(x: torch.Tensor) -> torch.Tensor:
    return x.norm(dim=1, keepdim=True)


def norm_all(x: torch.Tensor) -> torch.Tensor:
    return torch.norm(x)


def var_default(x: torch.Tensor) -> torch.Tensor:
    return x.var()


def std_unbiased_false(x: torch.Tensor) -> torch.Tensor:
    return torch.std(x, dim=0, unbiased=False)
