"""Bots (protocol, choices, strength), game records and terminal play."""

import json

import numpy as np
import pytest
from ratcat_helpers import D2, P, S, build_state, game, play_game

from ratenvs.common.bots import Bot, OwnView
from ratenvs.rat_a_tat_cat import play, rules
from ratenvs.rat_a_tat_cat.bots import (
    BOTS,
    KEPT_VALUES,
    CeilingBot,
    HeuristicBot,
    get_bot,
)
from ratenvs.rat_a_tat_cat.env import raw_env
from ratenvs.rat_a_tat_cat.record import (
    load_record,
    make_record,
    record_bot_game,
    replay,
    save_record,
)


def _observer(num_players, ceilings=False):
    return game(num_players, owner_ceilings=ceilings).observer("knowledge")


def _apply(state, action):
    rules.apply_action(state, action, np.random.default_rng(0), game(state.num_players))


def _decide(state, bot=None, ceilings=False):
    obs = _observer(state.num_players, ceilings=ceilings)
    seat = state.current
    bot = bot or HeuristicBot()
    bot.bind(obs)
    return bot.act(
        obs.observe(state, seat), obs.game.legal_mask(state, seat), np.random.default_rng(0)
    )


def test_bots_follow_the_protocol():
    assert set(BOTS) == {
        "random",
        "heuristic",
        "ceiling",
        "ismcts",
        "pimc",
        "search",
        "guarded_search",
    }
    for name in BOTS:
        bot = get_bot(name)
        assert isinstance(bot, Bot) and bot.name == name
    with pytest.raises(ValueError, match="unknown bot"):
        get_bot("clever")


def test_heuristic_choices():
    # takes a low discard and puts it on its highest known card
    state = build_state([[9, 1, 2, 8], [1, 2, 3, 4]], discard=[0])
    assert _decide(state) == rules.ACTION_TAKE_DISCARD
    _apply(state, rules.ACTION_TAKE_DISCARD)
    assert _decide(state) == rules.ACTION_REPLACE + 0
    # a high discard: draws; a drawn 9 is discarded
    state = build_state([[1, 2, 3, 2], [1, 2, 3, 4]], draw_top=[9], discard=[8])
    assert _decide(state) == rules.ACTION_DRAW
    _apply(state, rules.ACTION_DRAW)
    assert _decide(state) == rules.ACTION_DISCARD
    # a Peek looks at an unknown slot; a Draw 2 is used
    state = build_state([[1, 2, 3, 2], [1, 2, 3, 4]], draw_top=[P])
    _apply(state, rules.ACTION_DRAW)
    assert _decide(state) == rules.ACTION_PEEK + 1
    state = build_state([[1, 2, 3, 2], [1, 2, 3, 4]], draw_top=[D2])
    _apply(state, rules.ACTION_DRAW)
    assert _decide(state) == rules.ACTION_USE_DRAW2


def test_heuristic_swaps_its_high_card_for_a_known_low_one_and_knocks_low():
    state = build_state([[9, 1, 2, 1], [0, 5, 5, 5]], draw_top=[S], discard=[4])
    state.know[0, 1, 0] = 0  # player 0 saw player 1's 0 placed from the discard
    state.know[0, 0, 1] = 1
    state.know[0, 0, 2] = 2
    _apply(state, rules.ACTION_DRAW)
    assert _decide(state) == rules.swap_action(0, 1, 0)
    _apply(state, rules.swap_action(0, 1, 0))
    assert state.phase == rules.PHASE_KNOCK
    assert _decide(state) == rules.ACTION_KNOCK  # known 0 + 1 + 2 + 1 = 4
    assert _decide(state, HeuristicBot(knock_threshold=3)) == rules.ACTION_NO_KNOCK


def test_ceiling_bot_swaps_for_the_kept_card_with_the_lowest_ceiling():
    state = build_state([[9, 1, 2, 1], [5, 5, 5, 5], [4, 4, 4, 4]], draw_top=[S], discard=[P])
    state.know[0, 0, 1:3] = [1, 2]
    state.ceiling[1] = [7, rules.NO_CEILING, rules.NO_CEILING, 3]  # slot 3: kept under 3
    state.ceiling[2] = [4, rules.NO_CEILING, rules.NO_CEILING, 4]
    _apply(state, rules.ACTION_DRAW)
    bot = CeilingBot()
    assert _decide(state, bot, ceilings=True) == rules.swap_action(0, 1, 3)
    # without the evidence every hidden card looks alike: the heuristic picks none of these
    assert _decide(state) != rules.swap_action(0, 1, 3)
    with pytest.raises(ValueError, match="owner_ceilings=True"):
        _decide(state, bot)


def test_ceiling_bot_knocks_when_its_hand_is_below_every_guessed_hand():
    state = build_state([[0, 1, 2, 0], [5, 5, 5, 5], [4, 4, 4, 4]], discard=[P])
    state.know[0, 0, 1:3] = [1, 2]
    state.phase, state.held = rules.PHASE_KNOCK, rules.NO_CARD
    observer = _observer(3, ceilings=True)
    obs = observer.observe(state, 0)
    bot = CeilingBot()
    bot.bind(observer)
    est = bot.hand_estimates(obs)
    assert est[0].tolist() == [0, 1, 2, 0]
    assert est[1, 0] == KEPT_VALUES[rules.NO_CEILING]  # an outer card its owner kept
    assert _decide(state, CeilingBot(), ceilings=True) == rules.ACTION_KNOCK
    assert _decide(state, CeilingBot(knock_margin=20), ceilings=True) == rules.ACTION_NO_KNOCK


def test_ceiling_bot_leaves_its_other_decisions_to_the_base_on_the_plain_observation():
    seen = []

    class Base:
        name = "base"

        def act(self, observation, action_mask, rng):
            seen.append(len(observation))
            return int(np.flatnonzero(action_mask)[0])

    winners = play_game([CeilingBot(base=Base()), HeuristicBot()], seed=3, owner_ceilings=True)
    assert any(winners) and seen and set(seen) == {64 * 2 + 67}


def test_bots_play_whole_games_in_every_table_size():
    for n in range(2, 7):
        bots = [get_bot("heuristic" if i % 2 else "random") for i in range(n)]
        winners = play_game(bots, seed=n, rounds=2)
        assert len(winners) == n and any(winners)


def test_records_save_and_replay_identically(tmp_path):
    bots = [get_bot("heuristic"), get_bot("random"), get_bot("heuristic")]
    record = record_bot_game(bots, seed=5, rounds=2, observation="memoryless")
    path = tmp_path / "game.json"
    save_record(record, path)
    loaded = load_record(path)
    assert loaded == json.loads(json.dumps(record))
    env = replay(loaded)
    assert env.game_state() == record["final_state"] and env.truth.is_over
    again = make_record(loaded["seed"], loaded["options"], loaded["actions"])
    assert again == record
    tampered = dict(loaded, actions=loaded["actions"][:-1])
    with pytest.raises(ValueError, match="diverged"):
        replay(tampered)
    with pytest.raises(ValueError, match="not a rat_a_tat_cat record"):
        replay(dict(loaded, game="catz_ratz_batz"))


def test_records_of_raw_env_options_round_trip():
    env = raw_env(num_players=4, target_score=30)
    assert env.options["rounds"] is None and env.options["target_score"] == 30
    record = record_bot_game(
        [get_bot("random")] * 4,
        seed=1,
        **{k: v for k, v in env.options.items() if k != "num_players"},
    )
    assert replay(record).truth.is_over


def spy_masks(monkeypatch) -> list:
    """The masks of the moves the person is asked for, in order (a spy on _ask_action)."""
    seen: list = []
    original = play._ask_action

    def spy(mask, n, ask, say):
        seen.append(mask.copy())
        return original(mask, n, ask, say)

    monkeypatch.setattr(play, "_ask_action", spy)
    return seen


def test_terminal_play_full_game_with_bad_input(monkeypatch):
    said: list[str] = []
    typed: list[str] = []
    # answer every prompt with a legal move worked out from the printed table
    seen_masks = spy_masks(monkeypatch)
    bad = ["", "zz", "r 9", "s 0 0 0", "p 7"]

    def ask(prompt):
        assert prompt == "> "
        if bad:
            typed.append(bad.pop(0))
            return typed[-1]
        mask = seen_masks[-1]
        for text in ("d", "k", "r 3", "p 1", "u", "s 0 1 2", "x", "n", "t"):
            if play.parse_move(text, mask, 3) is not None:
                typed.append(text)
                return text
        raise AssertionError("no legal move found")

    code = play.main(["--players", "3", "--seed", "4"], ask=ask, say=said.append)
    assert code == 0
    text = "\n".join(said)
    assert "not a legal move now" in text and "game over - winner(s)" in text
    assert "Your moves:" in text and "d        draw" in text
    # the person sees only its seat's view: at the deal, its outer cards and nothing else
    first = next(s for s in said if "view: player_0" in s).splitlines()
    own, p1, p2 = (next(line for line in first if f"player_{i}:" in line) for i in range(3))
    assert own.count("?") == 2 and p1.count("?") == 4 and p2.count("?") == 4
    assert "view: omniscient" in said[-1]  # the reveal at the end


def test_terminal_play_exits_cleanly_on_eof(capsys):
    said: list[str] = []

    def ask(prompt):
        raise EOFError

    assert play.main(["--players", "2", "--seed", "1"], ask=ask, say=said.append) == 0
    assert "Game abandoned." in said[-1]
    with pytest.raises(SystemExit) as info:
        play.main(["--players", "9"], ask=ask, say=said.append)
    assert info.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "error: argument --players: must be an integer in 2..6, got 9 "
        "(see ratenvs play rat-a-tat-cat --help)"
    )


def test_parse_move():
    mask = np.zeros(rules.num_actions(3), dtype=np.int8)
    mask[rules.ACTION_SWAP :] = 1
    mask[rules.ACTION_DECLINE] = 1
    assert play.parse_move("s 1 2 3", mask, 3) == rules.swap_action(1, 2, 3)
    assert play.parse_move("x", mask, 3) == rules.ACTION_DECLINE
    assert play.parse_move("s 1 3 3", mask, 3) is None
    assert play.parse_move("d", mask, 3) is None
    assert play.parse_move("s a b c", mask, 3) is None
    # what str.isdigit takes but int() does not is not a move either (no crash)
    for typed in ("s --1 2 3", "s 1 ² 3", "s 1 2 ٣", "s -1 2 3", "s 1 2 3 4"):
        assert play.parse_move(typed, mask, 3) is None, typed


def test_cli_play_reads_stdin_for_a_whole_game(monkeypatch, capsys):
    import io

    from ratenvs import cli

    # draw, discard (or decline a power card), do not knock - repeated; lines that are not
    # legal at that moment (e.g. "n" once someone knocked) are simply asked again
    monkeypatch.setattr("sys.stdin", io.StringIO("d\nx\nn\n" * 1000))
    assert cli.main(["play", "rat-a-tat-cat", "--players", "3", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "game over - winner(s)" in out and "Round over:" in out
    assert "player_0 draws a" in out  # the person sees its own drawn card
    assert not any(
        line.startswith(("player_1 draws a", "player_2 draws a")) for line in out.splitlines()
    )  # but not the bots' private draws


@pytest.mark.parametrize("seats", [["--bots", "ceiling", "heuristic"], ["--vs", "ceiling"]])
def test_the_ceiling_bot_plays_at_a_table_without_the_owner_ceilings_piece(seats, monkeypatch):
    # ratenvs play offered it and crashed at its first move ("make the env with
    # owner_ceilings=True", no flag for it); it now sees the table with its own view
    said: list[str] = []
    masks = spy_masks(monkeypatch)

    def ask(_prompt):
        for text in ("d", "x", "n", "r 0", "u"):
            if play.parse_move(text, masks[-1], 3) is not None:
                return text
        raise AssertionError("no legal move found")

    argv = ["--players", "3", "--seed", "5", *seats]
    assert play.main(argv, ask=ask, say=said.append) == 0
    assert "game over - winner(s)" in "\n".join(said)


def test_the_gymnasium_door_seats_the_ceiling_bot_with_its_own_view(monkeypatch):
    from helpers import play_random_episode

    from ratenvs.wrappers import SingleAgentEnv

    env = SingleAgentEnv("rat-a-tat-cat", opponents="ceiling", num_players=3, learner_seat="random")
    assert not env.aec.game.params["owner_ceilings"]  # the table does not show the piece
    rng = np.random.default_rng(0)
    learners = set()
    seen: list[int] = []
    act = CeilingBot.act

    def spy(self, observation, mask, rng):
        seen.append(observation.shape[0])
        return act(self, observation, mask, rng)

    monkeypatch.setattr(CeilingBot, "act", spy)
    for seed in range(6):
        seen.clear()
        _, info = env.reset(seed=seed)
        learners.add(env._seat)
        for bot in env._bots:  # each other seat: the ceiling bot, in a view of its own
            assert isinstance(bot, OwnView) and isinstance(bot.bot, CeilingBot)
            assert bot.game.params["owner_ceilings"]
        play_random_episode(env, info, rng)
        assert env.aec.truth.is_over
        # it read observations with the owner_ceilings block, larger than the learner's
        assert seen and set(seen) == {env.aec.observer.size + 3 * 4 * 2}, (seen, seed)
    assert len(learners) > 1


def test_terminal_play_interrupted_by_ctrl_c_says_so_and_exits_130():
    """Ctrl-C abandons the game as Ctrl-D does (record saved), with the exit status of an
    interrupt, as every ratenvs command (it was 0)."""
    said: list[str] = []

    def ask(prompt):
        raise KeyboardInterrupt

    assert play.main(["--players", "2", "--seed", "1"], ask=ask, say=said.append) == 130
    assert "Game abandoned." in said[-1]


def test_a_round_end_shows_every_hand_and_says_who_went_out(monkeypatch, capsys):
    import io

    from ratenvs import cli

    # every hand is turned face up at a round's end (everyone sees them at the table); in
    # an elimination game the person is told who went out, itself included
    monkeypatch.setattr("sys.stdin", io.StringIO("d\nx\nn\n" * 3000))
    argv = ["play", "rat-a-tat-cat", "--players", "3", "--seed", "2", "--target-score", "100"]
    assert cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    ends = [i for i, line in enumerate(lines) if line.startswith("Round over: ")]
    assert len(ends) > 3
    totals = [0, 0, 0]
    out: set[int] = set()
    for i in ends:
        points = {
            int(who.split()[0][-1]): int(who.split()[1])
            for who in lines[i][len("Round over: ") :].split(", ")
        }
        shown = [line for line in lines[i + 1 : i + 4] if line.startswith("  player_")]
        assert len(shown) == 3 - len(out)
        for line in shown:
            seat = int(line.split(":")[0][-1])
            cards, rest = line.split(": ", 1)[1].split(" = ")
            assert len(cards.split()) == 4 and all(c.isdigit() for c in cards.split())
            assert sum(map(int, cards.split())) == points[seat]
            totals[seat] += points[seat]
            assert rest == f"{points[seat]} (total {totals[seat]})"
        j = i + 1 + len(shown)
        while "out of the game" in lines[j]:
            seat = 0 if lines[j].startswith("You are") else int(lines[j].split()[0][-1])
            assert totals[seat] > 100 and seat not in out
            out.add(seat)
            j += 1
        assert all(totals[seat] <= 100 for seat in set(range(3)) - out)
    assert "You are out of the game (total 105); the others play on." in lines
    assert out == {0, 1}  # as the final table says: player_2 won
