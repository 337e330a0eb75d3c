def ops(x: int, t: Tensor, m: Tensor) -> int:
    x += 1
    x -= 2
    x *= 3
    x /= 4
    x //= 5
    x %= 6
    x **= 2
    t @= m
    x &= 7
    x |= 8
    x ^= 9
    x <<= 1
    x >>= 1
    return x
