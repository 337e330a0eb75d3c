def find(xs: List[int], target: int) -> int:
    for i in range(len(xs)):
        if xs[i] == target:
            return i
        elif xs[i] > target:
            return -1
    return -2
