"""What a shipped agent costs: frames and wall time from scratch to its headline figure.

Usage: ``python -m training.time_to_strength [--checkpoints DIR] [--write | --check]``
prints the page (Markdown) made from the shipped cards, ``--write`` writes it to
``docs/time_to_strength.md`` (atomically), ``--check`` exits 1 when that page differs.

One row per shipped agent, from its card alone:

- the commands, one per training leg: the legs of ``training_history`` (earlier runs
  the agent was resumed from), then the card's own config; each resumed leg says
  ``--resume`` with the checkpoint of the leg before it. Where the card records the
  commands that reproduced it (``reproduced.commands``), those are given as recorded.
- frames: the card's ``timesteps`` (a resumed run counts on from its checkpoint's, so
  these are every leg's PPO decisions) plus the decisions of the warm start the card
  records (``pretrain.decisions``); a leg whose config has a warm start the card does
  not record says so.
- wall time: the card's ``wall_time_s`` (a resumed run adds its checkpoint's, so every
  leg's training, periodic evaluations included, the final evaluation left out) plus
  the recorded warm start's seconds, as the runs' own clocks measured them.
- the headline: the card's own evaluation (``evaluation``), read by the fields it holds:
  the exact share of optimal where the game has an exact grade (``ratio_to_optimal``),
  the share of won games and of correct answers where answers are graded
  (``answer_accuracy``), the win rate otherwise, with 95% intervals.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ratenvs.common.arguments import ArgumentParser, input_folder, report
from training.checkpoint import load_card

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT / "checkpoints"
PAGE = ROOT / "docs" / "time_to_strength.md"
CONFIGS = ROOT / "configs"

INTRO = """\
# Time to strength

What each shipped agent cost to train, from scratch to the figure on its card: the
commands (one per training leg; a resumed leg continues from the checkpoint of the leg
before it), the frames (learner decisions of every leg, plus the warm start's teacher
decisions where the card records them) and the wall time the runs' own clocks measured
(training and periodic evaluations of every leg, plus the recorded warm start; the final
evaluation left out). The cards record neither the machine nor its load: the project
trains on a shared 2-core machine, so read these as what the runs cost there, not as a
benchmark (`python -m training.vecbench --train` measures a config's frames/s).

Generated from the shipped cards (`checkpoints/<game>/<agent>.json`) by
`python -m training.time_to_strength --write`; a test checks this page against them.
"""


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _interval(ci: Sequence[float]) -> str:
    return f"[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _opponents(ev: dict[str, Any]) -> str:
    names = [str(n).split(":", 1)[-1] for n in ev.get("opponents") or []]
    if not names:
        return "alone"
    if len(set(names)) == 1 and len(names) > 1:
        return f"vs {len(names)} x {names[0]}"
    return "vs " + ", ".join(names)


def headline(card: dict[str, Any]) -> str:
    """The card's own evaluation as one figure with its interval, in the game's words."""
    ev = card["evaluation"]
    games = f"{ev['games']:,} games"
    if "exact_exploitability" in ev:  # an agent whose exact best response is known
        return (
            f"exact exploitability {ev['exact_exploitability']:.4f} (the win-optimal "
            f"policy's: 0); won {_pct(ev['win_rate'])} {_interval(ev['win_rate_ci'])} of "
            f"{games} {_opponents(ev)}"
        )
    if "ratio_to_optimal" in ev:
        return (
            f"{100 * ev['ratio_to_optimal']:.2f}% of optimal (exact expected turn score "
            f"{ev['exact_expected_score']:.3f} of {ev['optimal_expected_score']:.3f})"
        )
    if "answer_accuracy" in ev:
        return (
            f"most cards in {_pct(ev['win_rate'])} {_interval(ev['win_rate_ci'])} of {games} "
            f"{_opponents(ev)}; {_pct(ev['answer_accuracy'])} "
            f"{_interval(ev['answer_accuracy_ci'])} of answers correct"
        )
    return f"won {_pct(ev['win_rate'])} {_interval(ev['win_rate_ci'])} of {games} {_opponents(ev)}"


RENAMES = CONFIGS / "renamed.json"
"""Configs whose recipe moved to another file (the old name became another recipe), as
``{old path: [the recipe's path today, when it moved (UTC)]}``; a card made before that
names the old path."""


def _renamed() -> dict[str, tuple[str, str]]:
    import json

    return {old: (new, when) for old, (new, when) in json.loads(RENAMES.read_text()).items()}


RENAMED_CONFIGS = _renamed()


def _config_path(name: str, created: str = "") -> str:
    """A leg's config as the card names it (a path or a config name), as the file that
    holds that recipe today (a card made before a rename names the old file)."""
    path, sep, edit = name.partition(" ")
    if not path.startswith("configs/"):
        path = f"configs/{path}.yaml"
    moved = RENAMED_CONFIGS.get(path)
    if moved is not None and created and created < moved[1]:
        path = moved[0]
    return path + sep + edit


CONFIG_PATH = r"configs/[\w.-]+\.yaml"
"""A config file named in a card's text."""


def _carried(note: str) -> str:
    """Which checkpoint of a leg the next leg resumed: its note's (``best`` unless it
    says the final one was)."""
    return "best.pt" if "best" in note and "final" not in note else "final.pt"


def _has_pretrain(config: str) -> bool:
    path = ROOT / config
    if not path.is_file():
        return False
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return bool((data.get("pretrain") or {}).get("teacher"))


def legs(card: dict[str, Any]) -> list[tuple[str, str]]:
    """The agent's training legs, first to last (the card's own last): (config as today's
    file, the checkpoint of it the next leg resumed). From ``training_history``; without
    one, a config that ``resumed_from`` names is the leg before."""
    created = str(card.get("created_utc") or "")
    history = card.get("training_history") or []
    found = [(str(leg["config"]), _carried(str(leg.get("note", "")))) for leg in history]
    if not found and card.get("resumed_from"):
        earlier = re.search(CONFIG_PATH, str(card["resumed_from"]))
        if earlier:
            found = [(earlier.group(0), "final.pt")]
    named = [(_config_path(config, created), carried) for config, carried in found]
    own = _config_path(str(card.get("config_name") or "?"), created)
    if not named or named[-1][0].split(" ")[0] != own:
        named.append((own, "final.pt"))
    return named


def commands(card: dict[str, Any], agent: str) -> list[str]:
    """One ``python -m training.train`` command per leg (the card's recorded commands where
    it has them, their configs named as today's files)."""
    created = str(card.get("created_utc") or "")
    reproduced = card.get("reproduced") or {}
    if reproduced.get("commands"):
        return [
            re.sub(CONFIG_PATH, lambda m: _config_path(m.group(0), created), c)
            for c in map(str, reproduced["commands"])
        ]
    out = []
    named = legs(card)
    history = card.get("training_history") or []
    for i, (config, _) in enumerate(named):
        path, _, edit = config.partition(" ")
        line = f"python -m training.train --config {path} --out runs/{agent}_{i + 1}"
        if i:
            line += f" --resume runs/{agent}_{i}/{named[i - 1][1]}"
        line += _edit_flags(edit)
        last = i == len(named) - 1
        stop = _how_it_ended(
            str(history[i].get("note", "")) if i < len(history) else "",
            str(card.get("shipped_from") or "") if last else "",
        )
        if stop:
            line += ("; " if "  # " in line else "  # ") + stop
        out.append(line)
    return out


def _how_it_ended(note: str, shipped_from: str) -> str:
    """What a pasted leg's command does not say of how the leg ran: stopped by hand (its
    note's words) and, for the card's own leg, the card being its best checkpoint rather
    than its final one."""
    parts = []
    stopped = re.search(r"stopped by hand[^;,]*", note)
    if stopped:
        parts.append(stopped.group(0).strip())
    if Path(shipped_from).stem == "best":
        parts.append("the card is its best.pt")
    return ", ".join(parts)


def _edit_flags(edit: str) -> str:
    """A leg's edit of its config (``with seed: 9``, ``with learning_rate_schedule: linear
    and seed: 5``) as the command takes it: the seed as ``--seed N``, anything no flag sets
    as a comment saying to make it in a copy of the config."""
    parts = [p.strip() for p in re.split(r",| and ", edit.removeprefix("with ")) if p.strip()]
    seeds = [p for p in parts if re.fullmatch(r"seed: \d+", p)]
    rest = [p for p in parts if p not in seeds]
    flags = "".join(f" --seed {p.split(': ')[1]}" for p in seeds[:1])
    if rest:
        flags += f"  # with {' and '.join(rest)} in a copy of the config (no flag sets it)"
    return flags


def earliest_leg_resumed(card: dict[str, Any]) -> str | None:
    """What the first leg of :func:`legs` resumed, when the card does not go back to a run
    from scratch (a ``resumed_from`` checkpoint whose own legs the card does not list)."""
    if card.get("training_history") or card.get("reproduced") or not card.get("resumed_from"):
        return None
    if re.search(CONFIG_PATH, str(card["resumed_from"])):  # the leg before is named
        return None
    return str(card["resumed_from"])


def row(card: dict[str, Any], agent: str) -> dict[str, Any]:
    """The figures of one shipped agent: commands, frames, wall seconds, headline, notes."""
    pretrain = card.get("pretrain") or {}
    frames = int(card["timesteps"]) + int(pretrain.get("decisions", 0))
    wall = float(card["wall_time_s"]) + float(pretrain.get("seconds", 0.0))
    notes = []
    names = [config for config, _ in legs(card)]
    unrecorded = [
        n
        for i, n in enumerate(names)
        if _has_pretrain(n) and not (pretrain and i == len(names) - 1)
    ]
    if unrecorded:
        notes.append(
            "the warm start of "
            + ", ".join(f"`{n}`" for n in unrecorded)
            + " is not recorded on the card (its decisions and seconds are not counted)"
        )
    resumed = earliest_leg_resumed(card)
    if resumed is not None:
        notes.append(
            f"the card's run resumed {resumed}; the frames and time are the card's, which "
            "count the runs it resumed, but the legs before are not listed on it"
        )
    return {
        "agent": agent,
        "commands": commands(card, agent),
        "frames": frames,
        "wall_s": wall,
        "headline": headline(card),
        "notes": notes,
    }


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def page(directory: str | Path = DEFAULT_DIR) -> str:
    """The time-to-strength page (Markdown) of every card under ``directory/<game>/``. A
    folder without cards, or a card lacking a figure, is a ValueError naming it."""
    card_files = sorted(Path(directory).glob("*/*.json"))
    if not card_files:
        raise ValueError(f"{directory}: no checkpoint cards (<game>/<name>.json) in it")
    lines = [
        INTRO,
        "| agent | frames | wall time | headline figure (95% interval) | legs |",
        "|---|---:|---:|---|---:|",
    ]
    details = ["", "## The commands", ""]
    for card_file in card_files:
        card = load_card(card_file)
        try:
            r = row(card, card_file.stem)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            what = f"lacks {exc}" if isinstance(exc, KeyError) else f"is malformed ({exc})"
            raise ValueError(f"checkpoint card {card_file}: {what}") from None
        agent = f"`{card_file.parent.name}/{card_file.stem}`"
        lines.append(
            f"| {agent} | {r['frames']:,} | {_duration(r['wall_s'])} | {r['headline']} | "
            f"{len(r['commands'])} |"
        )
        details.append(f"### {agent}")
        details.append("")
        details.append("```sh")
        details.extend(r["commands"])
        details.append("```")
        for note in r["notes"]:
            details.append("")
            details.append(f"Note: {note}.")
        details.append("")
    return "\n".join(lines + details).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m training.time_to_strength", description=__doc__)
    parser.add_argument("--checkpoints", type=Path, default=DEFAULT_DIR)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help=f"write {PAGE.relative_to(ROOT)}")
    mode.add_argument("--check", action="store_true", help="exit 1 if the page differs")
    args = parser.parse_args(argv)
    try:
        text = page(input_folder("--checkpoints", args.checkpoints))
    except (ValueError, OSError) as exc:  # a missing folder, a broken card
        return report(exc)
    if args.write:
        from training.atomic import atomic_write_text

        atomic_write_text(PAGE, text)
        print(f"wrote {PAGE}")
    elif args.check:
        if not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != text:
            print(
                f"{PAGE} differs from the cards: python -m training.time_to_strength --write",
                file=sys.stderr,
            )
            return 1
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
