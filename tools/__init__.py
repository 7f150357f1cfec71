"""Command-line tools of the workspace (vendoring into a TensorFlow tree)."""
