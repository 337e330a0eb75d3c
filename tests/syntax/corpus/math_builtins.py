import math


def geometry(r: float, n: int) -> float:
    area = math.pi * r ** 2
    c = math.cos(math.pi / n) + math.sin(0.5) - math.exp(-r)
    d = math.sqrt(abs(c)) + math.log(r + 1.0) + math.floor(2.5) + math.ceil(1.2)
    ok = math.isnan(d) or math.isinf(d)
    return area + d + float(ok) + math.inf * 0 + len([1, 2]) + sum([1, 2]) + min(1, 2)
