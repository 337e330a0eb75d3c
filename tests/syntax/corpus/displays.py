empty_list = []
empty_dict = {}
lst = [1, 2, 3,]
st = {1, 2, 3}
dct = {"a": 1, "b": [1, 2], **other}
tup = (1, 2, 3)
merged = [*a, *b, 1]
mixed = {*a, 1}
call = f(*args, **kwargs)
call2 = f(1, *args, k=2, **kw)
nested = [[1, 2], [3, 4], ((5,), {6: 7})]
ell = ...
