"""Writing Monte Carlo trials: CSV always, Parquet when pyarrow is installed.

One row per trial, in trial order: ``trial`` (0-based), ``criterion`` (empty
in CSV / null in Parquet for a failed trial) and one column per tolerance
component, named by its label (``surfaces[1].radius``, ``tilt x surfaces[1-2]``
...), holding the drawn value in the item's units.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from .._atomic import write_atomically
from ..errors import ConfigurationError

PARQUET_SUFFIXES = (".parquet", ".pq")


class ParquetUnavailableError(ConfigurationError, ImportError):
    """A .parquet file was asked for but pyarrow is not installed."""


def write_trials(result, path) -> Path:
    """Write every trial of ``result`` (a MonteCarlo) to ``path`` (.csv, or .parquet / .pq).

    Parameters
    ----------
    result : MonteCarlo
        The trials: one row each (``trial``, ``criterion``, one column per component in
        its item's units).
    path : str or Path
        Output file; a ``.parquet`` or ``.pq`` suffix writes Parquet (needs pyarrow),
        anything else CSV.

    Returns
    -------
    Path
        The file written.
    """
    path = Path(path)
    if path.suffix.lower() in PARQUET_SUFFIXES:
        _write_parquet(result, path)
    else:
        _write_csv(result, path)
    return path


def _columns(result):
    values = [float(v) if math.isfinite(v) else None for v in result.values]
    columns = {"trial": [int(i) for i in result.indices], "criterion": values}
    for k, label in enumerate(result.labels):
        columns[label] = [float(v) for v in result.draws[:, k]]
    return columns


def _write_csv(result, path):
    columns = _columns(result)

    def write(temporary):
        with open(temporary, "w", newline="", encoding="utf-8") as stream:
            writer = csv.writer(stream)
            writer.writerow(list(columns))
            for row in zip(*columns.values()):
                writer.writerow(["" if v is None else repr(v) for v in row])

    write_atomically(path, write)


def _write_parquet(result, path):
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ParquetUnavailableError(
            f"writing {path.name} needs pyarrow (pip install pyarrow), or write a .csv file"
        ) from exc
    table = pa.table(_columns(result))
    write_atomically(path, lambda temporary: pq.write_table(table, temporary))
