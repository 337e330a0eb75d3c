def mandel(n: int, max_iter: int) -> int:
    count = 0
    for py in range(n):
        for px in range(n):
            cr = -2.0 + 3.0 * px / n
            ci = -1.5 + 3.0 * py / n
            zr = 0.0
            zi = 0.0
            k = 0
            while k < max_iter and zr * zr + zi * zi <= 4.0:
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                k += 1
            if k == max_iter:
                count += 1
    return count
