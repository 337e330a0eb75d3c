def fib(n: int) -> int:
    """Recursion compiles to native calls between functions."""
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
