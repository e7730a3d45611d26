"""Reading a zstd-compressed JSON-lines file (Codex's ``.jsonl.zst``) as a stream."""

from __future__ import annotations

import io
from typing import BinaryIO

import zstandard


class ZstdStream:
    """The decompressed bytes of a zstd file, every frame in turn.

    Damage is raised as :class:`zstandard.ZstdError` only once everything decoded
    before it has been read, so the lines before it are kept: a corrupt frame, and a
    file that ends inside a frame (truncated, or still being written).
    """

    _READ = 64 << 10

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._decompressor = zstandard.ZstdDecompressor()
        self._frame = self._decompressor.decompressobj()
        self._in_frame = False
        self._buffer = bytearray()
        self._error: zstandard.ZstdError | None = None
        self._done = False

    def read(self, size: int = -1) -> bytes:
        while (size < 0 or len(self._buffer) < size) and not self._done:
            self._fill()
        if not self._buffer and self._error is not None:
            error, self._error = self._error, None
            raise error
        cut = len(self._buffer) if size < 0 else min(size, len(self._buffer))
        out = bytes(self._buffer[:cut])
        del self._buffer[:cut]
        return out

    def _fill(self) -> None:
        data = self._raw.read(self._READ)
        if not data:
            self._done = True
            if self._in_frame:
                self._error = zstandard.ZstdError("the file ends inside a frame (truncated?)")
            return
        try:
            while data:
                self._buffer += self._frame.decompress(data)
                self._in_frame = True
                if not self._frame.eof:
                    break
                data = self._frame.unused_data
                self._frame = self._decompressor.decompressobj()
                self._in_frame = False
        except zstandard.ZstdError as exc:
            self._done, self._error = True, exc

    def seek(self, offset: int, whence: int = 0) -> int:
        raise io.UnsupportedOperation("a zstd stream only reads forward")

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> ZstdStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
