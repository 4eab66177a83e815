"""Learning-curve PNG of a training run, drawn from its CSV logs (matplotlib, Agg backend).

Usage: ``python -m training.plots RUN_DIR [--out FILE] [--title TEXT]``.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from training.atomic import atomic_write


def _read(path: Path) -> dict[str, list[float]]:
    """Columns of a CSV log as floats (blank cells skipped per column)."""
    cols: dict[str, list[tuple[float, float]]] = {}
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            x = row.get("timesteps")
            if not x:
                continue
            for key, value in row.items():
                if key != "timesteps" and value not in ("", None):
                    cols.setdefault(key, []).append((float(x), float(value)))
    return {k: v for k, v in cols.items()}  # type: ignore[return-value]


def _save(fig: Any, out: str | Path, title: str) -> Path:
    """Title ``fig``, write it to ``out`` (its suffix the format) through a temporary file
    renamed into place, close it."""
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(out)
    try:
        atomic_write(out, lambda fh: fig.savefig(fh, format=out.suffix[1:] or "png", dpi=100))
    finally:
        plt.close(fig)
    return out


def plot_responder(card: dict[str, Any], out: str | Path, title: str = "") -> Path:
    """Draw a saved responder's learning curve (``ratenvs exploit --save-responder``: the
    card's ``responder_of.learning_curve``, the mean return of its training games against
    its frames; frames counted from its ``--init``'s start when the card says
    ``timesteps``)."""
    of = card["responder_of"]
    points = [(int(p["frames"]), float(p["mean_return"])) for p in of["learning_curve"]]
    if not points:
        raise ValueError("the responder's card has no learning curve")
    start = int(card.get("timesteps", of["frames_trained"])) - int(of["frames_trained"])
    fig, ax = plt.subplots(figsize=(7, 3.2))
    earlier = of.get("earlier") or {}  # a responder it was started from, when recorded
    if earlier.get("learning_curve"):
        first = start - int(earlier["frames_trained"])
        pts = [
            (first + int(p["frames"]), float(p["mean_return"])) for p in earlier["learning_curve"]
        ]
        ax.plot(*zip(*pts), color="tab:grey", label="the responder it started from")
        ax.legend(loc="lower right", fontsize=8)
    xs, ys = zip(*points)
    ax.plot([start + x for x in xs], ys, color="tab:blue")
    ax.set_ylabel("mean return\n(training games)")
    ax.set_xlabel("timesteps")
    ax.set_title(f"best response to {of['target']}", fontsize=9)
    ax.grid(alpha=0.3)
    return _save(fig, out, title)


def plot_run(run_dir: str | Path, out: str | Path, title: str = "") -> Path:
    """Draw mean episode reward (rollouts) and the evaluation figures against timesteps."""
    run_dir = Path(run_dir)
    progress = _read(run_dir / "progress.csv")
    evals = _read(run_dir / "eval.csv")
    panels = 1 + bool(evals)
    fig, axes = plt.subplots(panels, 1, figsize=(7, 3.2 * panels), squeeze=False)
    ax = axes[0][0]
    if "ep_reward_mean" in progress:
        xs, ys = zip(*progress["ep_reward_mean"])
        ax.plot(xs, ys, color="tab:blue")
    ax.set_ylabel("mean episode reward\n(training, last 100 episodes)")
    ax.set_xlabel("timesteps")
    ax.grid(alpha=0.3)
    if evals:
        ax = axes[1][0]
        if "ratio_to_optimal" in evals:
            xs, ys = zip(*evals["ratio_to_optimal"])
            ax.plot(xs, ys, marker=".", color="tab:green", label="exact score / optimal")
            ax.axhline(0.995, color="grey", ls="--", lw=0.8, label="99.5% target")
        elif "win_rate" in evals:
            xs, ys = zip(*evals["win_rate"])
            ax.plot(xs, ys, marker=".", color="tab:green", label="evaluation win rate")
        if "mean_reward" in evals and "ratio_to_optimal" not in evals:
            twin = ax.twinx()
            xs, ys = zip(*evals["mean_reward"])
            twin.plot(xs, ys, marker=".", color="tab:orange", label="evaluation mean reward")
            twin.set_ylabel("mean reward")
        ax.set_xlabel("timesteps")
        ax.set_ylabel("evaluation")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    return _save(fig, out, title)


IMAGE_SUFFIXES = (".png", ".svg", ".pdf")
"""The figures ``python -m training.plots --out`` writes (by the file's ending)."""


def main(argv: Sequence[str] | None = None) -> int:
    from ratenvs.common.arguments import ArgumentParser, UsageError, output_file, report

    parser = ArgumentParser(prog="python -m training.plots", description=__doc__)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--out", type=Path, help="the figure (.png, .svg or .pdf)")
    parser.add_argument("--title", default="")
    args = parser.parse_args(argv)
    try:
        if not (args.run_dir / "progress.csv").is_file():
            raise UsageError(f"{args.run_dir}/progress.csv not found")
        out = args.out or args.run_dir / "curve.png"
        if out.suffix.lower() not in IMAGE_SUFFIXES:
            raise UsageError(f"--out {out}: a figure ends in one of {', '.join(IMAGE_SUFFIXES)}")
        output_file("--out", out)
        try:
            drawn = plot_run(args.run_dir, out, args.title)
        except ValueError as exc:  # a cell that is not a number, a log of another shape
            raise UsageError(f"{args.run_dir}: its logs cannot be drawn: {exc}") from None
    except (UsageError, OSError) as exc:
        return report(exc)
    print(drawn)
    return 0


if __name__ == "__main__":
    sys.exit(main())
