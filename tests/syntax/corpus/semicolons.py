def semi() -> int:
    a = 1; b = 2; c = a + b;
    if a: pass
    for i in range(3): a += i
    while False: pass
    return c
