import torch
from typing import List


def primes_below(n: int) -> List[int]:
    is_prime: List[bool] = []
    for i in range(n):
        is_prime.append(i >= 2)
    i = 2
    while i * i < n:
        if is_prime[i]:
            j = i * i
            while j < n:
                is_prime[j] = False
                j += i
        i += 1
    out: List[int] = []
    for k in range(n):
        if is_prime[k]:
            out.append(k)
    return out
