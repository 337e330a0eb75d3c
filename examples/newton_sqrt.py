def newton_sqrt(a: float, tol: float) -> float:
    """Square root by Newton's method: a loop whose trip count depends on the data."""
    x = a
    while abs(x * x - a) > tol:
        x = 0.5 * (x + a / x)
    return x
