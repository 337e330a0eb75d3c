match = 1
case = 2
type = 3
_ = match + case + type
print(match, case, _)
