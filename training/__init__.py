"""Training and evaluation tools for the ratenvs games (sb3-contrib MaskablePPO).

Run ``python -m training.train --config configs/<name>.yaml`` to train and
``python -m training.evaluate --checkpoint CKPT`` to evaluate. Nothing in
``ratenvs`` imports this package.
"""
