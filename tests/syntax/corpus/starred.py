first, *middle, last = range(10)
*init, = [1, 2]
a, b = *c, d
print(*args, sep="")
