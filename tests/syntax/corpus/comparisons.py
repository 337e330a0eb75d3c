def cmp(a: int, b: int, n: int, xs: List[int]) -> bool:
    r1 = 0 <= a < n
    r2 = a is None
    r3 = a is not None
    r4 = a in xs
    r5 = b not in xs
    r6 = not a == b
    r7 = a != b and a >= b or a <= b
    r8 = not (a and b)
    return r1 and r2 or r3 and not r4
