"""The review app: a small Flask application over one batch folder (review/folder.py).

Pages: ``/`` the sheets with anything open (the contract's list), ``/sheet/<id>`` one sheet with
its next open item (the cell cut from the scan, its row in context, the answers as buttons),
``/sheet/<id>/corners`` and ``/sheet/<id>/rows`` for a sheet whose table was not found, pictures
under ``/img/`` and the batch's own files under ``/files/``.  Every POST is a decision (or its
undo) and answers with a redirect to the sheet as it is now.  review/safety.py's rules run before
every request.
"""

from __future__ import annotations

import io
import secrets
from collections import Counter
from urllib.parse import urlencode

from flask import (
    Flask,
    Response,
    abort,
    flash,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)

from batch.decided import decided_cells, sheet_status
from batch.ledger import REVIEW_STATUSES
from review.folder import DecisionError, Folder, os_user
from review.images import inside
from review.providers import default_providers
from review.queue import COLUMN_TITLES, Item, where
from review.safety import PAGE_POLICY, REPORT_POLICY, TOKEN_COOKIE, Guard, Refused, headers
from scoring.formspec import DEALS, NUMBER_COLUMNS, SIDE_NAMES

WHO_COOKIE = "rubberscan_review_who"
MAX_WHO = 60  # characters of a name given


def create_app(out_dir, guard: Guard, providers=None, who: str | None = None) -> Flask:
    """The app for the batch folder ``out_dir`` (LedgerError when it has no usable ledger)."""
    folder = Folder(out_dir, providers if providers is not None else default_providers())
    app = Flask(__name__)
    app.config.update(SECRET_KEY=secrets.token_bytes(32), SESSION_COOKIE_SAMESITE="Strict",
                      SESSION_COOKIE_HTTPONLY=True, MAX_CONTENT_LENGTH=256 * 1024)
    app.extensions["rubberscan"] = folder
    default_who = who or os_user()

    @app.before_request
    def safety():
        token = request.args.get("token") or request.cookies.get(TOKEN_COOKIE)
        csrf = request.form.get("csrf") if request.method == "POST" else None
        try:
            guard.check(request.method, request.headers.get("Host"), token,
                        csrf or request.headers.get("X-CSRF-Token"), request.headers.get("Origin"))
        except Refused as exc:
            return _message(exc.message, exc.status)
        if guard.token and request.args.get("token") and request.method == "GET":
            # the token given in the address once: kept in a cookie, taken out of the address
            args = {k: v for k, v in request.args.items() if k != "token"}
            answer = redirect(request.path + ("?" + urlencode(args) if args else ""), 303)
            answer.set_cookie(TOKEN_COOKIE, guard.token, httponly=True, samesite="Strict")
            return answer
        return None

    @app.after_request
    def safe_headers(answer: Response) -> Response:
        policy = REPORT_POLICY if request.path.startswith("/files/") else PAGE_POLICY
        for k, v in headers(policy).items():
            answer.headers.setdefault(k, v)
        return answer

    @app.context_processor
    def common() -> dict:
        return {"csrf": guard.csrf, "who": _who(default_who), "titles": COLUMN_TITLES,
                "sides": SIDE_NAMES}

    # ------------------------------------------------------------------ pages
    @app.get("/")
    def index():
        summaries = folder.summaries()
        open_ = [s for s in summaries if s.open]
        counts = Counter(s.status for s in summaries)
        return render_template("index.html", open=open_, summaries=summaries,
                               counts=[(k, counts[k]) for k in REVIEW_STATUSES if counts[k]],
                               first=open_[0].sheet.sheet_id if open_ else None)

    @app.get("/sheets")
    def all_sheets():
        return render_template("sheets.html", summaries=folder.summaries())

    @app.get("/next")
    def next_sheet():
        sid = folder.next_sheet(request.args.get("after"))
        return redirect(url_for("sheet_page", sid=sid) if sid else url_for("index"), 303)

    @app.get("/sheet/<sid>")
    def sheet_page(sid: str):
        version = folder.ledger().review_state(sid)[1]  # first: what follows is no older
        sheet = folder.sheet(sid)
        if sheet is None:
            return _message(f"No sheet {sid} in this folder.", 404)
        ctx = folder.context()
        items = folder.items(sheet, ctx)
        if sheet.status != "ok" or not sheet.result:
            return render_template("table.html", sheet=sheet, version=version,
                                   page=folder.pictures.page(sheet),
                                   history=folder.ledger().decisions(sid, undone=True))
        wanted = request.args.get("item")
        item = next((it for it in items if it.key == wanted), items[0] if items else None)
        decisions = ctx.of(sid)
        return render_template(
            "sheet.html", sheet=sheet, result=sheet.result, items=items, item=item,
            version=version, status=sheet_status(sheet.result, decisions),
            context=_context_rows(sheet.result, item), decided=decided_cells(decisions),
            marked=_marks(item), history=folder.ledger().decisions(sid, undone=True),
            image_ok=bool(folder.pictures.boxes(sheet)[1]))

    @app.post("/sheet/<sid>/decide")
    def decide(sid: str):
        sheet = folder.sheet(sid)
        if sheet is None:
            return _message(f"No sheet {sid} in this folder.", 404)
        key = request.form.get("item", "")
        try:
            folder.check_version(sid, _version())
        except DecisionError as exc:
            return _message(str(exc), exc.status, sid)
        item = next((it for it in folder.items(sheet) if it.key == key), None)
        if item is None:
            return _message("That item is no longer open on this sheet (answered in another "
                            "tab?): nothing was changed.", 409, sid)
        try:
            decision = item.decide(_answer(request.form))
            folder.decide(sid, _version(), decision, _who(default_who))
        except ValueError as exc:
            flash(f"Not decided: {exc}.", "error")
            return redirect(url_for("sheet_page", sid=sid, item=key), 303)
        except DecisionError as exc:
            return _message(str(exc), exc.status, sid)
        flash(_said(item, decision), "done")
        return redirect(url_for("sheet_page", sid=sid), 303)

    @app.post("/sheet/<sid>/status")
    def status(sid: str):
        sheet = folder.sheet(sid)
        if sheet is None:
            return _message(f"No sheet {sid} in this folder.", 404)
        open_count = len([it for it in folder.items(sheet) if it.provider == "sheet"])
        try:
            decision = Folder.status_decision(request.form.get("action", ""),
                                              request.form.get("reason", ""), open_count)
            folder.decide(sid, _version(), decision, _who(default_who))
        except DecisionError as exc:
            if exc.status == 400:
                flash(f"Not changed: {exc}.", "error")
                return redirect(url_for("sheet_page", sid=sid), 303)
            return _message(str(exc), exc.status, sid)
        flash(f"Sheet marked {decision['after']}.", "done")
        return redirect(url_for("sheet_page", sid=sid), 303)

    @app.post("/sheet/<sid>/undo")
    def undo(sid: str):
        raw = request.form.get("decision", "")
        try:
            folder.undo(sid, _version(), int(raw) if raw.isdigit() else None, _who(default_who))
        except DecisionError as exc:
            return _message(str(exc), exc.status, sid)
        flash("Undone.", "done")
        return redirect(url_for("sheet_page", sid=sid), 303)

    @app.post("/sheet/<sid>/corners")
    def corners(sid: str):
        sheet = folder.sheet(sid)
        if sheet is None:
            return _message(f"No sheet {sid} in this folder.", 404)
        try:
            decision = Folder.corners_decision(request.form.get("corners", ""), sheet.error)
            folder.decide(sid, _version(), decision, _who(default_who))
        except DecisionError as exc:
            return _message(str(exc), exc.status, sid)
        flash("Read again from the corners clicked.", "done")
        return redirect(url_for("sheet_page", sid=sid), 303)

    @app.route("/sheet/<sid>/rows", methods=["GET", "POST"])
    def rows(sid: str):
        version = folder.ledger().review_state(sid)[1]
        sheet = folder.sheet(sid)
        if sheet is None:
            return _message(f"No sheet {sid} in this folder.", 404)
        if request.method == "POST":
            try:
                decision = Folder.rows_decision(request.form, DEALS)
                folder.decide(sid, _version(), decision, _who(default_who))
            except DecisionError as exc:
                return _message(str(exc), exc.status, sid)
            flash("The rows typed are the sheet's reading now.", "done")
            return redirect(url_for("sheet_page", sid=sid), 303)
        shown = {r["deal"]: r for r in (sheet.result or {}).get("rows") or []}
        return render_template("rows.html", sheet=sheet, version=version, deals=DEALS,
                               shown=shown, columns=("dealer",) + NUMBER_COLUMNS,
                               names=(sheet.result or {}).get("names") or {},
                               winners=(sheet.result or {}).get("winners"))

    @app.post("/who")
    def set_who():
        name = " ".join(request.form.get("who", "").split())[:MAX_WHO]
        back = request.form.get("back") or "/"
        local = back.startswith("/") and not back.startswith("//") and "\\" not in back
        answer = redirect(back if local else "/", 303)
        if name and name.isprintable():
            answer.set_cookie(WHO_COOKIE, name, httponly=True, samesite="Strict",
                              max_age=3600 * 24 * 365)
        return answer

    # ------------------------------------------------------------------ pictures and files
    @app.get("/img/<sid>/cell/<row>/<key>.png")
    def cell_image(sid: str, row: str, key: str):
        sheet = folder.sheet(sid) or abort(404)
        data = folder.pictures.cell(sheet, "" if row == "-" else row, key)
        return _bytes(data, "image/png")

    @app.get("/img/<sid>/rows/<row>.jpg")
    def rows_image(sid: str, row: str):
        sheet = folder.sheet(sid) or abort(404)
        marks = [tuple(m.split(":", 1)) for m in request.args.get("mark", "").split(",")
                 if ":" in m]
        return _bytes(folder.pictures.rows(sheet, row, marks), "image/jpeg")

    @app.get("/img/<sid>/page.jpg")
    def page_image(sid: str):
        sheet = folder.sheet(sid) or abort(404)
        kept = folder.pictures.page(sheet)
        if kept is None:
            abort(404)
        return send_file(kept[0], mimetype="image/jpeg")

    @app.get("/files/<path:relative>")
    def files(relative: str):
        path = inside(folder.out_dir, relative)
        if path is None:
            return _message("No such file in this batch folder.", 404)
        return send_file(path)

    @app.errorhandler(404)
    def not_found(_exc):
        return _message("Not found.", 404)

    @app.errorhandler(413)
    def too_large(_exc):
        return _message("That request is too large.", 413)

    return app


# --------------------------------------------------------------------------- helpers
def _message(text: str, status: int, sid: str | None = None):
    return render_template("message.html", message=text, sid=sid), status


def _bytes(data: bytes | None, mimetype: str):
    if data is None:
        abort(404)
    return send_file(io.BytesIO(data), mimetype=mimetype)


def _version() -> int:
    raw = request.form.get("version", "")
    if not raw.isdigit():
        raise DecisionError("the page sent no version of the sheet: load it again")
    return int(raw)


def _who(default: str) -> str:
    name = request.cookies.get(WHO_COOKIE, "")
    return name if name and len(name) <= MAX_WHO and name.isprintable() else default


def _answer(form) -> dict:
    if form.get("action") == "dismiss":
        return {"action": "dismiss", "reason": form.get("reason", "")}
    if form.get("choice", "").isdigit():
        return {"choice": int(form["choice"])}
    if form.get("value", "").strip():
        return {"value": form["value"]}
    raise ValueError("choose an answer or type a value")


def _said(item: Item, decision: dict) -> str:
    after = decision.get("after")
    if decision["kind"] == "flag":
        return f"Flag {after}: {item.question}"
    if decision["kind"] in ("value", "written", "misread"):
        before = decision.get("before")
        return (f"{where(decision['target'])}: {'?' if before is None else before} -> {after}"
                + (" (the players wrote it)" if decision["kind"] == "written" else ""))
    return f"Decided: {after}"


def _marks(item: Item | None) -> str:
    if item is None:
        return ""
    return ",".join(f"{r}:{k}" for r, k in item.cells)


def _context_rows(result: dict, item: Item | None) -> list[dict]:
    """The item's row with the rows before and after it, as the result shows them now."""
    rows = result.get("rows") or []
    if item is None or item.row is None:
        return []
    if item.row == "total":
        tail = rows[-2:]
        totals = result.get("totals") or {}
        return tail + [{"deal": "Total", "cum_ns": totals.get("ns"), "cum_ew": totals.get("ew"),
                        "label": "total"}]
    index = next((i for i, r in enumerate(rows) if str(r.get("deal")) == item.row), None)
    if index is None:
        return []
    return rows[max(0, index - 1):index + 2]
