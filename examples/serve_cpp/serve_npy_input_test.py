"""serve_saved_model reads .npy inputs as numpy does: every file numpy would
refuse (and every one it cannot take) is refused with one line naming the
problem, and the odd forms numpy reads are served bit for bit."""

import os
import re

import numpy as np
import tensorflow as tf

from examples.serve_cpp import serve_test_fixture as fixture


class ServeNpyInputTest(fixture.ServeFixture):

    def _refused(self, name: str, contents: bytes, pattern: str):
        self._assert_refused(self._run(self.float_dir, self._write(name, contents)),
                             pattern)

    def _npy(self, array: np.ndarray) -> bytes:
        path = self._save("source.npy", array)
        with open(path, "rb") as file:
            return file.read()

    def test_npy_truncated_data(self):
        data = self._npy(self.images)
        self._refused("truncated.npy", data[:-4], r"truncated data: the header's "
                      r"shape needs 576 bytes, the file holds 572")

    def test_npy_trailing_data(self):
        self._refused("trailing.npy", self._npy(self.images) + b"\0" * 8,
                      r"8 bytes after the data")

    def test_npy_no_npy_magic(self):
        self._refused("text.npy", b"just some text, no array here\n", r"not a \.npy file")

    def test_npy_truncated_header(self):
        self._refused("short.npy", self._npy(self.images)[:40], r"truncated header")

    def test_npy_fortran_order(self):
        self._refused("fortran.npy", self._npy(np.asfortranarray(self.images)),
                      r"Fortran-order arrays are not supported")

    def test_npy_big_endian(self):
        self._refused("big.npy", self._npy(self.images.astype(">f4")),
                      r"big-endian dtype '>f4' is not supported")

    def test_npy_unsupported_dtype(self):
        self._refused("complex.npy", self._npy(self.images.astype(np.complex64)),
                      r"unsupported dtype '<c8'")

    def test_npy_structured_dtype(self):
        self._refused("structured.npy",
                      self._npy(np.zeros(3, dtype=[("a", "<f4"), ("b", "<i4")])),
                      r"structured dtypes are not supported")

    def test_npy_unknown_format_version(self):
        data = bytearray(self._npy(self.images))
        data[7] = 5  # minor version
        self._refused("version.npy", bytes(data), r"unsupported \.npy format version 1\.5")

    def test_npy_garbled_header(self):
        data = bytearray(self._npy(self.images))
        data[10:18] = b"{'descx'"
        self._refused("garbled.npy", bytes(data), r"malformed header: unexpected key")

    @staticmethod
    def _npy_header(shape: str, descr: str = "<f4", data: bytes = b"") -> bytes:
        """A version 1.0 .npy file with this shape text, padded as numpy pads."""
        header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        return (b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") +
                header.encode() + data)

    def test_npy_shape_overflowing_64_bits(self):
        self._refused("overflow.npy", self._npy_header("(4294967296, 4294967296, 4, 1)"),
                      r"overflows 64 bits")

    def test_npy_empty_shape_whose_other_dimensions_overflow(self):
        # No bytes, yet no tensor shape holds (0, 2^62, 2^62, 3); numpy refuses too.
        self._refused("empty_overflow.npy",
                      self._npy_header(f"(0, {2**62}, {2**62}, 3)"), r"overflows 64 bits")

    def test_npy_shape_that_is_no_tuple(self):
        self._refused("int_shape.npy", self._npy_header("(3)", data=bytes(12)),
                      re.escape("shape (3) is not a tuple"))

    def test_npy_negative_dimension_is_named(self):
        self._refused("negative.npy", self._npy_header("(2, -4, 6, 3)"),
                      r"shape holds '-4', not a non-negative integer")

    def test_npy_rank_past_numpy_s_is_refused(self):
        self._refused("rank65.npy", self._npy_header("(" + "1, " * 65 + ")", data=bytes(4)),
                      r"rank 65 is past numpy's largest, 64")

    def test_npy_header_length_past_the_limit_is_named(self):
        data = bytearray(self._npy(self.images.astype("<f4")))
        data[6:12] = b"\x02\x00" + (2**31).to_bytes(4, "little")
        self._refused("long_header.npy", bytes(data),
                      r"header length 2147483648 is past the 1 MiB")

    def test_input_that_is_no_regular_file_is_refused_at_once(self):
        fifo = self._path("fifo.npy")
        os.mkfifo(fifo)  # opening it to read would block until a writer came
        self._assert_refused(self._run(self.float_dir, fifo), r"not a regular file")
        self._assert_refused(self._run(self.float_dir, self.folder), r"not a regular file")
        self._assert_refused(self._run(self.float_dir, self._path("absent.npy")),
                             r"absent\.npy: No such file or directory")

    def test_fortran_order_with_one_long_dimension_is_served(self):
        # (1, 1, 1, 3) lies alike in either order; numpy reads it either way.
        images = fixture.images((1, 1, 1, 3))
        data = self._npy(images).replace(b"'fortran_order': False,",
                                         b"'fortran_order': True, ")
        served = self._served(self.float_dir, self._write("f1.npy", data))
        self._assert_bitwise_equal(served, self.float_model(images))

    def test_one_byte_big_endian_dtype_is_served(self):
        images = fixture.images((1, 4, 6, 3), np.uint8)
        expected = self.uint8_model(images)
        served = self._served(self.uint8_dir, self._save("be.npy", images.astype(">u1")))
        self._assert_bitwise_equal(served, expected)


if __name__ == "__main__":
    tf.test.main()
