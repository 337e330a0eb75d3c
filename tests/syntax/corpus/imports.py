import torch
import math
import numpy as np
import torch.nn.functional as F
import os.path, sys as system
from torch import Tensor
from typing import List, Tuple, Optional
from typing import (
    Dict,
    Union,  # trailing comma inside parentheses
)
from . import sibling
from .. import parent as p
from ..pkg.mod import thing as other, more
from ...deep import *
