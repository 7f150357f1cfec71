"""MyBilinear: a batched bilinear resize op with a C++ CPU kernel.

    from tensorflow_ops.my_bilinear import my_bilinear, MyBilinearLayer
    resized = my_bilinear(images, (64, 64), align_corners=False, half_pixel_centers=True)
    layer = MyBilinearLayer((64, 64), align_corners=False, half_pixel_centers=True)

`ops` holds the generated op functions of the loaded library (`ops.my_bilinear`).
`SUPPORTS_JIT_COMPILE` says whether the ops compile under jit_compile=True.
"""

from tensorflow_ops.my_bilinear.python.my_bilinear_layer import MyBilinearLayer
from tensorflow_ops.my_bilinear.python.my_bilinear_ops import my_bilinear
from tensorflow_ops.my_bilinear.python.my_bilinear_ops import ops
from tensorflow_ops.my_bilinear.python.my_bilinear_ops import SUPPORTS_JIT_COMPILE

__all__ = ["MyBilinearLayer", "SUPPORTS_JIT_COMPILE", "my_bilinear", "ops"]
