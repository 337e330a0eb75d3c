def gen(n):
    yield
    yield n
    yield n, n + 1
    x = yield
    y = yield from range(n)
    z = (yield n) + 1
    return x
