"""The derivative vocabulary (`adlite.derivatives.Ops`) implemented with the tape's tensor
functions, so that the shared formulas run on tensors.

Contract: `TENSOR_OPS` has one method per word of the vocabulary; each is a recorded tensor
function of `functional` (comparisons and logic give tensors that never require grad), so a
formula run with recording on (`create_graph=True`) is itself differentiable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import functional as F


class TensorOps:
    add = staticmethod(F.add)
    sub = staticmethod(F.subtract)
    mul = staticmethod(F.multiply)
    div = staticmethod(F.divide)
    neg = staticmethod(F.negative)
    pow = staticmethod(F.power)
    floordiv = staticmethod(F.floor_divide)
    exp = staticmethod(F.exp)
    log = staticmethod(F.log)
    sqrt = staticmethod(F.sqrt)
    sin = staticmethod(F.sin)
    cos = staticmethod(F.cos)
    sinh = staticmethod(F.sinh)
    cosh = staticmethod(F.cosh)
    sign = staticmethod(F.sign)
    lt = staticmethod(F.less)
    le = staticmethod(F.less_equal)
    gt = staticmethod(F.greater)
    ge = staticmethod(F.greater_equal)
    eq = staticmethod(F.equal)
    ne = staticmethod(F.not_equal)
    and_ = staticmethod(F.logical_and)
    or_ = staticmethod(F.logical_or)
    not_ = staticmethod(F.logical_not)
    select = staticmethod(F.where)

    @staticmethod
    def constant(value: float, like: Any) -> Any:
        return F.constant(np.asarray(value, dtype=np.result_type(like.dtype, 1.0)))


TENSOR_OPS = TensorOps()
