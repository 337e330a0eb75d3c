import numpy as np


def conditional_op(x: np.ndarray, threshold: float) -> np.ndarray:
    if x.sum() > threshold:
        return x * np.float32(2.0)
    else:
        return x + np.float32(1.0)
