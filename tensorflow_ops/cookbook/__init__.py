"""Python-level ways to define a layer and its gradient, one module each:

- `swish`: compose built-in ops (a Lambda over a registered function, a Layer);
- `numpy_fft`: NumPy inside the graph with tf.numpy_function, plus its gradient;
- `custom_gradients`: tf.custom_gradient for stability, speed and second order;
- `two_gradients`: one forward with two gradients (custom_gradient wrappers and
  gradient_override_map).

The C++ examples live in their own op packages: `tensorflow_ops.zero_out` (no
gradient) and `tensorflow_ops.split_at` (two outputs, an integer input). The
docs/choosing_a_path.md compares them all.
"""
