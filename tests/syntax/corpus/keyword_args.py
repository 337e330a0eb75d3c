def scale(x: Tensor, alpha: float = 0.5, beta: float = 1.0, *, clamp: bool = False) -> Tensor:
    return x * alpha + beta


def caller(x: Tensor) -> Tensor:
    a = scale(x, 2.0, beta=3.0)
    b = scale(x, alpha=1.0, clamp=True)
    c = scale(x,)
    return a + b + c
