def posonly(a, b, /, c, d=1, *args, e, f=2, **kwargs):
    return a


def star_only(a, *, b):
    return b


def untyped(x, y):
    return x + y


def typed_star(*args: int, **kwargs: float) -> None:
    pass
