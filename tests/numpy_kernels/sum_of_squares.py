import numpy as np

# A Numba-style kernel: no annotations; the call's arguments type the parameters.


def sum_of_squares(n):
    total = 0
    for i in range(n):
        total += i * i
    return total
