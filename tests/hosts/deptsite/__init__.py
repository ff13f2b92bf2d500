"""A department site as many are built: Flask-SQLAlchemy models migrated with Flask-Migrate,
Flask-Login, CSRFProtect on every form. It embeds the directory at /people, inside its own
layout and login, in the same database."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, abort, flash, redirect, render_template, request, url_for
from flask_login import (
    LoginManager,
    UserMixin,
    current_user,
    login_required,
    login_user,
    logout_user,
)
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import FlaskForm
from flask_wtf.csrf import CSRFProtect
from sqlalchemy import String, Text, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from werkzeug.security import check_password_hash, generate_password_hash
from wtforms import PasswordField, StringField, TextAreaField
from wtforms.validators import InputRequired

from directory import Directory
from directory.db import enable_sqlite_foreign_keys
from directory.migrate import exclude_directory_tables


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)
migrate = Migrate()
login_manager = LoginManager()
csrf = CSRFProtect()
directory = Directory()
site = Blueprint("site", __name__)


class User(UserMixin, db.Model):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(20), default="member")

    def set_password(self, password: str, method: str) -> None:
        self.password_hash = generate_password_hash(password, method=method)


class Announcement(db.Model):
    __tablename__ = "announcements"

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text, default="")


class LoginForm(FlaskForm):
    username = StringField("Username", validators=[InputRequired()])
    password = PasswordField("Password", validators=[InputRequired()])


class AnnouncementForm(FlaskForm):
    title = StringField("Title", validators=[InputRequired()])
    body = TextAreaField("Text")


@login_manager.user_loader
def load_user(user_id: str) -> User | None:
    return db.session.get(User, int(user_id))


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        SECRET_KEY="dev",
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{Path(app.instance_path) / 'deptsite.sqlite3'}",
        PASSWORD_HASH_METHOD="scrypt",
        # The faculty directory: at /people, in this site's layout, signed in by this site.
        DIRECTORY_URL_PREFIX="/people",
        DIRECTORY_BASE_TEMPLATE="layout.html",
        DIRECTORY_DEPARTMENT_NAME="Department of Physics",
        DIRECTORY_IDENTITY_SOURCE="flask_login",
        DIRECTORY_ADMIN_ROLE="chair",
        DIRECTORY_ENGINE=lambda: db.engine,
    )
    app.config.update(test_config or {})

    db.init_app(app)
    with app.app_context():
        enable_sqlite_foreign_keys(db.engine)  # the directory's cascades need them
    migrate.init_app(app, db, include_object=exclude_directory_tables)
    login_manager.init_app(app)
    login_manager.login_view = "site.login"
    csrf.init_app(app)
    directory.init_app(app)
    app.register_blueprint(site)
    return app


@site.route("/")
def home() -> str:
    announcements = db.session.scalars(select(Announcement).order_by(Announcement.id.desc()))
    return render_template("home.html", announcements=list(announcements))


@site.route("/login", methods=["GET", "POST"])
def login():
    form = LoginForm()
    if form.validate_on_submit():
        user = db.session.scalar(select(User).where(User.username == form.username.data))
        if user and check_password_hash(user.password_hash, form.password.data):
            login_user(user)
            return redirect(_local(request.args.get("next")) or url_for("site.home"))
        flash("Unknown user or wrong password.")
    return render_template("login.html", form=form)


def _local(target: str | None) -> str | None:
    return target if target and target.startswith("/") and not target.startswith("//") else None


@site.route("/logout", methods=["POST"])
def logout():
    logout_user()
    return redirect(url_for("site.home"))


@site.route("/announcements/new", methods=["GET", "POST"])
@login_required
def new_announcement():
    if current_user.role != "chair":
        abort(403)
    form = AnnouncementForm()
    if form.validate_on_submit():
        db.session.add(Announcement(title=form.title.data, body=form.body.data or ""))
        db.session.commit()
        return redirect(url_for("site.home"))
    return render_template("announcement_form.html", form=form)
