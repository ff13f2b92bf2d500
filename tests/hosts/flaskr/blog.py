"""The site's own pages: a list of posts, and writing one."""

from __future__ import annotations

from flask import Blueprint, flash, g, redirect, render_template, request, url_for

from tests.hosts.flaskr.auth import login_required
from tests.hosts.flaskr.db import get_db

bp = Blueprint("blog", __name__)


@bp.route("/")
def index():
    posts = (
        get_db()
        .execute(
            "SELECT p.id, title, body, created, author_id, username"
            " FROM post p JOIN user u ON p.author_id = u.id ORDER BY created DESC"
        )
        .fetchall()
    )
    return render_template("blog/index.html", posts=posts)


@bp.route("/create", methods=("GET", "POST"))
@login_required
def create():
    if request.method == "POST":
        title = request.form["title"]
        if not title:
            flash("Title is required.")
        else:
            db = get_db()
            db.execute(
                "INSERT INTO post (title, body, author_id) VALUES (?, ?, ?)",
                (title, request.form["body"], g.user["id"]),
            )
            db.commit()
            return redirect(url_for("blog.index"))
    return render_template("blog/create.html")
