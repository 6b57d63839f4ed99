"""Batch inputs: files, folders, saved e-mails (.eml, Maildir) and mbox files -> scans to read.

Each scan becomes a :class:`ScanInput` carrying its content hash and, for e-mail
attachments, the sender, subject and date of the message.  Attachments that cannot
be a score sheet (logos, signatures, tiny inline images, non-image files) are
reported as :class:`Skipped`; files that cannot even be opened as :class:`InputProblem`.
"""

from __future__ import annotations

import email
import email.header
import email.policy
import email.utils
import hashlib
import io
import mailbox
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

from ocr.load import SNIFF_BYTES, sniff
from scoring.formspec import IMAGE_SUFFIXES, SCAN_SUFFIXES

EML_SUFFIXES = frozenset({".eml"})
MBOX_SUFFIXES = frozenset({".mbox", ".mbx"})
# An attached image smaller than this on its shorter side cannot hold a readable sheet.
MIN_ATTACHMENT_SIDE = 300
# Inline images (embedded in the message body) this small are logos or signatures.
MIN_INLINE_SIDE = 600
MIN_ATTACHMENT_BYTES = 2_000


@dataclass
class ScanInput:
    """One file to read: on disk (``path``) or extracted from a message (``data``)."""

    source: str  # what the user sees: the path, or "mail.eml #2 > scan.jpg"
    name: str  # safe file name, never containing a path separator
    sha256: str
    path: str | None = None
    data: bytes | None = None
    sender: str | None = None
    subject: str | None = None
    date: str | None = None  # ISO 8601 when the header parses, else as written
    attachment: str | None = None  # safe attachment name, for e-mailed scans
    container: str | None = None  # the .eml / mbox file it came from


@dataclass
class Skipped:
    """Something deliberately not read (a logo, a text attachment...), or a whole message with
    no scan attached (``message``: the organiser wants to know who sent no sheet)."""

    source: str
    reason: str
    message: bool = False
    file: bool = False  # a file in a folder that is not a scan or e-mail (named on stderr)
    sender: str | None = None  # a message's headers (message=True)
    subject: str | None = None
    date: str | None = None


@dataclass
class InputProblem:
    """An input that could not be opened at all; it is recorded as a failed scan."""

    source: str
    error: str
    sha256: str | None = None


Item = ScanInput | Skipped | InputProblem


@dataclass
class MailMessage:
    """One e-mail's headers, as the ledger keeps them (batch/mailbook.py): what makes it known
    when it comes again (its Message-ID, or its place in a mailbox) and what a reply needs."""

    container: str  # the start of its scans' sources: "week12.eml", "INBOX.mbox #3"
    message_id: str | None = None  # "<...>", or None when the message has none
    sender: str | None = None
    reply_to: str | None = None
    to: str | None = None
    subject: str | None = None
    date: str | None = None
    references: str | None = None
    mailbox: str | None = None  # imaps://USER@HOST/FOLDER when read from a mailbox
    uidvalidity: int | None = None
    uid: int | None = None


# Called with each e-mail and the items it gave, before they are yielded (batch/mailbook.py).
OnMessage = Callable[[MailMessage, list[Item]], None]
# The first line of a saved message without a file suffix (e.g. in a Maildir folder).
_HEADER_LINE = re.compile(rb"(Return-Path|Received|Delivered-To|From|Date|Message-ID|MIME-Version|"
                          rb"X-[A-Za-z0-9-]+):[^\r\n]*\r?\n", re.IGNORECASE)


def safe_name(name: str | None, default: str = "attachment") -> str:
    """A file name that is safe to create in any folder: no separators, no dot-dot, short."""
    name = unicodedata.normalize("NFKC", name or "")
    name = name.replace("\\", "/").split("/")[-1]
    name = re.sub(r"[\x00-\x1f\x7f<>:\"|?*]", "_", name).strip().strip(".")
    name = re.sub(r"\s+", " ", name)
    if not name or set(name) <= {"."}:
        name = default
    if len(name) > 120:
        stem, dot, suffix = name.rpartition(".")
        name = (stem[:100] + dot + suffix[:15]) if dot and len(suffix) <= 15 else name[:120]
    return name


def shown(name: str) -> str:
    """A file name as it may be printed in a log line: as it is when plain, else quoted with its
    control characters escaped (Python's repr), so a name can never start a line of its own,
    move the cursor, or hide a trailing space."""
    plain = name.isprintable() and name == name.strip() and not any(q in name for q in "'\"") \
        and ": " not in name
    return name if plain and name else repr(name)


def printable(text: str) -> str:
    """``text`` with every control or invisible formatting character escaped: one log line stays one."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def collect_inputs(paths: Iterable[str | Path], exclude: Iterable[str | Path] = (),
                   on_message: OnMessage | None = None) -> Iterator[Item]:
    """Expand ``paths`` (files, folders recursively, .eml, mbox) into items, in order.

    Folders under any ``exclude`` path (e.g. the batch's own output folder) are not entered.
    Each item's ``source`` (what the report, the ledger and the per-sheet JSON show) is the path
    relative to what was given (see :func:`shown_path`): no folder of the organiser's machine.
    ``on_message`` is told of every e-mail read, with the items it gave.
    """
    for raw in paths:
        path = Path(raw)
        excluded = [Path(p).resolve() for p in exclude] + [path.resolve()]
        if path.is_dir():
            problems: list[InputProblem] = []
            for child in sorted(_walk(path, excluded, problems)):
                yield from _from_file(child, explicit=False, source=shown_path(child, path),
                                      on_message=on_message)
            for problem in problems:
                problem.source = shown_path(Path(problem.source), path)
                yield problem
        else:
            yield from _from_file(path, explicit=True, source=shown_path(path, path),
                                  on_message=on_message)


def shown_path(path: Path, given: Path) -> str:
    """How ``path``, found under the command-line argument ``given``, is shown: as given when
    ``given`` is relative and stays below the current folder (``scans/week1/a.png``), else from
    the given folder's or file's own name on (``/home/org/scans`` -> ``scans/week1/a.png``)."""
    if not given.is_absolute() and ".." not in given.parts:
        return str(path)
    top = given.resolve()
    try:
        inside = path.resolve().relative_to(top) if path != given else Path()
    except ValueError:  # a symlink out of the folder: its name under the folder
        inside = path.relative_to(given) if path.is_relative_to(given) else Path(path.name)
    return str(Path(top.name) / inside) if top.name else str(inside)


def _walk(folder: Path, excluded: list[Path], problems: list[InputProblem]) -> Iterator[Path]:
    """Files under ``folder``; folders that cannot be listed are added to ``problems``."""
    try:
        children = list(folder.iterdir())
    except OSError as exc:
        problems.append(InputProblem(str(folder), f"cannot list folder: {exc.strerror or exc}"))
        return
    for child in children:
        if child.name.startswith("."):
            continue
        if child.is_dir():
            real = child.resolve()
            if real not in excluded:
                excluded.append(real)  # also stops symlink loops: every folder is entered once
                yield from _walk(child, excluded, problems)
        elif child.is_file():
            yield child


def _from_file(path: Path, explicit: bool, source: str | None = None,
               on_message: OnMessage | None = None) -> Iterator[Item]:
    source = str(path) if source is None else source
    try:
        kind = _kind(path)
    except OSError as exc:
        yield _problem(source, exc)
        return
    if kind is None:
        if not explicit:
            yield Skipped(source, "not an image, PDF or e-mail", file=True)
            return
        kind = "scan"  # named on the command line: let the reader say what is wrong with it
    try:
        if kind == "eml":
            msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            yield from _told(msg, source, on_message)
        elif kind == "mbox":
            yield from _mbox_scans(path, source, on_message)
        else:
            yield ScanInput(source=source, name=safe_name(path.name, "scan"),
                            sha256=sha256_file(path), path=str(path))
    except (OSError, mailbox.Error, ValueError) as exc:
        yield _problem(source, exc)


def _problem(source: str, exc: Exception) -> InputProblem:
    if isinstance(exc, FileNotFoundError):
        return InputProblem(source, "no such file")
    if isinstance(exc, PermissionError):
        return InputProblem(source, "permission denied")
    return InputProblem(source, f"cannot read: {exc}")


def _kind(path: Path) -> str | None:
    """"scan", "eml", "mbox" or None (not something to read).  The content decides (magic bytes);
    a scan's suffix on a file whose content is not one makes it a scan all the same, and the
    reader says what is wrong with it (empty, truncated...)."""
    with path.open("rb") as fh:
        head = fh.read(SNIFF_BYTES)
    if sniff(head) is not None:
        return "scan"
    suffix = path.suffix.lower().strip()  # "scan.jpg " is a JPEG's name too
    if suffix in SCAN_SUFFIXES:
        return "scan"
    if suffix in EML_SUFFIXES:
        return "eml"
    if suffix in MBOX_SUFFIXES:
        return "mbox"
    if suffix == "" or path.parent.name in ("cur", "new"):  # mbox, Maildir
        if head.startswith(b"From "):
            return "mbox"
        if _HEADER_LINE.match(head):
            return "eml"
    return None


def _mbox_scans(path: Path, source: str, on_message: OnMessage | None = None) -> Iterator[Item]:
    box = mailbox.mbox(path, create=False)
    try:
        for i, key in enumerate(box.keys()):
            msg = email.message_from_bytes(box.get_bytes(key), policy=email.policy.default)
            yield from _told(msg, f"{source} #{i + 1}", on_message)
    finally:
        box.close()


def _told(msg: EmailMessage, container: str, on_message: OnMessage | None) -> Iterator[Item]:
    """:func:`message_scans`, telling ``on_message`` of the message and its items first."""
    if on_message is None:
        yield from message_scans(msg, container)
        return
    items = list(message_scans(msg, container))
    on_message(message_info(msg, container), items)
    yield from items


def message_info(msg: EmailMessage, container: str) -> MailMessage:
    """The headers of ``msg`` that the ledger keeps (see :class:`MailMessage`)."""
    return MailMessage(container=container, message_id=message_id(_header(msg, "Message-ID")),
                       sender=_header(msg, "From"), reply_to=_header(msg, "Reply-To"),
                       to=_header(msg, "To"), subject=_header(msg, "Subject"), date=_date(msg),
                       references=_header(msg, "References"))


def message_id(raw: str | None) -> str | None:
    """A Message-ID header as one id: its first ``<...>``, else its text; None when empty."""
    if not raw:
        return None
    found = re.search(r"<[^<>\s]+>", raw)
    text = found.group(0) if found else raw.strip()
    return text[:998] or None


def message_scans(msg: EmailMessage, container: str) -> Iterator[Item]:
    """The scans attached to one message, with its sender, subject and date."""
    sender = _header(msg, "From")
    subject = _header(msg, "Subject")
    date = _date(msg)
    used: set[str] = set()
    found = False  # a scan (or an attachment that failed to decode) came out of this message
    for n, part in enumerate(msg.walk()):
        if part.is_multipart():
            continue
        raw_name = part.get_filename()
        ctype = part.get_content_type()
        if raw_name is None and not ctype.startswith("image/") and ctype != "application/pdf":
            continue  # message text
        name = safe_name(raw_name, default=f"part{n}{_guess_suffix(ctype)}")
        source = f"{container} > {name}"
        suffix = Path(name).suffix.lower()
        is_pdf = ctype == "application/pdf" or suffix == ".pdf"
        is_image = ctype.startswith("image/") or suffix in IMAGE_SUFFIXES
        if not (is_pdf or is_image):
            yield Skipped(source, f"not an image or PDF ({ctype})")
            continue
        try:
            data = part.get_payload(decode=True) or b""
        except Exception as exc:  # malformed transfer encoding
            found = True
            yield InputProblem(source, f"cannot decode attachment: {exc}")
            continue
        reason = None if is_pdf else _too_small(part, data)
        if reason:
            yield Skipped(source, reason)
            continue
        name = _unique(name, used)
        found = True
        yield ScanInput(source=f"{container} > {name}", name=name,
                        sha256=hashlib.sha256(data).hexdigest(), data=data, sender=sender,
                        subject=subject, date=date, attachment=name, container=container)
    if not found:
        said = ", ".join(x for x in (f"from {sender}" if sender else "", repr(subject) if subject else "") if x)
        yield Skipped(container, "no scan attached" + (f" ({said})" if said else ""), message=True,
                      sender=sender, subject=subject, date=date)


def _too_small(part: EmailMessage, data: bytes) -> str | None:
    """Why an attached image is a logo/signature rather than a scan, or None."""
    if len(data) < MIN_ATTACHMENT_BYTES:
        return f"tiny image ({len(data)} bytes)"
    size = _image_size(data)
    if size is None:
        return None  # undecodable: the reader will say why
    w, h = size
    inline = part.get_content_disposition() == "inline" or (
        part.get_content_disposition() is None and part["Content-ID"] is not None)
    if min(w, h) < MIN_ATTACHMENT_SIDE:
        return f"small image ({w}x{h} px), probably a logo or signature"
    if inline and part["Content-ID"] is not None and min(w, h) < MIN_INLINE_SIDE:
        return f"inline image in the message body ({w}x{h} px)"
    return None


def _image_size(data: bytes) -> tuple[int, int] | None:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as im:  # reads the header only
            return im.size
    except Exception:
        return None


def _header(msg: EmailMessage, key: str) -> str | None:
    """A header's value on one line.  One the parser had to repair (a malformed address: two @,
    a missing bracket) is kept as written, encoded words decoded, so no part of it is lost."""
    try:
        value = msg.get(key)
    except Exception:  # a header the e-mail parser cannot decode
        value = None
    raw = next((v for k, v in msg.raw_items() if k.lower() == key.lower()), None)
    if raw is not None and (value is None or getattr(value, "defects", ())):
        value = _decoded(raw)
    if value is None:
        return None
    text = re.sub(r"\s+", " ", str(value)).strip()
    return text or None


def _decoded(raw: str) -> str:
    """A raw header with its encoded words (=?utf-8?q?...?=) decoded, as far as they decode."""
    try:
        return str(email.header.make_header(email.header.decode_header(raw)))
    except Exception:
        return raw


def _date(msg: EmailMessage) -> str | None:
    raw = _header(msg, "Date")
    if raw is None:
        return None
    try:
        return email.utils.parsedate_to_datetime(raw).isoformat()
    except (TypeError, ValueError, IndexError):
        return raw


def _guess_suffix(ctype: str) -> str:
    return {"image/jpeg": ".jpg", "image/png": ".png", "image/tiff": ".tif",
            "application/pdf": ".pdf", "image/gif": ".gif", "image/webp": ".webp"}.get(ctype, "")


def _unique(name: str, used: set[str]) -> str:
    stem, suffix = Path(name).stem, Path(name).suffix
    candidate, k = name, 1
    while candidate.lower() in used:
        k += 1
        candidate = f"{stem}-{k}{suffix}"
    used.add(candidate.lower())
    return candidate
