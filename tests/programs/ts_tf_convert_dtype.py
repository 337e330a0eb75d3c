import torch
from torch import Tensor


# torchvision transforms style convert_image_dtype between float and integer images


def _max_value(dtype: torch.dtype) -> int:
    if dtype == torch.int32:
        return 2147483647
    if dtype == torch.int64:
        return 9223372036854775807
    return 1


def convert_image_dtype(image: Tensor, dtype: torch.dtype = torch.float) -> Tensor:
    if image.dtype == dtype:
        return image
    if image.is_floating_point():
        if torch.tensor(0, dtype=dtype).is_floating_point():
            return image.to(dtype)
        if dtype == torch.int64:
            raise RuntimeError(f"The cast from {image.dtype} to {dtype} cannot be performed safely.")
        eps = 1e-3
        max_val = float(_max_value(dtype))
        result = image.mul(max_val + 1.0 - eps)
        return result.to(dtype)
    else:
        input_max = float(_max_value(image.dtype))
        if torch.tensor(0, dtype=dtype).is_floating_point():
            image = image.to(dtype)
            return image / input_max
        return image.to(dtype)


def to_float(image: Tensor) -> Tensor:
    return convert_image_dtype(image)


def to_double(image: Tensor) -> Tensor:
    return convert_image_dtype(image, torch.float64)


def to_int32(image: Tensor) -> Tensor:
    return convert_image_dtype(image, torch.int32)


def to_int64(image: Tensor) -> Tensor:
    return convert_image_dtype(image, dtype=torch.int64)
