"""Shared by every test folder: this folder (``tests/``) is on ``sys.path`` (pytest's default
"prepend" import mode puts a conftest's folder there), so tests ``import helpers``."""
