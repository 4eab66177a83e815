"""Outputs that are not plain files: a symbolic link is written through (the link kept), a
device, pipe or socket is refused and left as it is (a rename over ``/dev/null`` replaced
the device with a file)."""

from __future__ import annotations

import os
import stat

import pytest

from ratenvs.cli import main
from ratenvs.common.atomic import NotARegularFileError, atomic_file


def test_a_symbolic_link_is_written_through(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with atomic_file(link) as fh:
        fh.write(b"new")
    assert link.is_symlink() and target.read_text() == "new"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_is_refused_and_left_a_pipe(tmp_path, capsys):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(NotARegularFileError, match="not a regular file"), atomic_file(pipe) as fh:
        fh.write(b"x")
    assert main(["evaluate", "catz-ratz-batz:lowest", "--games", "2", "--json", str(pipe)]) == 2
    err = capsys.readouterr().err
    assert "not a regular file" in err and err.count("\n") == 1
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary left
