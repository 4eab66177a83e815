"""Pictures of the games: a small Pillow canvas for ``rgb_array`` frames and a pygame window.

Frames are drawn with Pillow (no window, no display needed); ``render_mode="human"``
shows the same frame in a pygame window that pumps its events on every frame so it
stays responsive. pygame is imported only when a window is opened. :func:`save_gif`
streams frames into an animated GIF, one at a time.
"""

from __future__ import annotations

import io
import math
import os
import struct
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, BinaryIO

import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageFont

from ratenvs.common.atomic import atomic_file

Colour = tuple[int, int, int]
BACKGROUND: Colour = (24, 92, 60)  # card-table green
INK: Colour = (20, 20, 20)
PAPER: Colour = (248, 246, 238)
MUTED: Colour = (160, 170, 160)
HIGHLIGHT: Colour = (250, 204, 21)
WHITE: Colour = (255, 255, 255)


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at ``size`` pixels (cached)."""
    return ImageFont.load_default(size=size)


class Canvas:
    """An RGB picture to draw a game state on, returned as an (H, W, 3) uint8 array."""

    def __init__(self, width: int, height: int, background: Colour = BACKGROUND) -> None:
        self.width, self.height = width, height
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int = 16,
        fill: Colour = WHITE,
        anchor: str = "la",
    ) -> None:
        """Write ``text`` at ``xy`` (Pillow anchor: "la" left-top, "mm" centre, ...)."""
        self.draw.text(xy, text, font=font(size), fill=fill, anchor=anchor)

    def box(
        self,
        rect: tuple[float, float, float, float],
        fill: Colour | None = PAPER,
        outline: Colour | None = INK,
        width: int = 2,
        radius: int = 6,
    ) -> None:
        """A rounded rectangle ``(x0, y0, x1, y1)``."""
        self.draw.rounded_rectangle(rect, radius=radius, fill=fill, outline=outline, width=width)

    def circle(
        self,
        centre: tuple[float, float],
        radius: float,
        fill: Colour | None,
        outline: Colour | None = INK,
        width: int = 2,
    ) -> None:
        x, y = centre
        self.draw.ellipse(
            (x - radius, y - radius, x + radius, y + radius),
            fill=fill,
            outline=outline,
            width=width,
        )

    def to_array(self) -> np.ndarray:
        """The frame as an (H, W, 3) uint8 array."""
        return np.asarray(self.image, dtype=np.uint8).copy()


class Sprite(Canvas):
    """A transparent canvas for a small picture (a card, a piece) pasted onto frames."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.image = Image.new("RGBA", (width, height), (0, 0, 0, 0))
        self.draw = ImageDraw.Draw(self.image)


def paste(canvas: Canvas, sprite: Image.Image, xy: tuple[float, float]) -> None:
    """Paste a transparent ``sprite`` onto ``canvas`` with its top-left corner at ``xy``."""
    canvas.image.paste(sprite, (round(xy[0]), round(xy[1])), sprite)


@lru_cache(maxsize=2048)
def _label_sprite(text: str, size: int, fill: Colour, anchor: str) -> tuple[Image.Image, int, int]:
    """A text label as a transparent picture and its offset from the anchor point (cached)."""
    left, top, right, bottom = font(size).getbbox(text, anchor=anchor)
    image = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)), (0, 0, 0, 0))
    ImageDraw.Draw(image).text((-left, -top), text, font=font(size), fill=fill, anchor=anchor)
    return image, int(left), int(top)


def label(
    canvas: Canvas,
    xy: tuple[float, float],
    text: str,
    size: int = 16,
    fill: Colour = WHITE,
    anchor: str = "la",
) -> int:
    """As :meth:`Canvas.text`, from a cache of rendered labels (most repeat from frame to
    frame, and drawing text is the slow part of a frame); returns the label's width."""
    image, dx, dy = _label_sprite(text, size, fill, anchor)
    canvas.image.paste(image, (round(xy[0]) + dx, round(xy[1]) + dy), image)
    return image.width


TEXT_INSTEAD = (
    'render_mode="human" without pygame shows the table as text; '
    'pip install "ratenvs[render]" for the window'
)
"""The warning of a "human" render where pygame is not installed (the envs-only install)."""


def pygame_installed() -> bool:
    """Whether pygame can be imported here (the ``render`` extra): "human" rendering opens
    a window only then, and prints the table as text otherwise."""
    import importlib.util

    return importlib.util.find_spec("pygame") is not None


class HumanWindow:
    """A pygame window showing frames. Closing it (the window's close button) ends it: later
    frames are not shown until :meth:`close` (the env's ``close()``) lets it open again.
    pygame has one window a process: several "human" envs take turns in it, and it closes
    when the last of them closes. A copy (deepcopy, pickle) has a window of its own, not yet
    open."""

    _open = 0
    """How many windows of this process are open (the display quits when none is)."""
    _showing: HumanWindow | None = None
    """The window whose frame the display shows now."""

    def __init__(self, title: str) -> None:
        self.title = title
        self._screen: Any = None
        self._pygame: Any = None
        self._clock: Any = None
        self._dismissed = False

    def __getstate__(self) -> dict[str, Any]:
        return {"title": self.title}  # pygame's surface and clock are not copied

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["title"])  # type: ignore[misc]

    def show(self, frame: np.ndarray, fps: float) -> None:
        """Display ``frame`` and handle pending window events (keeps the window responsive)."""
        if self._dismissed:
            return
        if self._pygame is None:
            os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
            try:
                import pygame
            except ImportError as err:  # pragma: no cover - depends on the install
                raise ImportError(
                    'render_mode="human" needs pygame: pip install "ratenvs[render]"'
                ) from err

            self._pygame = pygame
            self._clock = pygame.time.Clock()
            HumanWindow._open += 1
        pygame = self._pygame
        if not pygame.display.get_init():  # closed under it (another env's close)
            pygame.display.init()
            self._screen = None
        h, w = frame.shape[:2]
        if (
            self._screen is None
            or HumanWindow._showing is not self  # another env's frame was shown last
            or self._screen.get_size() != (w, h)
        ):
            self._screen = pygame.display.set_mode((w, h))
            pygame.display.set_caption(self.title)
            HumanWindow._showing = self
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self.close()
                self._dismissed = True
                return
        surface = pygame.surfarray.make_surface(np.transpose(frame, (1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(fps)

    @property
    def is_open(self) -> bool:
        return self._screen is not None

    def close(self) -> None:
        """Close the window (pygame's display once no other window is open); a later frame
        opens it again."""
        if self._pygame is not None:
            HumanWindow._open = max(0, HumanWindow._open - 1)
            if HumanWindow._open == 0:
                self._pygame.display.quit()
        if HumanWindow._showing is self:
            HumanWindow._showing = None
        self._screen = None
        self._pygame = None
        self._dismissed = False


def check_render_view(value: Any, agents: list[str]) -> str:
    """``render_view`` is "omniscient" or one of the env's agent names."""
    if value == "omniscient" or value in agents:
        return value
    raise ValueError(f"option 'render_view' must be 'omniscient' or one of {agents}, got {value!r}")


GIF_MAX_DELAY = 0xFFFF
"""The longest delay a GIF frame can carry, in hundredths of a second (655.35 s)."""

GIF_MAX_SIDE = 0xFFFF
"""The widest and tallest a GIF can be, in pixels."""

_GIF_COLOURS = 256


def _gif_frame_ms(fps: float) -> int:
    """Milliseconds per frame at ``fps`` (whole, as before), checked to fit a GIF delay."""
    if not (math.isfinite(fps) and fps > 0):
        raise ValueError(f"fps must be a positive number, got {fps!r}")
    ms = int(1000 / fps)
    if not 10 <= ms <= 10 * GIF_MAX_DELAY:
        raise ValueError(
            f"fps must be between {1000 / (10 * GIF_MAX_DELAY):.6g} and 100 (a GIF frame "
            f"lasts 0.01 s to {GIF_MAX_DELAY / 100} s), got {fps}"
        )
    return ms


def _skip_sub_blocks(data: memoryview, pos: int) -> int:
    """The position after the data sub-blocks starting at ``pos`` (and their 0 terminator)."""
    while length := data[pos]:
        pos += length + 1
    return pos + 1


def _gif_image_block(image: Image.Image) -> tuple[bytes, bytes]:
    """The colour table and the image data (LZW minimum code size, data sub-blocks, 0
    terminator) of a palette image, as Pillow's GIF encoder writes them for that image
    saved alone (non-interlaced, its palette untouched)."""
    buffer = io.BytesIO()
    image.save(buffer, format="GIF", optimize=False, interlace=False)
    data = buffer.getbuffer()
    if bytes(data[:6]) not in (b"GIF87a", b"GIF89a"):
        raise RuntimeError("Pillow wrote no GIF header")
    table = b""
    packed, pos = data[10], 13
    if packed & 0x80:  # global colour table
        end = pos + (3 << ((packed & 0x07) + 1))
        table, pos = bytes(data[pos:end]), end
    while pos < len(data):
        if data[pos] == 0x21:  # extension: label, data sub-blocks
            pos = _skip_sub_blocks(data, pos + 2)
        elif data[pos] == 0x2C:  # image descriptor
            flags, pos = data[pos + 9], pos + 10
            if flags & 0x40:
                raise RuntimeError("Pillow wrote an interlaced GIF frame")
            if flags & 0x80:  # local colour table
                end = pos + (3 << ((flags & 0x07) + 1))
                table, pos = bytes(data[pos:end]), end
            if not table:
                raise RuntimeError("Pillow wrote a GIF frame without a colour table")
            return table, bytes(data[pos : _skip_sub_blocks(data, pos + 1)])
        else:
            break
    raise RuntimeError("Pillow wrote a GIF without an image")


def _table_bits(table: bytes) -> int:
    """The 3-bit size field of a colour table of 3 * 2 ** (bits + 1) bytes."""
    return (len(table) // 3).bit_length() - 2


def _gif_delay(ms: int) -> bytes:
    """A graphic control extension: no transparency, no disposal, the frame's delay."""
    return b"!\xf9\x04" + struct.pack("<BHBB", 0, ms // 10, 0, 0)


class _GifStream:
    """An animated GIF written frame by frame; it holds the last frame (as given and as
    shown) and its encoded image, never more.

    Each frame is palette-quantised on its own (Pillow, 256 colours by median cut, as
    Pillow's own GIF writer does). The first frame carries the global colour table;
    each later one only the rectangle that changed, with its own local colour table
    (no disposal, so it is drawn over the frame before). A frame identical to the one
    before lengthens that frame's delay instead. Output and look are those of Pillow's
    ``save(save_all=True, loop=0, optimize=False)``.
    """

    def __init__(self, fh: BinaryIO, frame_ms: int) -> None:
        self._fh = fh
        self._frame_ms = frame_ms
        self._size: tuple[int, int] | None = None
        self._previous_array: np.ndarray | None = None  # the last frame given
        self._previous: Image.Image | None = None  # the last frame as shown (quantised, RGB)
        self._pending = b""  # the last frame's image block, written once its delay is known
        self._pending_ms = 0
        self.frames = 0

    def _array(self, frame: np.ndarray) -> np.ndarray:
        """``frame`` as an (H, W, 3) uint8 array of the GIF's size (a ValueError if not)."""
        array = np.asarray(frame)
        if array.dtype != np.uint8 or array.ndim != 3 or array.shape[2] != 3:
            raise ValueError(
                f"frame {self.frames}: expected an (H, W, 3) uint8 array, "
                f"got shape {array.shape} dtype {array.dtype}"
            )
        height, width = array.shape[:2]
        if not (0 < width <= GIF_MAX_SIDE and 0 < height <= GIF_MAX_SIDE):
            raise ValueError(
                f"frame {self.frames} is {width}x{height} pixels: a GIF frame has 1 to "
                f"{GIF_MAX_SIDE} pixels a side"
            )
        if self._size is not None and (width, height) != self._size:
            raise ValueError(
                f"frame {self.frames} is {width}x{height} pixels, frame 0 is "
                f"{self._size[0]}x{self._size[1]}: every frame of a GIF has one size"
            )
        return array

    def _lengthen(self) -> bool:
        """Add a frame's time to the last frame's delay, if the delay can hold it."""
        if (self._pending_ms + self._frame_ms) // 10 > GIF_MAX_DELAY:
            return False
        self._pending_ms += self._frame_ms
        self.frames += 1
        return True

    def add(self, frame: np.ndarray) -> None:
        """Quantise ``frame`` and write the frame before it (whose delay is now known)."""
        array = self._array(frame)
        if (
            self._previous_array is not None
            and np.array_equal(array, self._previous_array)
            and self._lengthen()
        ):
            return  # the same picture quantises the same: skip the slow part
        self._previous_array = array.copy()  # a copy: the caller may reuse its buffer
        indexed = Image.fromarray(array).quantize(_GIF_COLOURS)
        shown = indexed.convert("RGB")
        width, height = indexed.size
        if self._previous is None:
            table, data = _gif_image_block(indexed)
            self._size = (width, height)
            self._fh.write(
                b"GIF89a"
                + struct.pack("<HHBBB", width, height, 0x80 | _table_bits(table), 0, 0)
                + table
                + b"!\xff\x0bNETSCAPE2.0\x03\x01"
                + struct.pack("<H", 0)  # loop forever
                + b"\x00"
            )
            block = b"," + struct.pack("<HHHHB", 0, 0, width, height, 0) + data
        else:
            bbox = ImageChops.difference(shown, self._previous).getbbox()
            if bbox is None:
                if self._lengthen():
                    return
                bbox = (0, 0, 1, 1)  # the delay is full: repeat one pixel as a new frame
            if bbox != (0, 0, width, height):
                indexed = indexed.crop(bbox)
            table, data = _gif_image_block(indexed)
            left, top = bbox[:2]
            descriptor = struct.pack("<HHHHB", left, top, *indexed.size, 0x80 | _table_bits(table))
            block = b"," + descriptor + table + data
            self._write_pending()
        self._pending, self._pending_ms = block, self._frame_ms
        self._previous = shown
        self.frames += 1

    def _write_pending(self) -> None:
        self._fh.write(_gif_delay(self._pending_ms) + self._pending)

    def close(self) -> None:
        """Write the last frame and the trailer (a ValueError if no frame was added)."""
        if self._previous is None:
            raise ValueError("no frames to write")
        self._write_pending()
        self._fh.write(b";")


def save_gif(frames: Iterable[np.ndarray], path: str | os.PathLike[str], fps: float = 2.0) -> int:
    """Write ``frames`` ((H, W, 3) uint8 arrays of one size, from a list or a generator) as
    an animated GIF that loops forever, ``int(1000 / fps)`` ms per frame; returns the
    number of frames written (identical consecutive frames share one longer GIF frame).

    The GIF is streamed: each frame is quantised and written as it comes, so memory stays
    at a few frames whatever their number. It is written to a temporary file beside
    ``path`` and renamed into place at the end (:func:`~ratenvs.common.atomic.atomic_file`):
    an error or an interrupt half-way leaves no partial file (an old ``path`` stays as it
    was). A ValueError for no frames, frames that are not RGB arrays or differ in size, or
    an ``fps`` a GIF delay cannot hold.
    """
    frame_ms = _gif_frame_ms(fps)
    with atomic_file(path) as fh:
        stream = _GifStream(fh, frame_ms)
        for frame in frames:
            stream.add(frame)
        stream.close()
    return stream.frames
