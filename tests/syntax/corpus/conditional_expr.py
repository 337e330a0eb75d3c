def pick(a: float, b: float, c: bool, d: bool) -> float:
    x = a if c else b
    y = a if c else b if d else 0.0
    z = (a if c else b) + 1.0
    return x if x > y else y
