"""The robustness harness: replay captures to a client under mutations, judged by an oracle.

:mod:`.mutations` bends a capture (rechunking, line ends, cuts, stalls, injected
errors); :mod:`.oracle` says what a correct client must conclude from the bent
bytes (the normalizer run on exactly them); :mod:`.drivers` run the clients
people use; :mod:`.runner` runs the matrix and :mod:`.verdict` judges each
cell; :mod:`.shrink` minimizes a failing cell and :mod:`.repro` writes it as a
pytest file; :mod:`.report` prints the matrix, JSON and Markdown. See
``docs/harness.md``.
"""
