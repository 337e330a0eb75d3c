def arith(a: int, b: int, c: float) -> float:
    x = a + b - c * a / b
    y = a // b % 3
    z = -a ** 2
    w = 2 ** -1
    v = a ** b ** c
    u = (a + b) * (a - b)
    t = a @ b
    s = ~a & b | a ^ b << 2 >> 1
    return x + y + z + w + v + u + t + s
