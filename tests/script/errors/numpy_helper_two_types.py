# A NumPy-style helper's unannotated parameter takes the type its calls pass; here one call
# passes an int and another an array, and a function has one signature.
import numpy as np


def twice(v):
    return v * 2


def kernel(x, n: int):
    return twice(n) + twice(x)
