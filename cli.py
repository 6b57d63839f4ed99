"""rubberscan command line: wires the stages together, nothing more.

    rubberscan read   [--format json|jsonl|csv] PATH...     read sheets (CONTRACT.md)
    rubberscan cell   [--format jsonl] IMAGE...             read one number from each cell crop
    rubberscan score  [--format json|text] FILE|-           score a rubber from deal notation
    rubberscan form   [OUT.pdf]                              the blank summary sheet to print
    rubberscan batch  INPUT... --out DIR                     the organiser's batch run
    rubberscan audit  DIR                                    re-reconcile a batch's stored readings
    rubberscan replies DIR --out OUTBOX                      e-mails asking for new scans
    rubberscan export DIR --format csv|json                  every match, as verified
    rubberscan competition DIR --pairs PAIRS.csv             set up a competition (pairs, draw)
    rubberscan draw   DIR --round N                          the next round's draw
    rubberscan results DIR [--format json|csv|text]          one entry per match of the draw
    rubberscan review DIR [--port N] [--host H]              check and correct in the browser
    rubberscan labels DIR --out FILE.npz                     the cells people decided, to train on
    rubberscan demo                                          what `make demo` runs
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from enum import IntEnum


class ExitCode(IntEnum):
    """Every exit status the tool returns, in one place (the batch epilog and README list them)."""

    OK = 0
    FAILED = 1  # the one thing asked for could not be done (a bad score line, an unwritable form)
    USAGE = 2  # bad usage: unknown option, missing input path, damaged ledger, folder busy
    SOME_FAILED = 3  # batch/audit: some inputs could not be read (listed in the summary and report)
    WRITE_FAILED = 5  # the output folder or file could not be written (read-only, a file, full)
    INTERRUPTED = 130  # batch: Ctrl-C; everything finished before it is kept


# --------------------------------------------------------------------------- score
def add_score_parser(sub) -> None:
    p = sub.add_parser("score", help="score a rubber-bridge match from deal notation")
    p.add_argument("file", help="deal notation file, or - for standard input")
    p.add_argument("--format", choices=("json", "text"), default="text")
    p.add_argument("--unfinished", action="store_true",
                   help="add the unfinished-rubber bonus to the last deal")
    p.add_argument("--house-rule", choices=("each", "ahead", "laws"), default="each",
                   help="who gets the unfinished-rubber bonus (see scoring.model.HouseRules)")
    p.add_argument("--partscore-bonus", type=int, choices=(100, 50), default=100,
                   help="unfinished bonus for a part-score in the unfinished game")
    p.set_defaults(func=cmd_score)


def cmd_score(args) -> int:
    """Score deal notation; bad lines go to stderr with their line numbers (exit 1)."""
    import json

    from scoring.model import HouseRules
    from scoring.notation import NotationError, parse_deals
    from scoring.pad import score_match
    from scoring.padtext import render_pad

    try:
        if args.file == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as fh:
                raw = fh.read()
        text = raw.decode("utf-8-sig")  # a byte-order mark (Windows editors) is no part of a line
    except (OSError, UnicodeDecodeError) as exc:
        print(f"rubberscan score: cannot read {args.file}: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    text, long_lines = _screen_notation(text)
    try:
        errors = []
        results = parse_deals(text)
    except NotationError as exc:
        errors = exc.errors
    errors = sorted(errors + long_lines)
    if errors:
        for number, message in errors:
            print(f"{args.file}: line {number}: {message}", file=sys.stderr)
        return ExitCode.FAILED
    if not results:
        print(f"rubberscan score: no deals in {args.file} (empty input); one deal a line, "
              "e.g. 4S N 10", file=sys.stderr)
        return ExitCode.FAILED
    match = score_match(results, HouseRules(args.house_rule, args.partscore_bonus),
                        unfinished=args.unfinished)
    if args.format == "json":
        for line in match.lines:
            print(json.dumps(line.to_json()))
    else:
        sys.stdout.write(render_pad(match))
    return ExitCode.OK


# The suit symbols the tool's own output uses (and their outline forms), as notation letters.
SUIT_LETTERS = str.maketrans("♠♥♦♣♤♡♢♧", "SHDCSHDC")
MAX_DEAL_LINE = 200  # characters; the longest deal, "6NTxx S 12 honours 150 NS", has 25


def _screen_notation(text: str) -> tuple[str, list[tuple[int, str]]]:
    """Suit symbols as letters; a line too long to be a deal (comments aside) becomes an error of
    its own, blanked so that no message echoes it whole."""
    lines, errors = text.translate(SUIT_LETTERS).splitlines(), []
    for i, line in enumerate(lines):
        deal = line.split("#", 1)[0].strip()
        if len(deal) > MAX_DEAL_LINE:
            errors.append((i + 1, f"too long to be a deal ({len(deal)} characters, starting "
                                  f"{deal[:20]!r}); one deal a line, e.g. 4S N 10"))
            lines[i] = ""
    return "\n".join(lines), errors


# --------------------------------------------------------------------------- read
def add_read_parser(sub) -> None:
    p = sub.add_parser("read", help="read summary score sheets (CONTRACT.md)")
    p.add_argument("paths", nargs="+", metavar="PATH", help="scan files (image, PDF) or folders")
    p.add_argument("--format", choices=("json", "jsonl", "csv", "text"), default=None,
                   help="json: one JSON document, the sheet's object or, for several sheets, an "
                        "array of them (default for one file); jsonl: one object a line (default "
                        "for several); csv; text")
    p.add_argument("--unfinished", choices=("each", "ahead", "laws"), default=None,
                   help="house rule for the unfinished-rubber bonus (default: accept either)")
    p.set_defaults(func=cmd_read)


def expand_paths(paths: list[str]) -> list[str]:
    """Files as given, folders expanded (recursively, sorted) to their scan files."""
    from pathlib import Path


    out: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out.extend(str(f) for f in sorted(path.rglob("*")) if f.is_file() and _is_scan(f))
        else:
            out.append(raw)
    return out


def _is_scan(path) -> bool:
    """A scan by its suffix or, whatever its name (.jfif, none, a trailing space), by content."""
    from ocr.load import SNIFF_BYTES, sniff
    from scoring.formspec import SCAN_SUFFIXES

    if path.suffix.lower().strip() in SCAN_SUFFIXES:
        return True
    try:
        with path.open("rb") as fh:
            return sniff(fh.read(SNIFF_BYTES)) is not None
    except OSError:
        return False


def read_sheets(path: str, rules=None) -> list[dict]:
    """Every sheet (page) of one file as CONTRACT.md objects (ocr.pipeline.read_results, the one
    read path); a page that cannot be read becomes an error object.  Each page becomes its JSON as
    it comes, so no page's image is held once it is reconciled."""
    from ocr.pipeline import read_results

    objects: list[dict] = []
    for result in read_results(path, rules=rules):
        if result.blank_back:  # the blank back of a scanned sheet: nothing to read, nothing wrong
            from batch.inputs import printable  # only here: it imports the mail modules

            print(f"rubberscan read: {printable(result.error)}: skipped", file=sys.stderr)
            continue
        obj = result.to_json()
        obj["page"] = result.page + 1
        objects.append(obj)
    if len(objects) == 1:  # "page" only where a file gave several sheets
        objects[0].pop("page")
    return objects


def cmd_read(args) -> int:
    import json

    from report.csvfile import DEAL_ROW_COLUMNS, Writer, deal_rows

    files = expand_paths(args.paths)
    if not files:
        print("rubberscan read: no scan files found in " + " ".join(args.paths), file=sys.stderr)
        return ExitCode.USAGE
    fmt = args.format or ("json" if len(files) == 1 else "jsonl")
    rules = None
    if args.unfinished:
        from scoring.model import HouseRules
        rules = HouseRules(unfinished=args.unfinished)
    writer = Writer(sys.stdout, DEAL_ROW_COLUMNS) if fmt == "csv" else None
    sheets = []  # --format json: one JSON document, printed at the end
    for path in files:
        for obj in read_sheets(path, rules=rules):
            if fmt == "json":
                sheets.append(obj)
            elif fmt == "jsonl":
                print(json.dumps(obj, ensure_ascii=False))
            elif writer is not None:
                writer.write(deal_rows(obj))
            else:
                from report.text import sheet_text
                print(sheet_text(obj))
            sys.stdout.flush()
    if fmt == "json":  # one sheet: its object; several (paths, a folder, pages): an array of them
        print(json.dumps(sheets[0] if len(sheets) == 1 else sheets, indent=2, ensure_ascii=False))
    return ExitCode.OK


# --------------------------------------------------------------------------- cell
def add_cell_parser(sub) -> None:
    p = sub.add_parser("cell", help="read one number from each image crop of a score cell "
                       "(CONTRACT.md)")
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files, each one cell's number")
    p.add_argument("--format", choices=("jsonl",), default="jsonl", help="one JSON object per line")
    p.set_defaults(func=cmd_cell)


def cmd_cell(args) -> int:
    import json

    from ocr.cellread import read_crops

    for obj in read_crops(args.images):
        print(json.dumps(obj, ensure_ascii=False), flush=True)
    return ExitCode.OK


# --------------------------------------------------------------------------- form
def add_form_parser(sub) -> None:
    p = sub.add_parser("form", help="write the blank summary score sheet as a printable PDF")
    p.add_argument("out", nargs="?", default="summary-sheet.pdf", metavar="OUT.pdf",
                   help="where to write the PDF (default: summary-sheet.pdf)")
    p.add_argument("--layout", choices=("classic", "wide"), default="classic",
                   help="classic: scoring table beside the deals; "
                   "wide: full width with a Total row")
    p.add_argument("--dpi", type=int, default=300, help="resolution of the page image (150-600)")
    p.add_argument("--match", metavar="ID", action="append", default=None,
                   help="a match's own form: its pairs' names printed in and a QR code with the "
                   "match (needs --dir); repeat it, or give 'all' for every match of the draw")
    p.add_argument("--round", type=int, metavar="N", help="with --dir: every match of round N")
    p.add_argument("--dir", metavar="DIR", help="the batch folder holding the competition")
    p.set_defaults(func=cmd_form)


def cmd_form(args) -> int:
    from pathlib import Path

    from ocr.form import form_pdf_bytes

    if not 150 <= args.dpi <= 600:
        print(f"rubberscan form: --dpi {args.dpi} out of range 150..600", file=sys.stderr)
        return ExitCode.USAGE
    if args.match or args.round is not None or args.dir:
        return cmd_match_forms(args)
    out = Path(args.out)
    try:
        out.write_bytes(form_pdf_bytes(args.layout, dpi=args.dpi))
    except OSError as exc:
        print(f"rubberscan form: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return ExitCode.FAILED
    print(f"wrote {out} ({args.layout} layout, A4)")
    return ExitCode.OK


# --------------------------------------------------------------------- batch, audit, export, demo

BATCH_EPILOG = """exit status: 0 every input read (flags are results, not errors); 2 bad usage
(unknown option, missing input path, a damaged ledger in DIR, another batch working
in DIR, a --cluster that cannot be used or reached); 3 some inputs failed, in this
run or when they were first processed (each listed with its reason on stderr or in
DIR/report.html, and in the ledger);
5 DIR could not be written (read-only, a file, disk full...); 130 interrupted by
Ctrl-C or SIGTERM (finished sheets are kept; run again to continue)."""


def _add_rules_options(p) -> None:
    from scoring.model import UNFINISHED_OPTIONS

    p.add_argument("--unfinished", choices=UNFINISHED_OPTIONS, default=None,
                   help="unfinished-rubber bonus house rule "
                   "(default: as last used in DIR, else each)")
    p.add_argument("--partscore", type=int, choices=(100, 50), default=None,
                   help="unfinished-rubber part-score bonus "
                   "(default: as last used in DIR, else 100)")


def _add_mailbox_options(p) -> None:
    """batch's options for mailbox inputs (batch/imap.py)."""
    from datetime import date

    def day(text: str) -> date:
        try:
            return date.fromisoformat(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: a date such as 2026-03-01") from None

    g = p.add_argument_group("mailbox inputs (imaps://USER@HOST[:PORT]/FOLDER; the password from "
                             "RUBBERSCAN_IMAP_PASSWORD or ~/.netrc)")
    g.add_argument("--since", type=day, metavar="DATE",
                   help="only messages that arrived on or after this day (YYYY-MM-DD)")
    g.add_argument("--move-to", metavar="FOLDER",
                   help="move each message to FOLDER (made when missing) once all it brought is in "
                   "the ledger; messages are never deleted")
    g.add_argument("--imap-ca", metavar="FILE",
                   help="trust this certificate authority (PEM) for the server's certificate")
    g.add_argument("--insecure-imap", action="store_true",
                   help="allow imap:// without TLS (a server on this machine, tests)")


def add_batch_parsers(sub) -> None:
    p = sub.add_parser("batch", help="read many scans (files, folders, .eml, mbox, IMAP mailboxes) "
                       "into a ledger and report",
                       epilog=BATCH_EPILOG)
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="image/PDF files, folders, .eml or mbox files, imaps:// mailboxes")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="output folder (ledger, report, sheets/)")
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default and most: one per CPU core)")
    p.add_argument("--force", action="store_true", help="re-read scans already in the ledger")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S",
                   help="per-scan time limit in seconds (default 60); slower scans are recorded "
                   "as failed")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_rules_options(p)
    add_cluster_options(p, shared_path=True)
    _add_mailbox_options(p)
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser("audit", help="re-reconcile a batch's stored readings "
                       "(e.g. after a house-rule change)")
    p.add_argument("dir", metavar="DIR")
    _add_rules_options(p)
    add_cluster_options(p)
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("export", help="every match of a batch's ledger, with the values people "
                       "verified and each sheet's review status")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--format", choices=("csv", "json"), default="csv",
                   help="csv: a row per sheet; json: an array of an object per sheet")
    p.add_argument("--output", metavar="FILE", help="write here instead of standard output")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("demo",
                       help="batch over the bundled samples into out/ (what `make demo` runs)")
    p.add_argument("--jobs", type=int, default=None)
    p.set_defaults(func=cmd_demo)


def _list_on_stderr(label: str, lines: list[str], more: str, limit: int = 50) -> None:
    """The first ``limit`` of ``lines`` as "label: line", then how many more there are; a control
    character in a name or message is printed escaped (a name cannot forge a line)."""
    from batch.inputs import printable

    for line in lines[:limit]:
        print(f"{label}: {printable(line)}", file=sys.stderr)
    if len(lines) > limit:
        print(f"... and {len(lines) - limit} more {more}", file=sys.stderr)


def run_batch_command(inputs: list[str], out: str, jobs: int | None = None, force: bool = False,
                      timeout: float = 60.0, unfinished: str | None = None,
                      partscore: int | None = None, progress: bool = True, mail=None,
                      cluster: str | None = None, shared_path: bool = False) -> int:
    """The batch subcommand's work; returns the exit status (see BATCH_EPILOG).  ``mail``:
    batch.imap.MailboxOptions for mailbox inputs; ``cluster``/``shared_path``: --cluster and
    --shared-path (batch/cluster.py)."""
    from pathlib import Path

    from batch.cluster import ClusterError
    from batch.imap import MailboxOptions, MailInputs, is_mailbox, open_mailboxes
    from batch.inputs import printable, shown
    from batch.ledger import LedgerError
    from batch.mailurl import MailURLError
    from batch.outputs import REPORT_NAME
    from batch.runner import BatchOptions, effective_jobs, run_batch

    mail = mail or MailboxOptions()
    try:
        mailboxes = open_mailboxes(inputs, mail)
    except MailURLError as exc:
        print(f"rubberscan batch: {printable(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    if mail.move_to is not None and not mailboxes:
        print("rubberscan batch: --move-to needs a mailbox input (imaps://...)", file=sys.stderr)
        return ExitCode.USAGE
    missing = [shown(p) for p in inputs if not is_mailbox(p) and not Path(p).exists()]
    if missing:
        print(f"rubberscan batch: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return ExitCode.USAGE
    if jobs is not None and jobs < 1:
        print(f"rubberscan batch: --jobs {jobs}: at least 1 worker is needed", file=sys.stderr)
        return ExitCode.USAGE
    if not (math.isfinite(timeout) and timeout > 0):
        print(f"rubberscan batch: --timeout {timeout}: a number of seconds above 0 is needed",
              file=sys.stderr)
        return ExitCode.USAGE
    if cluster_usage_error("batch", cluster, jobs, shared_path):
        return ExitCode.USAGE
    if jobs is not None and effective_jobs(jobs) < jobs:
        print(f"note: --jobs {jobs}: {effective_jobs(jobs)} workers, one per CPU core (more "
              "would only share the cores and take more memory)", file=sys.stderr)
    out_dir = Path(out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = "not a folder" if out_dir.exists() else exc.strerror or exc
        print(f"rubberscan batch: cannot write output folder {shown(out)}: {reason}",
              file=sys.stderr)
        return ExitCode.WRITE_FAILED
    options = BatchOptions(out_dir=out_dir, jobs=jobs or 0, timeout=timeout, force=force,
                           unfinished=unfinished, partscore=partscore, progress=progress,
                           cluster=cluster, shared_path=shared_path)
    items = MailInputs(inputs, out_dir, [out_dir, out_dir / "sheets"], mailboxes, force=force,
                       progress=progress)
    try:
        summary = run_batch(items, options)
        items.finish()  # mailboxes: moves what is done; empties the spool
    except ClusterError as exc:
        print(f"rubberscan batch: {printable(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    except LedgerError as exc:
        print(f"rubberscan batch: {printable(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    except OSError as exc:  # read-only folder, disk full, folder made read-only mid-run...
        print(f"rubberscan batch: cannot write to {shown(out)}: {printable(str(exc))}",
              file=sys.stderr)
        return ExitCode.WRITE_FAILED
    except KeyboardInterrupt:  # a second Ctrl-C, or one while the inputs were being listed
        print("rubberscan batch: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    _list_on_stderr("skipped", summary.skipped_files, "files skipped")
    _list_on_stderr("skipped", items.skipped, "attachments skipped")
    _list_on_stderr("failed", summary.failures + items.failures(), "failures (see the report)")
    for line in items.lines():
        print(f"mailbox {printable(line)}", file=sys.stderr)
    _list_on_stderr("no scan", summary.no_scan, "e-mails without a scan")
    _list_on_stderr("scan again", summary.rescan, "sheets to scan again")
    print(f"rubberscan batch: {printable(summary.line())}", file=sys.stderr)
    if summary.rules_changed:
        print(f"note: house rules changed; run `rubberscan audit {out}` to re-score earlier sheets",
              file=sys.stderr)
    print(f"report: {out_dir / REPORT_NAME}")
    if not summary.interrupted:
        _refresh_competition(out_dir)
    if summary.interrupted:
        return ExitCode.INTERRUPTED
    failed = summary.failed or summary.failed_before or items.failures()
    return ExitCode.SOME_FAILED if failed else ExitCode.OK


def _refresh_competition(out_dir) -> None:
    """After a batch: a competition set up in the folder matches the new sheets and its page is
    written again (nothing when there is none; a problem is said, the batch's status stands)."""
    from batch.ledger import LEDGER_NAME, Ledger, LedgerError
    from competition.outputs import write_pages
    from competition.run import refresh
    from competition.store import info

    try:
        with Ledger(out_dir / LEDGER_NAME) as ledger:
            if info(ledger) is None:
                return
            today = _today(None, "batch")
            page = write_pages(out_dir, refresh(ledger, today=today), today, ledger)
    except (LedgerError, OSError) as exc:
        print(f"rubberscan batch: the competition page was not brought up to date: {exc}",
              file=sys.stderr)
        return
    print(f"competition: {page}")


def cmd_batch(args) -> int:
    from batch.imap import MailboxOptions

    mail = MailboxOptions(insecure=args.insecure_imap, ca=args.imap_ca, since=args.since,
                          move_to=args.move_to)
    return run_batch_command(args.inputs, args.out, jobs=args.jobs, force=args.force,
                             timeout=args.timeout, unfinished=args.unfinished,
                             partscore=args.partscore, progress=not args.quiet, mail=mail,
                             cluster=args.cluster, shared_path=args.shared_path)


def cmd_audit(args) -> int:
    from batch.audit import audit
    from batch.cluster import ClusterError
    from batch.ledger import LedgerError

    if cluster_usage_error("audit", args.cluster):
        return ExitCode.USAGE
    try:
        result = audit(args.dir, unfinished=args.unfinished, partscore=args.partscore,
                       cluster=args.cluster)
    except ClusterError as exc:
        print(f"rubberscan audit: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except LedgerError as exc:
        print(f"rubberscan audit: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except OSError as exc:  # a read-only folder, disk full
        print(f"rubberscan audit: {exc}", file=sys.stderr)
        return ExitCode.WRITE_FAILED
    for line in result.changes:
        print(line)
    for line in result.errors:
        print(f"error: {line}", file=sys.stderr)
    print(f"rubberscan audit: {result.sheets} sheets re-reconciled, "
          f"{result.changed_sheets} changed",
          file=sys.stderr)
    return ExitCode.SOME_FAILED if result.errors else ExitCode.OK


def cmd_export(args) -> int:
    import io
    from pathlib import Path

    from batch.atomic import atomic_write_text
    from batch.export import write_csv, write_json
    from batch.ledger import LEDGER_NAME, Ledger, LedgerError

    path = Path(args.dir) / LEDGER_NAME
    if not path.is_file():
        print(f"rubberscan export: no {LEDGER_NAME} in {args.dir}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        with Ledger(path, readonly=True) as ledger:
            buf = io.StringIO()
            n = (write_json if args.format == "json" else write_csv)(ledger, buf)
    except LedgerError as exc:
        print(f"rubberscan export: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    if args.output:
        try:
            atomic_write_text(args.output, buf.getvalue())
        except OSError as exc:
            print(f"rubberscan export: cannot write {args.output}: {exc.strerror or exc}",
                  file=sys.stderr)
            return ExitCode.WRITE_FAILED
        what = "sheets" if args.format == "json" else "rows"
        print(f"rubberscan export: {n} {what} written to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(buf.getvalue())
    return ExitCode.OK


# --------------------------------------------------------------------------- --cluster
def add_cluster_options(p, shared_path: bool = False) -> None:
    """--cluster (and, for batch, --shared-path): run on a Dask cluster (README)."""
    p.add_argument("--cluster", metavar="tcp://HOST:PORT|local:N", default=None,
                   help="run on a Dask distributed cluster: a scheduler's address, or local:N for "
                   "a local cluster of N worker processes (needs rubberscan[cluster])")
    if shared_path:
        p.add_argument("--shared-path", action="store_true",
                       help="with --cluster: the workers open the input files at the same "
                       "absolute paths (shared storage) instead of being sent their bytes")


def cluster_usage_error(command: str, cluster: str | None, jobs: int | None = None,
                        shared_path: bool = False) -> bool:
    """Print why --cluster cannot be used as given (a bad address, the extra missing, --jobs or
    --shared-path beside it); True when it cannot."""
    from batch.cluster import ClusterError, parse_cluster, require_dask

    problem = None
    if cluster is None:
        if shared_path:
            problem = "--shared-path needs --cluster (the workers of a cluster open the files)"
    elif jobs is not None:
        problem = ("--jobs sets the local pool's workers; with --cluster the cluster's workers "
                   "read (local:N for N local worker processes)")
    else:
        try:
            parse_cluster(cluster)
            require_dask()
        except ClusterError as exc:
            problem = str(exc)
    if problem:
        print(f"rubberscan {command}: {problem}", file=sys.stderr)
    return problem is not None


# --------------------------------------------------------------------------- replies
def add_replies_parser(sub) -> None:
    p = sub.add_parser("replies", help="e-mails to the pairs whose sheet needs a new scan or "
                       "photo, or whose winners line does not match the sheet (batch/replies.py)",
                       epilog="exit status: 0 done; 2 bad usage (no ledger in DIR, no password "
                       "for the SMTP server...); 3 some replies could not be sent (run again to "
                       "send them); 5 OUTBOX could not be written.")
    p.add_argument("dir", metavar="DIR", help="a batch folder")
    p.add_argument("--out", metavar="OUTBOX",
                   help="write each reply not written before as a ready-to-send .eml file here")
    p.add_argument("--smtp", metavar="URL",
                   help="send each reply not sent before: smtps://USER@HOST[:PORT], or "
                   "smtp://USER@HOST[:PORT] with STARTTLS; the password from "
                   "RUBBERSCAN_SMTP_PASSWORD or ~/.netrc")
    p.add_argument("--smtp-ca", metavar="FILE",
                   help="trust this certificate authority (PEM) for the SMTP server")
    p.add_argument("--from", dest="sender", metavar="ADDRESS",
                   help="the replies' From (default: the address each e-mail was sent to)")
    p.set_defaults(func=cmd_replies)


def cmd_replies(args) -> int:
    from pathlib import Path

    from batch.inputs import printable, shown
    from batch.ledger import LEDGER_NAME, Ledger, LedgerError
    from batch.mailbook import MailBook
    from batch.mailurl import MailURLError, find_password, parse_mail_url, tls_context
    from batch.replies import PASSWORD_ENV, SCHEMES, plan_replies, send_replies, write_replies

    def say(text: str) -> None:
        print(f"rubberscan replies: {printable(text)}", file=sys.stderr)

    if not (args.out or args.smtp):
        say("say where the replies go: --out OUTBOX (.eml files) and/or --smtp URL (send them)")
        return ExitCode.USAGE
    path = Path(args.dir) / LEDGER_NAME
    if not path.is_file():
        say(f"no {LEDGER_NAME} in {shown(args.dir)}")
        return ExitCode.USAGE
    server = password = context = None
    try:
        if args.smtp:
            server = parse_mail_url(args.smtp, SCHEMES)
            password = find_password(server, PASSWORD_ENV) if server.user else None
            context = tls_context(args.smtp_ca)
    except MailURLError as exc:
        say(str(exc))
        return ExitCode.USAGE
    failed, written, sent = False, 0, 0
    try:
        with Ledger(path, lock=True) as ledger:
            plan = plan_replies(ledger, args.sender)
            book = MailBook(ledger)
            if args.out:
                try:
                    for file in write_replies(plan.replies, Path(args.out), book):
                        print(f"wrote {file}")
                        written += 1
                except OSError as exc:
                    say(f"cannot write to {shown(args.out)}: {exc.strerror or exc}")
                    return ExitCode.WRITE_FAILED
            if server is not None:
                result = send_replies(plan.replies, server, password, context, book)
                for reply in result.sent:
                    print(f"sent to {reply.to}: {printable(reply.subject)}")
                sent = len(result.sent)
                for error in result.errors:
                    print(f"failed: {printable(error)}", file=sys.stderr)
                failed = bool(result.errors)
    except LedgerError as exc:
        say(str(exc))
        return ExitCode.USAGE
    _list_on_stderr("no reply", plan.no_address, "sheets without anyone to reply to")
    n = len(plan.replies)
    done = [f"{written} written" if args.out else "", f"{sent} sent" if server else ""]
    say(f"{n} e-mail{'s' if n != 1 else ''} call{'' if n != 1 else 's'} for a reply: "
        f"{', '.join(d for d in done if d)} now (each reply is written once and sent once)")
    return ExitCode.SOME_FAILED if failed else ExitCode.OK


DEMO_SHEETS = 6


def cmd_demo(args) -> int:
    from pathlib import Path

    root = Path(__file__).resolve().parent
    samples = root / "samples" / "scans"
    if not samples.is_dir():  # no bundled scans: make a few with the sample generator
        samples = root / "samples" / "_generated" / "demo"
        if not any(samples.glob("sheet-*")):
            import subprocess

            print(f"no samples/scans folder: generating {DEMO_SHEETS} sample sheets in {samples}",
                  file=sys.stderr)
            made = subprocess.run([sys.executable, str(root / "samples" / "generate.py"), "--out",
                                   str(samples), "--count", str(DEMO_SHEETS), "--seed", "1"])
            if made.returncode != 0:
                print("rubberscan demo: could not generate the sample sheets", file=sys.stderr)
                return ExitCode.FAILED
    status = run_batch_command([str(samples)], str(root / "out"), jobs=args.jobs)
    # Sheets that fail are part of the demo's report, not a failure of the demo itself.
    return ExitCode.OK if status == ExitCode.SOME_FAILED else status


# --------------------------------------------------------------------------- competition
COMPETITION_EPILOG = """PAIRS.csv: pair,names,grade,emails,area (names like 'Hill / Cheater';
grade Jnr, Int or Open; emails space-separated). DRAW.csv: round,match,pair_a,pair_b,deadline
(pair_b empty for a bye; deadline an ISO date or empty). Running it again updates both: the
rounds in DRAW.csv replace those rounds, the others are kept. Exit status: 0 done; 1 a file's
content is wrong (every bad line named); 2 bad usage (missing file, a folder another batch is
working in)."""


def add_competition_parsers(sub) -> None:
    p = sub.add_parser("competition", help="set up or update a competition in a batch folder "
                       "(pairs, draw)", epilog=COMPETITION_EPILOG)
    p.add_argument("dir", metavar="DIR", help="the batch folder (created when missing)")
    p.add_argument("--pairs", metavar="PAIRS.csv", help="the pairs (required the first time)")
    p.add_argument("--draw", metavar="DRAW.csv", help="the draw, or a round of it")
    p.add_argument("--name", help="the competition's name, shown on its page and forms")
    p.add_argument("--assign", metavar="SHEET=MATCH[:NS]", action="append", default=[],
                   help="answer 'which match is this sheet?': a sheet id (see the competition "
                   "page), a match id or 'none', and the pair that sat N/S")
    p.add_argument("--today", metavar="DATE", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_competition)

    p = sub.add_parser("draw", help="draw the next round of a competition: the pairs still in, "
                       "at random, avoiding pairs of one club or area where it can")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--round", type=int, required=True, metavar="N")
    p.add_argument("--deadline", metavar="DATE", help="play by this date (ISO, e.g. 2025-07-31)")
    p.add_argument("--seed", type=int, help="the random draw's seed (default: the competition's)")
    p.add_argument("--force", action="store_true", help="draw a round again that has sheets")
    p.add_argument("--today", metavar="DATE", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_draw)

    p = sub.add_parser("results", help="one entry per match of a competition's draw (CONTRACT.md)")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--format", choices=("json", "csv", "text"), default="json")
    p.add_argument("--today", metavar="DATE",
                   help="judge deadlines as on this date (default: today)")
    p.set_defaults(func=cmd_results)


def _today(text: str | None, command: str):
    from datetime import date

    if not text:
        return date.today()
    try:
        return date.fromisoformat(text)
    except ValueError:
        print(f"rubberscan {command}: --today {text!r}: a date like 2025-06-30 is needed",
              file=sys.stderr)
        return None


def _read_text(path: str, command: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"rubberscan {command}: cannot read {path}: {getattr(exc, 'strerror', None) or exc}",
              file=sys.stderr)
        return None


def _open_ledger(folder: str, command: str, create: bool = False, lock: bool = True,
                 readable: bool = False):
    """The folder's ledger, or None after saying why (exit status USAGE); ``readable``: a ledger
    that cannot be written is opened read-only (nothing is stored then)."""
    from pathlib import Path

    from batch.ledger import LEDGER_NAME, Ledger, LedgerError, LedgerWriteError

    path = Path(folder) / LEDGER_NAME
    if not create and not path.is_file():
        print(f"rubberscan {command}: no {LEDGER_NAME} in {folder} (set a competition up with "
              f"`rubberscan competition {folder} --pairs PAIRS.csv`)", file=sys.stderr)
        return None
    try:
        if create:
            Path(folder).mkdir(parents=True, exist_ok=True)
        try:
            return Ledger(path, lock=lock)
        except LedgerWriteError:
            if not readable:
                raise
            return Ledger(path, readonly=True)
    except (LedgerError, OSError) as exc:
        print(f"rubberscan {command}: {exc}", file=sys.stderr)
        return None


def _competition_state(ledger, command: str, today):
    from competition.run import NoCompetition, refresh

    try:
        return refresh(ledger, today=today, writable=not ledger.readonly)
    except NoCompetition as exc:
        print(f"rubberscan {command}: {exc}", file=sys.stderr)
        return None


def cmd_competition(args) -> int:
    from competition.draw import DrawError, parse_draw
    from competition.outputs import write_pages
    from competition.roster import RosterError, parse_pairs
    from competition.run import decide
    from competition.setup import set_up
    from competition.store import info, load_roster

    today = _today(args.today, "competition")
    if today is None:
        return ExitCode.USAGE
    texts = {}
    for key in ("pairs", "draw"):
        path = getattr(args, key)
        if path is not None:
            texts[key] = _read_text(path, "competition")
            if texts[key] is None:
                return ExitCode.USAGE
    ledger = _open_ledger(args.dir, "competition", create=True)
    if ledger is None:
        return ExitCode.USAGE
    with ledger:
        if "pairs" not in texts and info(ledger) is None:
            print(f"rubberscan competition: {args.dir} has no competition yet: give --pairs "
                  "PAIRS.csv", file=sys.stderr)
            return ExitCode.USAGE
        try:
            roster = (parse_pairs(texts["pairs"], args.pairs) if "pairs" in texts
                      else load_roster(ledger))
            draw = parse_draw(texts["draw"], roster, args.draw) if "draw" in texts else None
            if "pairs" in texts or draw is not None or args.name:
                comp = set_up(ledger, roster, draw, args.name)
                print(f"competition {comp['name']!r} (code {comp['code']}): {len(roster)} pairs"
                      + (f", {len(draw)} matches imported" if draw is not None else ""))
        except (RosterError, DrawError) as exc:
            print(f"rubberscan competition: {exc}", file=sys.stderr)
            return ExitCode.FAILED
        for answer in args.assign:
            sheet, _, rest = answer.partition("=")
            match, _, ns = rest.partition(":")
            try:
                a = decide(ledger, sheet.strip(), None if match.strip().lower() in ("", "none")
                           else match.strip(), ns.strip() or None,
                           who="rubberscan competition --assign")
            except ValueError as exc:
                print(f"rubberscan competition: --assign {answer}: {exc}", file=sys.stderr)
                return ExitCode.FAILED
            print(f"sheet {a.sheet_id}: " + (f"match {a.match}, {a.ns} at N/S" if a.match
                                             else "no match of the draw"))
        state = _competition_state(ledger, "competition", today)
        if state is None:
            return ExitCode.USAGE
        page = write_pages(args.dir, state, today, ledger)
    print(f"competition page: {page}")
    return ExitCode.OK


def cmd_draw(args) -> int:
    from competition.draw import DrawError, draw_csv, parse_deadline
    from competition.outputs import write_pages
    from competition.run import refresh
    from competition.setup import next_draw

    today = _today(args.today, "draw")
    if today is None:
        return ExitCode.USAGE
    deadline = parse_deadline(args.deadline or "")
    if args.deadline and deadline is None:
        print(f"rubberscan draw: --deadline {args.deadline!r}: a date like 2025-07-31 is needed",
              file=sys.stderr)
        return ExitCode.USAGE
    if args.round < 1:
        print("rubberscan draw: --round counts from 1", file=sys.stderr)
        return ExitCode.USAGE
    ledger = _open_ledger(args.dir, "draw")
    if ledger is None:
        return ExitCode.USAGE
    with ledger:
        state = _competition_state(ledger, "draw", today)
        if state is None:
            return ExitCode.USAGE
        try:
            matches = next_draw(ledger, state, args.round, args.seed, deadline, args.force)
        except DrawError as exc:
            print(f"rubberscan draw: {exc}", file=sys.stderr)
            return ExitCode.FAILED
        page = write_pages(args.dir, refresh(ledger, today=today), today, ledger)
    sys.stdout.write(draw_csv(matches))
    print(f"rubberscan draw: round {args.round}: {len(matches)} matches; the whole draw in "
          f"{page.with_name('draw.csv')} and {page.with_name('draw.html')}", file=sys.stderr)
    return ExitCode.OK


def cmd_results(args) -> int:
    from competition.outputs import results_csv, results_json_lines, results_text, write_pages

    today = _today(args.today, "results")
    if today is None:
        return ExitCode.USAGE
    ledger = _open_ledger(args.dir, "results", lock=False, readable=True)
    if ledger is None:
        return ExitCode.USAGE
    with ledger:
        state = _competition_state(ledger, "results", today)
        if state is None:
            return ExitCode.USAGE
        try:
            write_pages(args.dir, state, today, None if ledger.readonly else ledger)
        except OSError as exc:  # the results are still printed; the page is a nicety here
            print(f"rubberscan results: cannot write the competition page: {exc}",
                  file=sys.stderr)
    text = {"json": results_json_lines, "csv": results_csv, "text": results_text}[args.format]
    sys.stdout.write(text(state))
    return ExitCode.OK


def cmd_match_forms(args) -> int:
    """`form --match ID... --dir DIR` (or --round N): each match's own form, one page each."""
    from pathlib import Path

    from competition.forms import FormsError, match_headers
    from ocr.matchform import match_form_pdf_bytes

    if not args.dir:
        print("rubberscan form: --match and --round need --dir DIR (the competition's folder)",
              file=sys.stderr)
        return ExitCode.USAGE
    ledger = _open_ledger(args.dir, "form", lock=False)
    if ledger is None:
        return ExitCode.USAGE
    with ledger:
        try:
            headers = match_headers(ledger, args.match or [], args.round)
        except FormsError as exc:
            print(f"rubberscan form: {exc}", file=sys.stderr)
            return ExitCode.USAGE
    out = Path(args.out if args.out != "summary-sheet.pdf" else "match-forms.pdf")
    try:
        out.write_bytes(match_form_pdf_bytes(headers, args.layout, dpi=args.dpi))
    except OSError as exc:
        print(f"rubberscan form: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return ExitCode.FAILED
    print(f"wrote {out} ({len(headers)} match form{'s' if len(headers) != 1 else ''}, "
          f"{args.layout} layout, A4)")
    return ExitCode.OK


# --------------------------------------------------------------------------- review, labels
def add_review_parsers(sub) -> None:
    p = sub.add_parser("review", help="check and correct a batch's sheets in the browser "
                       "(a local web app)")
    p.add_argument("dir", metavar="DIR", help="a batch output folder")
    p.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1, this machine only; any other "
                   "needs the token printed in the address)")
    p.add_argument("--user", default=None, metavar="NAME",
                   help="who decides, as recorded in the ledger (default: the OS user; a name "
                   "given in the page's header wins)")
    p.set_defaults(func=cmd_review)

    p = sub.add_parser("labels", help="write the cells people confirmed or corrected in the "
                       "review app as training data (make model LABELS=FILE.npz)")
    p.add_argument("dir", metavar="DIR", help="a batch output folder")
    p.add_argument("--out", required=True, metavar="FILE.npz")
    p.set_defaults(func=cmd_labels)


def cmd_review(args) -> int:
    from batch.ledger import LedgerError, LedgerWriteError
    from review.server import serve

    if not 0 <= args.port <= 65535:
        print(f"rubberscan review: --port {args.port} out of range 0..65535", file=sys.stderr)
        return ExitCode.USAGE
    try:
        serve(args.dir, host=args.host, port=args.port, who=args.user)
    except LedgerError as exc:
        print(f"rubberscan review: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except LedgerWriteError as exc:  # decisions are kept in the ledger: it must be writable
        print(f"rubberscan review: {exc} (decisions are kept there: run it on a folder you may "
              "write)", file=sys.stderr)
        return ExitCode.WRITE_FAILED
    except OSError as exc:  # the port is taken, the address is not this machine's
        print(f"rubberscan review: cannot listen on {args.host}:{args.port}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return ExitCode.FAILED
    return ExitCode.OK


def cmd_labels(args) -> int:
    from batch.ledger import LedgerError
    from review.labels import write_labels

    try:
        labels = write_labels(args.dir, args.out)
    except LedgerError as exc:
        print(f"rubberscan labels: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except ValueError as exc:
        print(f"rubberscan labels: {exc}", file=sys.stderr)
        return ExitCode.FAILED
    except OSError as exc:
        print(f"rubberscan labels: cannot write {args.out}: {exc.strerror or exc}",
              file=sys.stderr)
        return ExitCode.WRITE_FAILED
    print(f"rubberscan labels: {len(labels.images)} cells written to {args.out}"
          + (f" ({labels.missing} decided cells without a kept picture left out)"
             if labels.missing else ""), file=sys.stderr)
    return ExitCode.OK


# --------------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rubberscan", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_read_parser(sub)
    add_cell_parser(sub)
    add_score_parser(sub)
    add_form_parser(sub)
    add_batch_parsers(sub)
    add_competition_parsers(sub)
    add_replies_parser(sub)
    add_review_parsers(sub)
    return parser


# the environment variables that bound a process's threads: OpenMP (Tesseract), BLAS, OpenCV
THREAD_LIMITS = ("OMP_THREAD_LIMIT", "OMP_NUM_THREADS", "OPENCV_FOR_THREADS_NUM")


def one_core() -> None:
    """Each process reads on one core: the batch runs one worker per core, and on single files
    OpenCV's thread pool and Tesseract's OpenMP threads cost ~18 % more CPU for no shorter wall time
    (bench/RESULTS.md).  They take their limits from the environment when they load, so this runs
    before anything imports them (cheaply: it imports nothing); a limit the user set is kept."""
    for name in THREAD_LIMITS:
        os.environ.setdefault(name, "1")


def main(argv: list[str] | None = None) -> int:
    one_core()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # the reader of our output stopped early (e.g. `| head`): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return ExitCode.OK


if __name__ == "__main__":
    sys.exit(main())
