def f(a, b,):
    return (a, b,)


x = f(1, 2,)
y = [1,]
z = {1: 2,}
w = x[1,]
from m import (a, b,)
