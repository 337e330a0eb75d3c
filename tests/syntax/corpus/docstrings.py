"""Module docstring."""


def documented(x: int) -> int:
    """Return x.

    A multi-line docstring with 'quotes' and "double quotes".
    """
    return x


def single(x):
    'single-quoted docstring'
    return x
