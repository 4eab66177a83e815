"""Pictures of the games: a small Pillow canvas for ``rgb_array`` frames and a pygame window.

Frames are drawn with Pillow (no window, no display needed); ``render_mode="human"``
shows the same frame in a pygame window that pumps its events on every frame so it
stays responsive. pygame is imported only when a window is opened.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

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


class HumanWindow:
    """A pygame window showing frames; closing it or calling :meth:`close` ends it."""

    def __init__(self, title: str) -> None:
        self.title = title
        self._screen: Any = None
        self._pygame: Any = None
        self._clock: Any = None

    def show(self, frame: np.ndarray, fps: float) -> None:
        """Display ``frame`` and handle pending window events (keeps the window responsive)."""
        if self._pygame is None:
            os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
            try:
                import pygame
            except ImportError as err:  # pragma: no cover - depends on the install
                raise ImportError(
                    'render_mode="human" needs pygame: pip install "ratenvs[render]"'
                ) from err

            self._pygame = pygame
            pygame.display.init()
            pygame.display.set_caption(self.title)
            self._clock = pygame.time.Clock()
        pygame = self._pygame
        h, w = frame.shape[:2]
        if self._screen is None or self._screen.get_size() != (w, h):
            self._screen = pygame.display.set_mode((w, h))
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self.close()
                return
        surface = pygame.surfarray.make_surface(np.transpose(frame, (1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(fps)

    @property
    def is_open(self) -> bool:
        return self._screen is not None

    def close(self) -> None:
        if self._pygame is not None:
            self._pygame.display.quit()
        self._screen = None
        self._pygame = None


def check_render_view(value: Any, agents: list[str]) -> str:
    """``render_view`` is "omniscient" or one of the env's agent names."""
    if value == "omniscient" or value in agents:
        return value
    raise ValueError(f"option 'render_view' must be 'omniscient' or one of {agents}, got {value!r}")


def save_gif(frames: list[np.ndarray], path: str | os.PathLike, fps: float = 2.0) -> None:
    """Write ``frames`` as an animated GIF (Pillow) at ``fps`` frames per second."""
    if not frames:
        raise ValueError("no frames to write")
    images = [Image.fromarray(f) for f in frames]
    images[0].save(
        path,
        save_all=True,
        append_images=images[1:],
        duration=int(1000 / fps),
        loop=0,
        optimize=False,
    )
