"""The ctypes binding of EPBot's C library (``libEPBot.so``, the bidding engine of BBA).

EPBot is an outside program: the user's copy is found at run time in a folder holding
``libEPBot.so`` and ``CC/`` (its convention cards), named by ``path=`` or the environment variable
:data:`ENV` (:func:`epbot_folder`); nothing of it ships with the project. Every function this
module calls has its ``argtypes`` and ``restype`` declared in :data:`SIGNATURES` (a wrong
signature crashes the process, so nothing else is called). Each EPBot function returns a negative
number on an error (``-3``: the buffer is too small); :class:`Native` raises :class:`EPBotError`
with ``epbot_get_last_error``'s text for any other.

One :class:`Native` is one EPBot instance (one seat): the library is loaded once per process
(:func:`load_library`), instances are made per seat by their owner, never shared between threads.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from ctypes import POINTER, c_char_p, c_int, c_void_p
from pathlib import Path
from typing import Any

from bridgebot.core.files import note_file
from bridgebot.engine.agent import AgentSpecError

#: The environment variable naming the EPBot folder (``libEPBot.so`` and ``CC/``).
ENV = "BRIDGEBOT_EPBOT"
LIBRARY = "libEPBot.so"

#: ``epbot_get_info_*``: the interpreted call (after ``epbot_interpret_bid``), as Ben reads it.
INTERPRETED = 13
#: The return code that asks for a larger buffer.
BUFFER_TOO_SMALL = -3
#: Indices of ``epbot_get_info_feature``'s array: the least and most HCP the call shows.
FEATURE_HCP_MIN = 402
FEATURE_HCP_MAX = 403

_INFO_ARRAY: list[type] = [c_void_p, c_int, c_void_p, c_int, POINTER(c_int)]
#: name -> (restype, argtypes) of every function called.
SIGNATURES: dict[str, tuple[type | None, list[type]]] = {
    "epbot_create": (c_void_p, []),
    "epbot_destroy": (None, [c_void_p]),
    "epbot_get_last_error": (c_char_p, []),
    "epbot_version": (c_int, [c_void_p]),
    "epbot_set_system_type": (c_int, [c_void_p, c_int, c_int]),
    "epbot_set_conventions": (c_int, [c_void_p, c_int, c_char_p, c_int]),
    "epbot_system_name": (c_int, [c_void_p, c_int, c_char_p, c_int]),
    "epbot_set_scoring": (c_int, [c_void_p, c_int]),
    "epbot_new_hand": (c_int, [c_void_p, c_int, c_char_p, c_int, c_int, c_int, c_int]),
    "epbot_set_bid": (c_int, [c_void_p, c_int, c_int, c_char_p]),
    "epbot_get_bid": (c_int, [c_void_p]),
    "epbot_interpret_bid": (c_int, [c_void_p, c_int]),
    "epbot_get_info_meaning": (c_int, [c_void_p, c_int, c_char_p, c_int]),
    "epbot_get_info_alerting": (c_int, [c_void_p, c_int]),
    "epbot_get_info_min_length": (c_int, _INFO_ARRAY),
    "epbot_get_info_max_length": (c_int, _INFO_ARRAY),
    "epbot_get_info_feature": (c_int, _INFO_ARRAY),
    # The opening lead, as BBA's documentation for programmers declares it (its native
    # wrapper, ModuleEPBotNative.vb): (handle, force_lead, buffer, buffer_size). EPBot's card
    # play runs BCalcConsole, a double-dummy solver it is pointed to by path.
    "epbot_get_lead": (c_int, [c_void_p, c_int, c_char_p, c_int]),
    "epbot_set_bcalconsole_path": (c_int, [c_void_p, c_char_p]),
    "epbot_get_last_epbot_error": (c_int, [c_void_p, c_char_p, c_int]),
}


class EPBotNotFound(AgentSpecError):
    """No EPBot where the user pointed (or nowhere pointed); the message says what to set."""


class EPBotError(RuntimeError):
    """An EPBot function returned an error code; the message has EPBot's own text."""


def epbot_folder(path: str | Path | None = None) -> Path:
    """The EPBot folder: ``path``, else ``$BRIDGEBOT_EPBOT``; :class:`EPBotNotFound` (one line)
    when neither is given or the folder lacks ``libEPBot.so``."""
    where = path or os.environ.get(ENV)
    fix = (
        f"set {ENV} to a folder holding {LIBRARY} and CC/ (BBA's EPBot, not shipped with "
        "bridgebot), or give path=DIR"
    )
    if not where:
        raise EPBotNotFound(f"EPBot not found: {fix}")
    folder = Path(where).expanduser()
    if not (folder / LIBRARY).is_file():
        raise EPBotNotFound(f"EPBot not found: {folder} has no {LIBRARY}; {fix}")
    return folder.resolve()


_LOADED: dict[Path, ctypes.CDLL] = {}


def load_library(folder: Path) -> ctypes.CDLL:
    """``folder/libEPBot.so`` with every signature of :data:`SIGNATURES` declared; loaded once per
    process and folder, and reported as read on every call (:func:`core.files.note_file`: an
    agent's marks name the library it bids with). :class:`EPBotNotFound` if it will not load or
    lacks a function."""
    lib = _LOADED.get(folder)
    if lib is None:
        try:
            lib = ctypes.CDLL(str(folder / LIBRARY))
            for name, (restype, argtypes) in SIGNATURES.items():
                function = getattr(lib, name)
                function.restype = restype
                function.argtypes = argtypes
        except (OSError, AttributeError) as exc:
            raise EPBotNotFound(f"EPBot in {folder} does not load: {exc}") from None
        _LOADED[folder] = lib
    note_file(folder / LIBRARY)
    return lib


class Native:
    """One EPBot instance; :meth:`close` frees it (idempotent)."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self._lib = lib
        handle = lib.epbot_create()
        if not handle:
            raise EPBotError(f"epbot_create failed: {self._last_error()}")
        self._handle: int | None = handle

    def _last_error(self) -> str:
        text = self._lib.epbot_get_last_error()
        return text.decode("utf-8", "replace") if text else "(no error text)"

    def _h(self) -> int:
        if self._handle is None:
            raise EPBotError("the EPBot instance is closed")
        return self._handle

    def _ok(self, code: int, what: str) -> int:
        if code < 0:
            raise EPBotError(f"{what} returned {code}: {self._last_error()}")
        return code

    def close(self) -> None:
        if self._handle is not None:
            self._lib.epbot_destroy(self._handle)
            self._handle = None

    def version(self) -> int:
        return self._ok(self._lib.epbot_version(self._h()), "epbot_version")

    def set_system(self, side: int, system: int) -> None:
        """``side`` 0 = N/S, 1 = E/W plays system number ``system`` (a card's first line)."""
        self._ok(self._lib.epbot_set_system_type(self._h(), side, system), "epbot_set_system_type")

    def set_convention(self, side: int, name: str, on: bool) -> None:
        code = self._lib.epbot_set_conventions(self._h(), side, name.encode(), int(on))
        self._ok(code, f"epbot_set_conventions({name!r})")

    def system_name(self, side: int) -> str:
        return self._text(lambda buf, size: self._lib.epbot_system_name(self._h(), side, buf, size))

    def set_scoring(self, imps: bool) -> None:
        self._ok(self._lib.epbot_set_scoring(self._h(), int(imps)), "epbot_set_scoring")

    def new_hand(self, seat: int, suits: str, dealer: int, vul: int) -> None:
        """Start a board: ``suits`` the ranks of clubs, diamonds, hearts, spades joined by
        newlines; seats 0-3 = N, E, S, W; ``vul`` = EW + 2 * NS."""
        code = self._lib.epbot_new_hand(self._h(), seat, suits.encode(), dealer, vul, 0, 0)
        self._ok(code, "epbot_new_hand")

    def set_bid(self, seat: int, call: int) -> None:
        self._ok(self._lib.epbot_set_bid(self._h(), seat, call, b""), "epbot_set_bid")

    def get_bid(self) -> int:
        return self._ok(self._lib.epbot_get_bid(self._h()), "epbot_get_bid")

    def set_bcalconsole(self, path: str) -> None:
        """Where EPBot finds BCalcConsole, the double-dummy solver its card play runs."""
        code = self._lib.epbot_set_bcalconsole_path(self._h(), path.encode())
        self._ok(code, "epbot_set_bcalconsole_path")

    def lead(self, force: bool = False) -> str:
        """EPBot's opening lead as it writes it, for the seat of the last ``new_hand`` after the
        auction told with ``set_bid``; :class:`EPBotError` with EPBot's own reason where it
        gives none (without BCalcConsole: ``201-No bcalconsole path``)."""
        text = self._text(
            lambda buf, size: self._lib.epbot_get_lead(self._h(), int(force), buf, size)
        )
        if not text.strip():
            reason = self._text(
                lambda buf, size: self._lib.epbot_get_last_epbot_error(self._h(), buf, size)
            )
            raise EPBotError(f"epbot_get_lead gave no lead: {reason or '(no reason given)'}")
        return text

    def interpret(self, call: int) -> None:
        """Make ``call`` the one the ``info`` readers describe at :data:`INTERPRETED`."""
        self._ok(self._lib.epbot_interpret_bid(self._h(), call), "epbot_interpret_bid")

    def meaning(self, position: int) -> str:
        return self._text(
            lambda buf, size: self._lib.epbot_get_info_meaning(self._h(), position, buf, size)
        )

    def alerting(self, position: int) -> bool:
        code = self._lib.epbot_get_info_alerting(self._h(), position)
        return bool(self._ok(code, "epbot_get_info_alerting"))

    def min_length(self, position: int) -> list[int]:
        """Least length of clubs, diamonds, hearts, spades the call at ``position`` shows."""
        return self._ints(self._lib.epbot_get_info_min_length, position, 4)

    def max_length(self, position: int) -> list[int]:
        return self._ints(self._lib.epbot_get_info_max_length, position, 4)

    def hcp(self, position: int) -> tuple[int, int]:
        """The least and most HCP the call at ``position`` shows."""
        features = self._ints(self._lib.epbot_get_info_feature, position, 512)
        return features[FEATURE_HCP_MIN], features[FEATURE_HCP_MAX]

    def _text(self, call: Callable[[ctypes.Array[ctypes.c_char], int], int]) -> str:
        size = 256
        while True:
            buf = ctypes.create_string_buffer(size)
            code = call(buf, size)
            if code == BUFFER_TOO_SMALL and size < 1 << 20:
                size *= 4
                continue
            self._ok(code, "an EPBot text")
            return buf.value.decode("utf-8", "replace")

    def _ints(self, function: Any, position: int, count: int) -> list[int]:
        """One of the ``epbot_get_info_*`` array readers: an int per suit (or feature)."""
        while True:
            array = (c_int * count)()
            n = c_int(0)
            code = function(self._h(), position, array, 4 * count, ctypes.byref(n))
            if code == BUFFER_TOO_SMALL and count < 1 << 16:
                count *= 4
                continue
            self._ok(code, "an EPBot array")
            return list(array[: n.value]) + [0] * (count - n.value)
