def comps(xs, ys):
    a = [x * 2 for x in xs]
    b = [x for x in xs if x > 0 if x < 10]
    c = {x for x in xs}
    d = {k: v for k, v in zip(xs, ys)}
    e = (x for x in xs)
    f = sum(x for x in xs)
    g = [(x, y) for x in xs for y in ys if x != y]
    h = [y for x in xs if (y := x * 2) > 3]
    return a, b, c, d, e, f, g, h
