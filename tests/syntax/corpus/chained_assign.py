def chain() -> int:
    a = b = c = 0
    x = y = [1, 2]
    return a + b + c
