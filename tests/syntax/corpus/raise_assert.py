def check(x: int) -> int:
    assert x > 0
    assert x < 100, "x must be below 100"
    if x == 13:
        raise ValueError("unlucky: " + str(x))
    if x == 7:
        raise RuntimeError(f"bad value {x}") from None
    if x == 8:
        raise
    return x
