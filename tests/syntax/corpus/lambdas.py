square = lambda x: x * x
add = lambda a, b=1: a + b
noargs = lambda: 0
varargs = lambda *a, **k: (a, k)
key = sorted([3, 1, 2], key=lambda v: -v)
nested = lambda x: lambda y: x + y
cond = lambda x: x if x else None
